// Turns a session's records, its on-chain fold entries and a promise's θ into the inputs of each
// segment proof of its chain (circuits/segments/*.circom): the carried states from sdk/core/segments.ts,
// each segment's rows and entries, and θ. Every value is checked again by the circuit.
import { SLOT_COUNT, encodeTrace } from "../../sdk/core/encoding.js";
import { mergeInputs, type CircuitInput } from "../../sdk/core/inputs.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import { paramsHashOf, type Verdict } from "../../sdk/core/predicates/index.js";
import type { LabelOverrides } from "../../sdk/core/predicates/segment-carrier.js";
export type { LabelOverrides } from "../../sdk/core/predicates/segment-carrier.js";
import { accumulate } from "../../sdk/core/hash.js";
import {
  planSegments,
  segmentClaimDigest,
  type SegmentCarry,
  type SegmentPlan,
} from "../../sdk/core/segments.js";
import { WitnessError, type ClaimInputSpec } from "../witness.js";

/** A whole claim's spec (the escrow's fold entries in `checkpoints`), cut into segments instead of one shape. */
export interface SegmentInputSpec<Theta> extends Omit<ClaimInputSpec<Theta>, "shape"> {
  /** Segments hold 2^depth records; `entrySlots` fold entries each. */
  depth: number;
  entrySlots: number;
  /** Event slots of the whole session (AAP-2, AAP-4): the segment circuit's `events`. */
  events?: number;
}

export interface SegmentInputs {
  plans: SegmentPlan[];
  /** One circuit input per segment, in index order. */
  inputs: CircuitInput[];
  verdict: Verdict;
}

function carryInput(c: SegmentCarry): CircuitInput {
  return {
    inHead: String(c.head),
    inAcc: String(c.acc),
    inSum: String(c.sum),
    inChain: String(c.chain),
    alpha: String(c.alpha),
    beta: String(c.beta),
    inViolated: c.violated ? "1" : "0",
    inPending: c.pending.map((g) => g.map(String)),
  };
}

/** Every segment's input for a claim, with the oracle's verdict (the chain's terminal state follows it). */
export function segmentInputs<Theta>(spec: SegmentInputSpec<Theta>): SegmentInputs {
  return segmentInputsWithLabels(spec, {});
}

/** segmentInputs with the carriers' labels overridden (LabelOverrides): for forged witnesses in tests. */
export function segmentInputsWithLabels<Theta>(
  spec: SegmentInputSpec<Theta>,
  overrides: LabelOverrides,
): SegmentInputs {
  const { records, profile, predicate, theta } = spec;
  // Every predicate has a carrier (its definition's `segment`, sdk/core/predicates/<aapN>/segment.ts).
  const carrier = predicate.segment;
  predicate.checkProfile(theta, profile);
  const encoded = spec.encoded ?? encodeTrace(records, profile, spec.sessionSecret);
  const leaves = encoded.map((r) => r.leaf);
  const verdict = predicate.evaluate(records, theta, profile);
  const firstViolation = verdict.violated ? records.findIndex((r) => r.seq === verdict.seq) : null;
  if (firstViolation === -1)
    throw new WitnessError(`the verdict names seq ${verdict.seq}, which no record has`);
  const finalRoot = commitmentRoot(leaves);
  const size = 2 ** spec.depth;
  const boundaries = [0];
  for (let from = 0; from < records.length; from += size)
    boundaries.push(Math.min(from + size, records.length));
  const carried = carrier.carry({
    encoded,
    boundaries,
    size,
    events: spec.events ?? 0,
    thetaInputs: predicate.circuitInputs(theta),
    finalRoot,
    overrides,
  });
  const hints = carrier.hints?.(records, theta, profile, boundaries, size);
  const plans = planSegments({
    depth: spec.depth,
    leaves,
    entries: spec.checkpoints,
    finalRoot,
    firstViolation: carried.violationFrom !== undefined ? carried.violationFrom : firstViolation,
    entrySlots: spec.entrySlots,
    predicateStates: carried.states,
  });
  const empty = Array<string>(SLOT_COUNT).fill("0");
  const claim = {
    context: spec.context,
    finalRoot,
    n: records.length,
    checkpointAcc: accumulate(spec.checkpoints),
    paramsHash: paramsHashOf(predicate, theta),
  };
  const common = {
    claimDigest: String(segmentClaimDigest(claim)),
    context: String(claim.context),
    finalRoot: String(claim.finalRoot),
    n: String(claim.n),
    checkpointAcc: String(claim.checkpointAcc),
    paramsHash: String(claim.paramsHash),
  };
  const thetaInputs = predicate.circuitInputs(theta);
  const inputs = plans.map((plan) => {
    const row = (i: number) => encoded[plan.from + i];
    const cp = Array.from({ length: spec.entrySlots }, (_, k) => plan.entries[k]);
    return mergeInputs(
      common,
      {
        index: String(plan.index),
        stateIn: String(plan.stateIn),
        stateOut: String(plan.stateOut),
        slots: Array.from({ length: size }, (_, i) => row(i)?.slots.map(String) ?? empty),
        // A circuit that reads observations recomputes each row's digest from the status, observed values
        // and content its carrier gives (sdk/core/predicates/aap6/segment.ts), so takes no digest.
        ...(predicate.readsObservations === true
          ? {}
          : { digest: Array.from({ length: size }, (_, i) => String(row(i)?.digest ?? 0n)) }),
        cpN: cp.map((c) => String(c?.n ?? 0)),
        cpHead: cp.map((c) => String(c?.root ?? 0n)),
        cpActive: cp.map((c) => (c ? "1" : "0")),
        cpHits: plan.hits.map((m) => [String(m & 1), String(m >> 1)]),
      },
      carryInput(plan.carryIn),
      carried.inputs[plan.index],
      hints?.[plan.index] ?? {},
      thetaInputs,
    );
  });
  return { plans, inputs, verdict };
}
