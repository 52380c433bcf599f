// The prover's side of circuits/gadgets/multiset.circom, and the label packing its
// callers hash into their challenges: one definition of each, mirrored exactly.
import { derivativeAtRoots, modPow } from "./field-poly.js";
import { FIELD_MODULUS } from "./hash.js";

const P = FIELD_MODULUS;

/** Bits of a label below n, the least B with 2^B >= n (countBits in the circuit). */
export function countBits(n: number): number {
  let b = 0;
  while (2 ** b < n) b++;
  return b;
}

/** Labels of `width` bits each, packed floor(250 / width) to a field element, lowest first. */
export function packLabels(labels: readonly bigint[], width: number): bigint[] {
  const perElement = Math.floor(250 / width);
  const packs = Array<bigint>(Math.ceil(labels.length / perElement)).fill(0n);
  labels.forEach((label, i) => {
    packs[Math.floor(i / perElement)]! += label << BigInt(width * (i % perElement));
  });
  return packs;
}

/** x^(p-2) mod p, by Montgomery's batch trick: one exponentiation for all of xs. */
function batchInverse(xs: readonly bigint[]): bigint[] {
  const prefix: bigint[] = [];
  let acc = 1n;
  for (const x of xs) {
    prefix.push(acc);
    acc = (acc * x) % P;
  }
  let inv = modPow(acc, P - 2n);
  const out = Array<bigint>(xs.length);
  for (let i = xs.length - 1; i >= 0; i--) {
    out[i] = (inv * prefix[i]!) % P;
    inv = (inv * xs[i]!) % P;
  }
  return out;
}

/** 1/x mod p (0 for x = 0), as a circuit's `<--` inverse hint computes it. */
export function fieldInverse(x: bigint): bigint {
  return modPow(((x % P) + P) % P, P - 2n);
}

/**
 * DistinctRoots' certificate that the values are pairwise distinct: the partial-fraction
 * weights w_k = 1 / ∏_(j≠k) (u_k - u_j), with 1/∏ (X - u_k) = Σ w_k / (X - u_k).
 * Throws when two values are equal, since then no weights exist. The products are f'(u_k) for
 * f = ∏ (X − u_k), evaluated all at once in O(k log² k) (field-poly.ts).
 */
export function partialFractionWeights(values: readonly bigint[]): bigint[] {
  const denominators = derivativeAtRoots(values);
  if (denominators.includes(0n))
    throw new RangeError("two values are equal: no partial-fraction certificate exists");
  return batchInverse(denominators);
}

/**
 * DistinctRoots' weight input, one per row: the partial-fraction weight of each
 * selected row's value (`null` for a row that is not selected, which gets 0).
 */
export function rowWeights(rows: readonly (bigint | null)[]): bigint[] {
  const selected = rows.flatMap((v, i) => (v === null ? [] : [i]));
  const weights = partialFractionWeights(selected.map((i) => rows[i]!));
  const out = Array<bigint>(rows.length).fill(0n);
  selected.forEach((i, k) => (out[i] = weights[k]!));
  return out;
}

/** DistinctRootsFrom's running certificate (circuits/gadgets/segment_argument.circom), carried over segments. */
export interface DistinctRootsRun {
  /** ∏ (zeta − key) over the first rows so far. */
  roots: bigint;
  /** Σ weight / (zeta − key) over the same rows. */
  fractions: bigint;
  /** How many first rows so far. */
  firsts: bigint;
}

/** One first row joins the running certificate at zeta, as DistinctRootsFrom adds it. */
export function addDistinctRoot(
  run: DistinctRootsRun,
  key: bigint,
  weight: bigint,
  zeta: bigint,
): DistinctRootsRun {
  const gap = (((zeta - key) % P) + P) % P;
  return {
    roots: (run.roots * gap) % P,
    fractions: (((run.fractions + weight * fieldInverse(gap)) % P) + P) % P,
    firsts: run.firsts + 1n,
  };
}
