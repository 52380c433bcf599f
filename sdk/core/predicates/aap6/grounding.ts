// The prover's hints for StrictGrounding (circuits/gadgets/grounding.circom): the claimed verdict
// as a pick (the ungrounded query it names, or none), each query's pointer to the earlier record that
// grounds it (gap), how many queries each ground row serves (mult), and the inverse that proves the
// picked query ungrounded. Mirrors the gadget's label packing and its challenges exactly; the circuit
// checks all of it. The packing and challenge helpers are exported so tests can certify lies.
import { InputError } from "../../errors.js";
import { FIELD_MODULUS, hashVector, poseidon } from "../../hash.js";
import { countBits, fieldInverse, packLabels } from "../../multiset.js";

const P = FIELD_MODULUS;
const mod = (x: bigint) => ((x % P) + P) % P;

/** One observed value: element e is value e % O of record e / O (O values per record). */
export interface GroundingElement {
  value: bigint;
  /** The value grounds queries of later records. */
  ground: boolean;
  /** The value must be grounded by an earlier record. */
  query: boolean;
}

export interface GroundingLabels {
  /** 1 on the ungrounded query the prover names (violation), all 0 otherwise. */
  pick: bigint[];
  /** Per query: its grounding record is rec − 1 − gap. D = countBits(N) bits on every element. */
  gap: bigint[];
  /** Per ground row: how many queries point at its (value, record). countBits(M) bits (at most M − 1 queries point at one row). */
  mult: bigint[];
}

export interface GroundingHints extends GroundingLabels {
  /** 1 / ∏ (V − value[g]) over the grounds before the picked query's record; 0 when nothing is picked. */
  accInv: bigint;
  /** The gadget's challenges, for tests. */
  beta: bigint;
  z: bigint;
}

const recordOf = (e: number, perRecord: number) => Math.floor(e / perRecord);

/** The number of records, checking the shape the gadget compiles for (N >= 2 records of O values). */
function recordCount(elements: readonly unknown[], perRecord: number): number {
  if (!Number.isInteger(perRecord) || perRecord < 1 || elements.length % perRecord !== 0)
    throw new InputError(
      `strict grounding: ${elements.length} elements do not split into records of ${perRecord} values`,
    );
  const records = elements.length / perRecord;
  if (records < 2) throw new InputError(`strict grounding needs at least 2 records, got ${records}`);
  return records;
}

/** Bits of a gap (D) and of a multiplicity (Bm) for N records of O values, as the gadget sizes them. */
export function groundingLabelBits(
  records: number,
  perRecord: number,
): { gapBits: number; multBits: number } {
  return { gapBits: countBits(records), multBits: countBits(records * perRecord) };
}

/** The earliest ground element of a strictly earlier record with e's value, or -1. */
function earliestGround(elements: readonly GroundingElement[], perRecord: number, e: number): number {
  const limit = recordOf(e, perRecord) * perRecord;
  for (let g = 0; g < limit; g++)
    if (elements[g]!.ground && mod(elements[g]!.value) === mod(elements[e]!.value)) return g;
  return -1;
}

/** The model: the first query with no equal ground in a strictly earlier record, or null. */
export function groundingVerdict(elements: readonly GroundingElement[], perRecord: number): number | null {
  recordCount(elements, perRecord);
  const found = elements.findIndex((el, e) => el.query && earliestGround(elements, perRecord, e) < 0);
  return found < 0 ? null : found;
}

/**
 * The honest labels. A violated input picks the first ungrounded query (or `opts.pick`, which must be an
 * ungrounded query), with gap and mult 0; a satisfied one points each query at its earliest ground.
 */
