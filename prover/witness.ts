// Turns a session's records, its on-chain checkpoints and a promise's θ into the
// private and public inputs of a predicate circuit. Every value here is checked
// again by the circuit; this file only lays them out.
import { type EncodedRecord, SLOT_COUNT, encodeTrace } from "../sdk/core/encoding.js";
import { paramsHashOf, type PredicateDefinition, type Verdict } from "../sdk/core/predicates/index.js";
import type { EncodingProfile } from "../sdk/core/profile.js";
import type { TraceRecord } from "../sdk/core/records.js";
import { accumulate } from "../sdk/core/hash.js";
import { commitmentRoot } from "../sdk/core/merkle.js";
import { mergeInputs, type CircuitInput } from "../sdk/core/inputs.js";
import { WitnessError } from "../sdk/core/errors.js";

export interface TraceShape {
  /** Capacity is 2^depth records. */
  depth: number;
  /** Checkpoint slots in the circuit. */
  checkpoints: number;
  /** Grant/revoke slots of the circuit's event log (AAP-2, AAP-4), when it has one. */
  events?: number;
}

/** A circuit instance's shape, from its params in the instance table or the manifest. */
export function shapeOf(params: Record<string, unknown>): TraceShape {
  const shape: TraceShape = { depth: Number(params.depth), checkpoints: Number(params.checkpoints) };
  if (params.events !== undefined) shape.events = Number(params.events);
  return shape;
}

/**
 * Why a circuit of this shape cannot hold the trace, or null when it can. Each limit is part of the
 * circuit's capacity: past it there is no witness, so the prover says so before trying.
 */
export function capacityProblem<Theta>(
  predicate: PredicateDefinition<Theta>,
  records: readonly TraceRecord[],
  checkpoints: number,
  shape: TraceShape,
): string | null {
  const capacity = 2 ** shape.depth;
  if (records.length > capacity)
    return `${records.length} records exceed this circuit's capacity of ${capacity}`;
  if (checkpoints > shape.checkpoints)
    return `${checkpoints} checkpoints exceed this circuit's ${shape.checkpoints}`;
  if (shape.events !== undefined && predicate.eventCount) {
    const { count, what } = predicate.eventCount(records);
    if (count > shape.events) return `${count} ${what} exceed this circuit's ${shape.events} event slots`;
  }
  return null;
}

/** An entry of the session's on-chain checkpoint fold: a checkpoint or a user-posted receipt. */
export interface Checkpoint {
  n: number;
  /** The chain head of the first n records (the escrow's `root` argument). */
  root: bigint;
}

/** How many entries may hit one row (the circuit's two multiplicity bits, CheckpointHeads). */
export const MAX_HITS_PER_ROW = 3;

export { WitnessError } from "../sdk/core/errors.js";

export type { CircuitInput };

