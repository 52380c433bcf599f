// The prover's labels for Aap1Authorization (circuits/predicates/aap1_authorization.circom):
// each member's rank among its action id's members, its predecessor, its last bit
// and the state before it, with the certificate that rank-1 members have distinct
// action ids. Decodes the slots exactly as the circuit's Aap1Record does, and mirrors
// its label packing and challenges; the circuit checks all of it.
import { KIND, SLOT } from "../../encoding.js";
import { FIELD_MODULUS, hashVector } from "../../hash.js";
import { countBits, packLabels, rowWeights } from "../../multiset.js";
import type { EncodedTrace } from "../../encoding.js";

export interface ChainHints {
  rank: bigint[];
  last: bigint[];
  pred: bigint[];
  validIn: bigint[];
  usedIn: bigint[];
  coversIn: bigint[];
  /** DistinctRoots' weights: nonzero only at rank-1 members. */
  weight: bigint[];
  /** The circuit's challenges, for tests. */
  beta: bigint;
  zeta: bigint;
}

/** Aap1Record on slots: which records are members, and an authorization's validity. */
export function decodeAuthorizationRow(
  slots: readonly bigint[],
  active: boolean,
  gatedTools: readonly bigint[],
  accepted: readonly bigint[],
) {
  const kind = slots[SLOT.kind]!;
  const auth = active && kind === KIND.authorization;
  // Padding tools with 0 matches a tool slot of 0, as IsInSet does.
  const gated = active && kind === KIND.call && gatedTools.includes(slots[SLOT.tool]!);
  let valid = false;
  const code = slots[SLOT.aux]!;
  if (auth && code < 64n) {
    const bit = (k: number) => ((code >> BigInt(k)) & 1n) === 1n;
    const allow = bit(0) && !bit(1);
    const autoReview = bit(2) && bit(3);
    const human = bit(2) && !bit(3);
    const policy = bit(3) && !bit(2);
    const hasRef = slots[SLOT.target0]! !== 0n;
    valid =
      allow &&
      ((human && accepted[0] === 1n) ||
        (policy && accepted[1] === 1n && hasRef) ||
        (autoReview && accepted[2] === 1n));
  }
  return { auth, gated, valid };
}

/**
 * Each member's rank among its action id's members over `slots` (rows at or past n are not members), its
 * predecessor's row, its last bit and the state before it, and which rows are rank-1 members. Row numbers
 * are positions in `slots`: the session's when it is the whole session (the segment chains).
 */
export function authorizationLabels(
  slots: readonly (readonly bigint[])[],
  n: number,
  seed: bigint,
  gatedTools: readonly bigint[],
  accepted: readonly bigint[],
): { labels: ChainLabels; first: boolean[] } {
  const capacity = slots.length;
  const zeros = () => Array<bigint>(capacity).fill(0n);
  const [rank, last, pred, validIn, usedIn, coversIn] = [
    zeros(),
    zeros(),
    zeros(),
    zeros(),
    zeros(),
    zeros(),
  ];
  const latest = new Map<
    bigint,
    { index: number; rank: bigint; valid: bigint; used: bigint; covers: bigint }
  >();
  const first = Array<boolean>(capacity).fill(false);
  slots.forEach((s, i) => {
    rank[i] = 1n;
    const { auth, gated, valid } = decodeAuthorizationRow(s, i < n, gatedTools, accepted);
    if (!auth && !gated) return;
    const action = s[SLOT.action]!;
    const before = latest.get(action);
    if (before) {
      rank[i] = before.rank + 1n;
      pred[i] = BigInt(before.index);
      validIn[i] = before.valid;
      usedIn[i] = before.used;
      coversIn[i] = before.covers;
    } else first[i] = true;
    const covers = (s[SLOT.tool]! + seed * s[SLOT.args]!) % FIELD_MODULUS;
    latest.set(action, {
      index: i,
      rank: rank[i]!,
      valid: auth ? (valid ? 1n : 0n) : validIn[i]!,
      used: gated ? 1n : usedIn[i]!,
      covers: auth ? covers : coversIn[i]!,
    });
  });
  for (const { index } of latest.values()) last[index] = 1n;
  return { labels: { rank, last, pred, validIn, usedIn, coversIn }, first };
}

/** Labels for a circuit with `trace.slots.length` rows; the seed is the trace's final root. */
export function aap1ChainHints(
  trace: EncodedTrace,
  gatedTools: readonly bigint[],
  accepted: readonly bigint[],
): ChainHints {
  const { slots, n, finalRoot: seed } = trace;
  const { labels, first } = authorizationLabels(slots, n, seed, gatedTools, accepted);
  const beta = chainBeta(labels, seed);
  const weight = rowWeights(slots.map((s, i) => (first[i] ? s[SLOT.action]! : null)));
  return { ...labels, weight, beta, zeta: hashVector([beta, ...weight]) };
}

export type ChainLabels = Omit<ChainHints, "weight" | "beta" | "zeta">;

/**
 * The circuit's first challenge: the seed, the packed labels (rank - 1 and pred in B bits each,
 * last, validIn, usedIn) and every coversIn. The test point is then Hash(beta, weight).
 */
export function chainBeta(labels: ChainLabels, seed: bigint): bigint {
  const bits = countBits(labels.rank.length);
  const packed = labels.rank.map(
    (r, i) =>
      r -
      1n +
      (labels.last[i]! << BigInt(bits)) +
      (labels.pred[i]! << BigInt(bits + 1)) +
      (labels.validIn[i]! << BigInt(2 * bits + 1)) +
      (labels.usedIn[i]! << BigInt(2 * bits + 2)),
  );
  return hashVector([seed, ...packLabels(packed, 2 * bits + 3), ...labels.coversIn]);
}
