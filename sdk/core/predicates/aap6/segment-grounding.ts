// AAP-6's grounding argument over a session cut into segments (StrictGroundingFrom in
// circuits/gadgets/segment_grounding.circom, carried by circuits/segments/aap6_grounding.circom): the
// session's labels (pick, gap, mult, all session-scope), the challenges derived from every segment's packed
// labels, and the running values at each boundary. Mirrors the circuit's arithmetic exactly, so the states
// it hashes are the ones the circuit computes. Pure: no I/O. Linear in the session's length, so that a
// long session (thousands of records) is cheap to label.
import { InputError } from "../../errors.js";
import { FIELD_MODULUS as P, hashVector, poseidon } from "../../hash.js";
import { fieldInverse, packLabels } from "../../multiset.js";
import { SESSION_COUNT_BITS } from "../../segments.js";
import type { GroundingElement } from "./grounding.js";

const mod = (x: bigint) => ((x % P) + P) % P;

/** Bits of a gap (the session's record count) and of a multiplicity (up to 2^25 queries), as the circuit. */
export const SEGMENT_GAP_BITS = SESSION_COUNT_BITS;
export const SEGMENT_MULT_BITS = SESSION_COUNT_BITS + 2;

/** The carried state: [b, V, picked, running, acc, querySum, groundSum, packChain, beta, z]. */
export interface GroundingCarry {
  b: bigint;
  V: bigint;
  picked: bigint;
  running: bigint;
  acc: bigint;
  querySum: bigint;
  groundSum: bigint;
  packChain: bigint;
  beta: bigint;
  z: bigint;
}

export function groundingCarryVector(c: GroundingCarry): bigint[] {
  return [c.b, c.V, c.picked, c.running, c.acc, c.querySum, c.groundSum, c.packChain, c.beta, c.z];
}

/** The session's labels, one per element of the chain's m·S·O elements. */
export interface SessionGroundingLabels {
  pick: bigint[];
  gap: bigint[];
  mult: bigint[];
}

/**
 * The oracle over the session's elements (record e / O): the first query with no equal ground in a strictly
 * earlier record, or null; and, per query, the element of the earliest ground that grounds it.
 */
export function sessionGrounding(
  elements: readonly GroundingElement[],
  perRecord: number,
): { firstUngrounded: number | null; groundOf: (number | null)[] } {
  if (elements.length % perRecord !== 0)
    throw new InputError(`${elements.length} elements do not split into records of ${perRecord}`);
  const earliest = new Map<bigint, number>();
  const groundOf: (number | null)[] = elements.map(() => null);
  let firstUngrounded: number | null = null;
  for (let from = 0; from < elements.length; from += perRecord) {
    // A record's queries are read before its own grounds join: a value does not ground itself.
    for (let e = from; e < from + perRecord; e++) {
      const el = elements[e]!;
      if (!el.query) continue;
      const g = earliest.get(mod(el.value));
      groundOf[e] = g ?? null;
      if (g === undefined && firstUngrounded === null) firstUngrounded = e;
    }
    for (let e = from; e < from + perRecord; e++) {
      const el = elements[e]!;
      const v = mod(el.value);
      if (el.ground && !earliest.has(v)) earliest.set(v, e);
    }
  }
  return { firstUngrounded, groundOf };
}

/**
 * The honest labels: a violated session picks its first ungrounded query (gap and mult 0); a satisfied one
 * points each query at its earliest ground (gap = rec − 1 − rec(ground)) and counts the pointers (mult).
 */
export function sessionGroundingLabels(
  elements: readonly GroundingElement[],
  perRecord: number,
): SessionGroundingLabels {
  const zeros = () => Array<bigint>(elements.length).fill(0n);
  const pick = zeros();
  const gap = zeros();
  const mult = zeros();
  const { firstUngrounded, groundOf } = sessionGrounding(elements, perRecord);
  if (firstUngrounded !== null) {
    pick[firstUngrounded] = 1n;
    return { pick, gap, mult };
  }
  groundOf.forEach((g, e) => {
    if (g === null) return;
    gap[e] = BigInt(Math.floor(e / perRecord) - 1 - Math.floor(g / perRecord));
    mult[g]! += 1n;
  });
  return { pick, gap, mult };
}

