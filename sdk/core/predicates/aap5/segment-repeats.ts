// The AAP-5 state a segment chain carries (circuits/segments/aap5_limits.circom, with RepeatHitsFrom of
// circuits/gadgets/segment_repeats.circom and SessionArgumentClose of segment_argument.circom): the running count and sum, and the repeat
// argument split over the segments, its labels the session's and its challenges global. Mirrors the
// circuit's arithmetic exactly, so that the states at each boundary are the ones the circuit computes.
// Pure: no I/O.
import { FIELD_MODULUS as P, hashVector } from "../../hash.js";
import { addDistinctRoot, packLabels, rowWeights } from "../../multiset.js";
import { occurrenceLabels, type RepeatRecord } from "./repeats.js";
import { SESSION_COUNT_BITS } from "../../segments.js";

/** One row of the session as AAP-5 reads it: a repeat record, and whether it counts and what it adds. */
export interface LimitsRow extends RepeatRecord {
  counted: boolean;
  /** The summed amount (0 when not summed or missing). */
  amount: bigint;
}

/** The carried state: [count, sum, packChain, weightChain, labelled, steps, roots, fractions, firsts, beta, zeta]. */
export interface LimitsCarry {
  count: bigint;
  sum: bigint;
  packChain: bigint;
  weightChain: bigint;
  labelled: bigint;
  steps: bigint;
  roots: bigint;
  fractions: bigint;
  firsts: bigint;
  beta: bigint;
  zeta: bigint;
}

export function limitsCarryVector(c: LimitsCarry): bigint[] {
  return [
    c.count,
    c.sum,
    c.packChain,
    c.weightChain,
    c.labelled,
    c.steps,
    c.roots,
    c.fractions,
    c.firsts,
    c.beta,
    c.zeta,
  ];
}

const mod = (x: bigint) => ((x % P) + P) % P;

export interface LimitsChain {
  /** The carried state at each boundary 0..m (index j: before segment j; m: after the last). */
  carries: LimitsCarry[];
  /** The session's labels and certificate weights, one per row of the m·S rows. */
  count: bigint[];
  last: bigint[];
  weight: bigint[];
}

/**
 * The chain's AAP-5 state over `rows` (m·S of them, rows past n not live), cut every `size` rows: the
 * session's occurrence labels, beta = HashVector(finalRoot, packChain) over every segment's packed labels,
 * the certificate weights for the first occurrences' keys under beta, zeta = HashVector(beta, weightChain),
 * and each segment's running products and sums at zeta. `labels` other than the honest ones are certified
 * as given (tests of forged labels); two first occurrences of one key have no certificate, and throw.
 */
export function limitsChain(
  rows: readonly LimitsRow[],
  size: number,
  finalRoot: bigint,
  labels: { count: bigint[]; last: bigint[] } = occurrenceLabels(rows),
): LimitsChain {
  if (rows.length % size !== 0) throw new RangeError(`${rows.length} rows are not whole segments of ${size}`);
  const m = rows.length / size;
  const { count, last } = labels;
  const bits = BigInt(SESSION_COUNT_BITS);
  const packChains = [0n];
  for (let j = 0; j < m; j++) {
    const packed = Array.from(
      { length: size },
      (_, i) => count[j * size + i]! - 1n + (last[j * size + i]! << bits),
    );
    packChains.push(hashVector([packChains[j]!, ...packLabels(packed, SESSION_COUNT_BITS + 1)]));
  }
  const beta = hashVector([finalRoot, packChains[m]!]);
  const key = rows.map((r) => mod(r.tool + beta * r.args));
  const first = rows.map((r, i) => r.live && count[i] === 1n);
  const weight = rowWeights(key.map((k, i) => (first[i] ? k : null)));
  const weightChains = [0n];
  for (let j = 0; j < m; j++)
    weightChains.push(hashVector([weightChains[j]!, ...weight.slice(j * size, (j + 1) * size)]));
  const zeta = hashVector([beta, weightChains[m]!]);

  const beta2 = (beta * beta) % P;
  let c: LimitsCarry = {
    count: 0n,
    sum: 0n,
    packChain: 0n,
    weightChain: 0n,
    labelled: 1n,
    steps: 1n,
    roots: 1n,
    fractions: 0n,
    firsts: 0n,
    beta,
    zeta,
  };
  const carries = [c];
  for (let j = 0; j < m; j++) {
    let { count: runCount, sum, labelled, steps, roots, fractions, firsts } = c;
    for (let i = j * size; i < (j + 1) * size; i++) {
      const r = rows[i]!;
      if (!r.live) continue;
      if (r.counted) runCount += 1n;
      sum += r.amount;
      const entry = mod(key[i]! + beta2 * count[i]!);
      labelled = (labelled * mod(zeta - entry)) % P;
      if (!first[i]) steps = (steps * mod(zeta - entry + beta2)) % P;
      if (last[i] === 1n) steps = (steps * mod(zeta - entry)) % P;
      if (first[i])
        ({ roots, fractions, firsts } = addDistinctRoot(
          { roots, fractions, firsts },
          key[i]!,
          weight[i]!,
          zeta,
        ));
    }
    c = {
      count: runCount,
      sum,
      packChain: packChains[j + 1]!,
      weightChain: weightChains[j + 1]!,
      labelled,
      steps,
      roots,
      fractions,
      firsts,
      beta,
      zeta,
    };
    carries.push(c);
  }
  return { carries, count, last, weight };
}