function traceInput(
  records: readonly EncodedRecord[],
  checkpoints: readonly Checkpoint[],
  shape: TraceShape,
  readsObservations = false,
): CircuitInput {
  const capacity = 2 ** shape.depth;
  if (records.length > capacity) {
    throw new WitnessError(`${records.length} records exceed this circuit's capacity of ${capacity}`);
  }
  if (checkpoints.length > shape.checkpoints) {
    throw new WitnessError(`${checkpoints.length} checkpoints exceed this circuit's ${shape.checkpoints}`);
  }
  const empty = Array<string>(SLOT_COUNT).fill("0");
  const slots = Array.from({ length: capacity }, (_, i) => records[i]?.slots.map(String) ?? empty);
  // A circuit that reads observations recomputes each row's digest: its predicate's witnessHints give
  // what the digest is made of (status, observations, content), so the digest itself is not an input.
  const digestInputs: CircuitInput = readsObservations
    ? {}
    : { digest: Array.from({ length: capacity }, (_, i) => String(records[i]?.digest ?? 0n)) };
  // The lookup's multiplicities: how many entries name each row (the circuit checks them).
  const hits = Array<number>(capacity).fill(0);
  for (const [i, c] of checkpoints.entries()) {
    if (!Number.isInteger(c.n) || c.n < 1 || c.n > records.length)
      throw new WitnessError(`checkpoint ${i} covers ${c.n} records; the trace holds ${records.length}`);
    if (++hits[c.n - 1]! > MAX_HITS_PER_ROW)
      throw new WitnessError(`more than ${MAX_HITS_PER_ROW} checkpoints name the prefix of ${c.n} records`);
  }
  // Unused entries fold nothing and weigh nothing in the lookup.
  const cp = Array.from({ length: shape.checkpoints }, (_, i) => checkpoints[i]);
  return {
    n: String(records.length),
    finalRoot: String(commitmentRoot(records.map((r) => r.leaf))),
    checkpointAcc: String(accumulate(checkpoints)),
    slots,
    ...digestInputs,
    cpN: cp.map((c) => String(c?.n ?? 0)),
    cpHead: cp.map((c) => String(c?.root ?? 0n)),
    cpActive: cp.map((c) => (c ? "1" : "0")),
    cpHits: hits.map((m) => [String(m & 1), String(m >> 1)]),
  };
}

/**
 * Everything but the context, the θ hash and the outcome: the trace, θ's private part
 * and the predicate's hints, laid out for a circuit of `shape`.
 */
export function predicateInput<Theta>(
  predicate: PredicateDefinition<Theta>,
  theta: Theta,
  records: readonly EncodedRecord[],
  checkpoints: readonly Checkpoint[],
  shape: TraceShape,
): CircuitInput {
  const trace = traceInput(records, checkpoints, shape, predicate.readsObservations === true);
  const capacity = 2 ** shape.depth;
  const empty = Array<bigint>(SLOT_COUNT).fill(0n);
  const hints = predicate.witnessHints?.(
    {
      slots: Array.from({ length: capacity }, (_, i) => records[i]?.slots ?? empty),
      n: records.length,
      finalRoot: BigInt(trace.finalRoot as string),
      records,
    },
    theta,
  );
  return mergeInputs(trace, predicate.circuitInputs(theta), hints);
}

export interface ClaimInputSpec<Theta> {
  records: readonly TraceRecord[];
  /** encodeTrace(records, profile, sessionSecret), when the caller has it already (loadClaim does); else encoded here. */
  encoded?: readonly EncodedRecord[];
  profile: EncodingProfile;
  sessionSecret: bigint;
  /** The on-chain checkpoints, in order. */
  checkpoints: readonly Checkpoint[];
  predicate: PredicateDefinition<Theta>;
  theta: Theta;
  context: bigint;
  shape: TraceShape;
}

/**
 * The full input of a predicate circuit, with the outcome set to the TS oracle's
 * verdict: the circuit refuses any other (it recomputes it, or for AAP-2 checks the hints that show it).
 */
export function claimInput<Theta>(spec: ClaimInputSpec<Theta>): { input: CircuitInput; verdict: Verdict } {
  const { records, profile, predicate, theta } = spec;
  predicate.checkProfile(theta, profile);
  const problem = capacityProblem(predicate, records, spec.checkpoints.length, spec.shape);
  if (problem) throw new WitnessError(problem);
  const encoded = spec.encoded ?? encodeTrace(records, profile, spec.sessionSecret);
  const verdict = predicate.evaluate(records, theta, profile);
  const input = mergeInputs(
    {
      context: String(spec.context),
      paramsHash: String(paramsHashOf(predicate, theta)),
      outcome: verdict.violated ? "1" : "0",
    },
    predicateInput(predicate, theta, encoded, spec.checkpoints, spec.shape),
    predicate.recordInputs?.(records, theta, profile, 2 ** spec.shape.depth),
  );
  return { input, verdict };
}