export interface GroundingChain {
  /** The carried state at each boundary 0..m (index j: before segment j; m: after the last). */
  carries: GroundingCarry[];
  labels: SessionGroundingLabels;
  /** 1/acc at the end (0 when acc is 0): the last segment's hint. */
  accInv: bigint;
}

/** One segment's packed labels gap + 2^24·mult, 50 bits each, as the circuit packs them. */
function segmentPacks(labels: SessionGroundingLabels, from: number, to: number): bigint[] {
  const packed: bigint[] = [];
  for (let e = from; e < to; e++) packed.push(labels.gap[e]! + (labels.mult[e]! << BigInt(SEGMENT_GAP_BITS)));
  return packLabels(packed, SEGMENT_GAP_BITS + SEGMENT_MULT_BITS).map(mod);
}

/**
 * The chain's grounding state over `elements` (m·size records of `perRecord` values each, padding rows with
 * no roles), cut every `size` records: beta = HashVector(finalRoot, packChain) over every segment's packed
 * labels, z = Poseidon(beta), and each segment's running values. `labels` other than the honest ones,
 * `challenges` other than the derived ones and a `claim` (b, V) other than the pick's are certified as given
 * (tests of forgeries).
 */
export function groundingChain(
  elements: readonly GroundingElement[],
  perRecord: number,
  size: number,
  finalRoot: bigint,
  labels: SessionGroundingLabels = sessionGroundingLabels(elements, perRecord),
  challenges?: { beta: bigint; z: bigint },
  claim?: { b?: bigint; V?: bigint },
): GroundingChain {
  const perSegment = size * perRecord;
  if (elements.length % perSegment !== 0)
    throw new RangeError(`${elements.length} elements are not whole segments of ${size} records`);
  const m = elements.length / perSegment;
  const packChains = [0n];
  for (let j = 0; j < m; j++)
    packChains.push(
      hashVector([packChains[j]!, ...segmentPacks(labels, j * perSegment, (j + 1) * perSegment)]),
    );
  const beta = challenges?.beta ?? hashVector([finalRoot, packChains[m]!]);
  const z = challenges?.z ?? poseidon([beta]);
  const pickedAt = labels.pick.findIndex((p) => p !== 0n);
  const b = claim?.b ?? (pickedAt < 0 ? 0n : 1n);
  const V = claim?.V ?? (pickedAt < 0 ? 0n : mod(elements[pickedAt]!.value));

  let c: GroundingCarry = {
    b,
    V,
    picked: 0n,
    running: 1n,
    acc: 0n,
    querySum: 0n,
    groundSum: 0n,
    packChain: 0n,
    beta,
    z,
  };
  const carries = [c];
  for (let j = 0; j < m; j++) {
    let { picked, running, acc, querySum, groundSum } = c;
    for (let r = j * size; r < (j + 1) * size; r++) {
      const rec = BigInt(r);
      let pickedInRecord = 0n;
      for (let e = r * perRecord; e < (r + 1) * perRecord; e++) pickedInRecord += labels.pick[e]!;
      acc = mod(acc + pickedInRecord * running);
      picked += pickedInRecord;
      for (let e = r * perRecord; e < (r + 1) * perRecord; e++) {
        const el = elements[e]!;
        if (el.query)
          querySum = mod(querySum + fieldInverse(mod(z - el.value - beta * (rec - 1n - labels.gap[e]!))));
        if (el.ground) {
          groundSum = mod(groundSum + labels.mult[e]! * fieldInverse(mod(z - el.value - beta * rec)));
          running = mod(running * (V - el.value));
        }
      }
    }
    c = { ...c, picked, running, acc, querySum, groundSum, packChain: packChains[j + 1]! };
    carries.push(c);
  }
  return { carries, labels, accInv: fieldInverse(c.acc) };
}