export function groundingLabels(
  elements: readonly GroundingElement[],
  perRecord: number,
  opts: { pick?: number } = {},
): GroundingLabels {
  const M = elements.length;
  const pick = Array<bigint>(M).fill(0n);
  const gap = Array<bigint>(M).fill(0n);
  const mult = Array<bigint>(M).fill(0n);
  const first = groundingVerdict(elements, perRecord);
  if (first !== null) {
    const q = opts.pick ?? first;
    if (!elements[q]?.query || earliestGround(elements, perRecord, q) >= 0)
      throw new InputError(`strict grounding: element ${q} is not an ungrounded query`);
    pick[q] = 1n;
    return { pick, gap, mult };
  }
  elements.forEach((el, e) => {
    if (!el.query) return;
    const g = earliestGround(elements, perRecord, e);
    gap[e] = BigInt(recordOf(e, perRecord) - 1 - recordOf(g, perRecord));
    mult[g]! += 1n;
  });
  return { pick, gap, mult };
}

/** The gadget's first challenge: the seed and the packed labels gap + 2^D·mult, D + Bm bits each. */
export function groundingBeta(
  labels: { gap: readonly bigint[]; mult: readonly bigint[] },
  records: number,
  seed: bigint,
): bigint {
  const { gapBits, multBits } = groundingLabelBits(records, labels.gap.length / records);
  const packed = labels.gap.map((g, e) => g + (labels.mult[e]! << BigInt(gapBits)));
  // Reduced as the circuit's packing is: only a lie out of range (which the range checks refuse) exceeds r.
  return hashVector([seed, ...packLabels(packed, gapBits + multBits).map(mod)]);
}

/** The gadget's test point. */
export function groundingZ(beta: bigint): bigint {
  return poseidon([beta]);
}

/** The product acc·accInv must make b: over the grounds of records before the picked query's. */
export function groundingAcc(
  elements: readonly GroundingElement[],
  perRecord: number,
  pick: readonly bigint[],
): bigint {
  const q = pick.findIndex((p) => p !== 0n);
  if (q < 0) return 0n;
  const V = elements[q]!.value;
  let acc = 1n;
  for (let g = 0; g < recordOf(q, perRecord) * perRecord; g++)
    if (elements[g]!.ground) acc = mod(acc * (V - elements[g]!.value));
  return acc;
}

/**
 * The two sides of the lookup identity at (beta, z), as the gadget sums them with b = 0:
 * Σ_query 1/(z − value − β·(rec − 1 − gap)) and Σ_ground mult/(z − value − β·rec).
 */
export function groundingSums(
  elements: readonly GroundingElement[],
  perRecord: number,
  labels: { gap: readonly bigint[]; mult: readonly bigint[] },
  beta: bigint,
  z: bigint,
): { queries: bigint; grounds: bigint } {
  let queries = 0n;
  let grounds = 0n;
  elements.forEach((el, e) => {
    const rec = BigInt(recordOf(e, perRecord));
    if (el.query) queries += fieldInverse(mod(z - el.value - beta * (rec - 1n - labels.gap[e]!)));
    if (el.ground) grounds += labels.mult[e]! * fieldInverse(mod(z - el.value - beta * rec));
  });
  return { queries: mod(queries), grounds: mod(grounds) };
}

/** The challenges and the inverse for the given labels, honest or not: tests certify lies with it. */
export function certifyGrounding(
  elements: readonly GroundingElement[],
  perRecord: number,
  labels: GroundingLabels,
  seed: bigint,
): GroundingHints {
  const records = recordCount(elements, perRecord);
  const beta = groundingBeta(labels, records, seed);
  const accInv = fieldInverse(groundingAcc(elements, perRecord, labels.pick));
  return { ...labels, accInv, beta, z: groundingZ(beta) };
}

/** Hints for a gadget of elements.length = N·O elements; `seed` is what the gadget hashes first. */
export function groundingHints(
  elements: readonly GroundingElement[],
  perRecord: number,
  seed: bigint,
  opts: { pick?: number } = {},
): GroundingHints {
  return certifyGrounding(elements, perRecord, groundingLabels(elements, perRecord, opts), seed);
}
