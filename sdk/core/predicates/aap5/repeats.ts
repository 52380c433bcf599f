// The prover's hints for RepeatHits (circuits/gadgets/repeats.circom): each live
// record's occurrence number within its (tool, args) key, the last-occurrence bits,
// and the Bezout certificate that first occurrences have distinct keys. Mirrors the
// gadget's label packing and its two challenges exactly; the circuit checks all of it.
import { FIELD_MODULUS, hashVector } from "../../hash.js";
import { countBits, packLabels, rowWeights } from "../../multiset.js";

export interface RepeatRecord {
  live: boolean;
  tool: bigint;
  args: bigint;
}

export interface RepeatHints {
  count: bigint[];
  last: bigint[];
  /** DistinctRoots' weights: nonzero only at the records labelled 1. */
  weight: bigint[];
  /** The gadget's challenges, for tests. */
  beta: bigint;
  zeta: bigint;
}

/** The honest labels: each live record's occurrence number within its key, and its last occurrences. */
export function occurrenceLabels(records: readonly RepeatRecord[]): { count: bigint[]; last: bigint[] } {
  const keyOf = (r: RepeatRecord) => `${r.tool}:${r.args}`;
  const seen = new Map<string, number>();
  const lastIndex = new Map<string, number>();
  const count = records.map((r, i) => {
    if (!r.live) return 1n;
    const key = keyOf(r);
    const k = (seen.get(key) ?? 0) + 1;
    seen.set(key, k);
    lastIndex.set(key, i);
    return BigInt(k);
  });
  const last = records.map((r, i) => (r.live && lastIndex.get(keyOf(r)) === i ? 1n : 0n));
  return { count, last };
}

/**
 * The challenges and the distinctness certificate for the given labels (honest or not: tests
 * certify lies to show the circuit refuses them). Throws when two records labelled 1
 * share a key, since then no certificate exists.
 */
export function certifyLabels(
  records: readonly RepeatRecord[],
  given: { count: bigint[]; last: bigint[] },
  seed: bigint,
): RepeatHints {
  const { count, last } = given;
  const beta = repeatBeta(given, seed);
  const weight = rowWeights(
    records.map((r, i) => (r.live && count[i] === 1n ? (r.tool + beta * r.args) % FIELD_MODULUS : null)),
  );
  return { count, last, weight, beta, zeta: repeatZeta(beta, weight) };
}

/** The gadget's first challenge: the seed and the packed labels, count - 1 (B bits) and last above it. */
export function repeatBeta(
  labels: { count: readonly bigint[]; last: readonly bigint[] },
  seed: bigint,
): bigint {
  const bits = countBits(labels.count.length);
  const packed = labels.count.map((c, i) => c - 1n + (labels.last[i]! << BigInt(bits)));
  return hashVector([seed, ...packLabels(packed, bits + 1)]);
}

/** The gadget's test point: beta and the certificate's weights, whatever they are. */
export function repeatZeta(beta: bigint, weight: readonly bigint[]): bigint {
  return hashVector([beta, ...weight]);
}

/** Hints for a circuit of `records.length` rows (the capacity); `seed` is what the circuit hashes first. */
export function repeatHints(records: readonly RepeatRecord[], seed: bigint): RepeatHints {
  return certifyLabels(records, occurrenceLabels(records), seed);
}
