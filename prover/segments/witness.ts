// Turns a session's records, its on-chain fold entries and a promise's θ into the inputs of each
// segment proof of its chain (circuits/segments/*.circom): the carried states from sdk/core/segments.ts,
// each segment's rows and entries, and θ. Every value is checked again by the circuit.
import { KIND, SLOT, SLOT_COUNT, encodeTrace, type EncodedRecord } from "../../sdk/core/encoding.js";
import { mergeInputs, type CircuitInput } from "../../sdk/core/inputs.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import { paramsHashOf, type PredicateDefinition, type Verdict } from "../../sdk/core/predicates/index.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { accumulate, hashVector, stringToField } from "../../sdk/core/hash.js";
import {
  planSegments,
  segmentClaimDigest,
  type SegmentCarry,
  type SegmentPlan,
} from "../../sdk/core/segments.js";
import { WitnessError, type Checkpoint } from "../witness.js";
import { limitsChain, limitsCarryVector, type LimitsRow } from "../../sdk/core/segment-repeats.js";
import {
  authorizationChain,
  authorizationCarryVector,
  type AuthorizationForgery,
} from "../../sdk/core/segment-authorization.js";
import {
  aap2Scope,
  aap2UncoveredCalls,
  PATH_WITNESS_WIDTH,
  type Aap2Theta,
} from "../../sdk/core/predicates/aap2/definition.js";

/**
 * What a predicate's segment circuit carries from one segment to the next, besides the trace: its state
 * commitment at each boundary (0 for none) and the circuit inputs that open it at the start of a segment.
 */
interface PredicateCarrier {
  carry(session: CarrierSession): {
    states: bigint[];
    inputs: CircuitInput[];
  };
  /** Each segment's own hints, when its circuit takes some (AAP-2: covers and the named violation). */
  hints?(
    records: readonly TraceRecord[],
    theta: unknown,
    profile: EncodingProfile,
    boundaries: readonly number[],
    size: number,
  ): CircuitInput[];
}

/** What a carrier reads: the encoded session, where the segments end, and the claim's values. */
interface CarrierSession {
  encoded: readonly EncodedRecord[];
  /** 0, then each segment's end (the last is n). */
  boundaries: readonly number[];
  /** Records per segment. */
  size: number;
  /** Event slots of the segment circuit (AAP-2, AAP-4). */
  events: number;
  /** θ's circuit inputs (predicate.circuitInputs). */
  thetaInputs: CircuitInput;
  finalRoot: bigint;
  repeatLabels?: { count: bigint[]; last: bigint[] };
  chainForgery?: AuthorizationForgery;
}

/** AAP-3 judges each call on its own: nothing is carried. */
const stateless: PredicateCarrier = {
  carry: ({ boundaries }) => ({ states: boundaries.map(() => 0n), inputs: boundaries.map(() => ({})) }),
};

/**
 * The grant/revoke log of one namespace so far (circuits/gadgets/segment_events.circom EventLogFrom):
 * E slots of (value, granted) in record order, and their count, committed by EventLogState.
 */
function eventLog(namespace: string): PredicateCarrier {
  const ns = stringToField(namespace);
  return {
    carry({ encoded, boundaries, events }) {
      const states: bigint[] = [];
      const inputs: CircuitInput[] = [];
      const value = Array<bigint>(events).fill(0n);
      const granted = Array<bigint>(events).fill(0n);
      let count = 0;
      let at = 0;
      for (const boundary of boundaries) {
        for (; at < boundary; at++) {
          const slots = encoded[at]!.slots;
          const kind = slots[SLOT.kind];
          if (slots[SLOT.tool] !== ns || (kind !== KIND.grant && kind !== KIND.revoke)) continue;
          if (count === events)
            throw new WitnessError(
              `more than ${events} ${namespace} grants and revokes: the segment circuit holds ${events}`,
            );
          value[count] = slots[SLOT.target0]!;
          granted[count] = kind === KIND.grant ? 1n : 0n;
          count++;
        }
        states.push(hashVector([BigInt(count), ...value, ...granted]));
        inputs.push({
          eventCount: String(count),
          eventValue: value.map(String),
          eventGranted: granted.map(String),
        });
      }
      return { states, inputs };
    },
  };
}

/**
 * AAP-2's per-segment hints (circuits/segments/aap2_scope.circom): each row's path witness and cover, as the
 * whole-claim circuit takes them, and the segment's first violating call, if it has one: `named` = 1 and its
 * row within the segment.
 */
function scopeHints(
  records: readonly TraceRecord[],
  theta: unknown,
  profile: EncodingProfile,
  boundaries: readonly number[],
  size: number,
): CircuitInput[] {
  const t = theta as Aap2Theta;
  const all = aap2Scope.recordInputs!(records, t, profile, records.length) as {
    pathWitness: string[][];
    cover: string[];
  };
  const uncovered = aap2UncoveredCalls(records, t, profile);
  const zero = Array<string>(PATH_WITNESS_WIDTH).fill("0");
  return boundaries.slice(1).map((to, j) => {
    const from = boundaries[j]!;
    const first = uncovered.find((i) => i >= from && i < to);
    return {
      pathWitness: Array.from({ length: size }, (_, i) => all.pathWitness[from + i] ?? zero),
      cover: Array.from({ length: size }, (_, i) => all.cover[from + i] ?? "0"),
      named: first === undefined ? "0" : "1",
      violationAt: String(first === undefined ? 0 : first - from),
    };
  });
}

/**
 * AAP-5's running count and sum and its repeat argument over the session (sdk/core/segment-repeats.ts): the
 * carried state at each boundary, and each segment's labels and certificate weights.
 */
const limitsCarrier: PredicateCarrier = {
  carry({ encoded, boundaries, size, thetaInputs, finalRoot, repeatLabels }) {
    const counted = new Set((thetaInputs.countedTools as string[]).filter((t) => t !== "0"));
    const summed = new Set((thetaInputs.summedTools as string[]).filter((t) => t !== "0"));
    const m = boundaries.length - 1;
    const rows: LimitsRow[] = Array.from({ length: m * size }, (_, i) => {
      const slots = encoded[i]?.slots;
      const live = slots !== undefined && slots[SLOT.kind] === KIND.call;
      if (!live)
        return {
          live: false,
          tool: slots?.[SLOT.tool] ?? 0n,
          args: slots?.[SLOT.args] ?? 0n,
          counted: false,
          amount: 0n,
        };
      const tool = slots[SLOT.tool]!;
      const aux = slots[SLOT.aux]!;
      return {
        live,
        tool,
        args: slots[SLOT.args]!,
        counted: counted.has(String(tool)),
        amount: summed.has(String(tool)) && aux !== 0n ? aux - 1n : 0n,
      };
    });
    const chain = limitsChain(rows, size, finalRoot, repeatLabels);
    return {
      states: chain.carries.map((c) => hashVector(limitsCarryVector(c))),
      inputs: chain.carries.slice(0, m + 1).map((c, j) => ({
        runCount: String(c.count),
        runSum: String(c.sum),
        packChain: String(c.packChain),
        weightChain: String(c.weightChain),
        labelled: String(c.labelled),
        steps: String(c.steps),
        roots: String(c.roots),
        fractions: String(c.fractions),
        firsts: String(c.firsts),
        repeatBeta: String(c.beta),
        repeatZeta: String(c.zeta),
        repeatCount: chain.count.slice(j * size, (j + 1) * size).map(String),
        repeatLast: chain.last.slice(j * size, (j + 1) * size).map(String),
        repeatWeight: chain.weight.slice(j * size, (j + 1) * size).map(String),
      })),
    };
  },
};

/**
 * AAP-1's authorization chains over the session (sdk/core/segment-authorization.ts): the carried state at
 * each boundary, and each segment's chain labels and certificate weights.
 */
const authorizationCarrier: PredicateCarrier = {
  carry({ encoded, boundaries, size, thetaInputs, finalRoot, chainForgery }) {
    const m = boundaries.length - 1;
    const zero = Array<bigint>(SLOT_COUNT).fill(0n);
    const slots = Array.from({ length: m * size }, (_, i) => encoded[i]?.slots ?? zero);
    const gatedTools = (thetaInputs.gatedTools as string[]).map(BigInt);
    const accepted = (thetaInputs.authorities as string[]).map(BigInt);
    const chain = authorizationChain(
      slots,
      encoded.length,
      size,
      finalRoot,
      gatedTools,
      accepted,
      chainForgery,
    );
    const rows = (xs: readonly bigint[], j: number) => xs.slice(j * size, (j + 1) * size).map(String);
    return {
      states: chain.carries.map((c) => hashVector(authorizationCarryVector(c))),
      inputs: chain.carries.map((c, j) => ({
        packChain: String(c.packChain),
        weightChain: String(c.weightChain),
        states: String(c.states),
        handOffs: String(c.handOffs),
        roots: String(c.roots),
        fractions: String(c.fractions),
        firsts: String(c.firsts),
        chainBeta: String(c.beta),
        chainZeta: String(c.zeta),
        chainRank: rows(chain.labels.rank, j),
        chainLast: rows(chain.labels.last, j),
        chainPred: rows(chain.labels.pred, j),
        chainValidIn: rows(chain.labels.validIn, j),
        chainUsedIn: rows(chain.labels.usedIn, j),
        chainCoversIn: rows(chain.labels.coversIn, j),
        chainWeight: rows(chain.weight, j),
      })),
    };
  },
};

/** The predicates whose segment circuits exist (circuits/segments/), and what each carries. */
const CARRIERS: Record<string, PredicateCarrier> = {
  "AAP-1": authorizationCarrier,
  "AAP-2": { ...eventLog("scope"), hints: scopeHints },
  "AAP-3": stateless,
  "AAP-4": eventLog("recipient"),
  "AAP-5": limitsCarrier,
};
export const SEGMENTED_PREDICATES: readonly string[] = Object.keys(CARRIERS);

export interface SegmentInputSpec<Theta> {
  records: readonly TraceRecord[];
  /** encodeTrace(records, profile, sessionSecret), when the caller has it already (loadClaim does); else encoded here. */
  encoded?: readonly EncodedRecord[];
  profile: EncodingProfile;
  sessionSecret: bigint;
  /** The escrow's fold entries, in its order. */
  checkpoints: readonly Checkpoint[];
  predicate: PredicateDefinition<Theta>;
  theta: Theta;
  context: bigint;
  /** Segments hold 2^depth records; `entrySlots` fold entries each. */
  depth: number;
  entrySlots: number;
  /** Event slots of the whole session (AAP-2, AAP-4): the segment circuit's `events`. */
  events?: number;
  /**
   * AAP-5: repeat labels to certify instead of the honest ones, one per row of the chain's m·S rows. Only
   * tests of forged labels pass them: the circuit refuses any but the honest ones.
   */
  repeatLabels?: { count: bigint[]; last: bigint[] };
  /**
   * AAP-1: chain labels, challenges or certificate weights in place of the honest ones (tests of forgeries
   * only, as repeatLabels).
   */
  chainForgery?: AuthorizationForgery;
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
  const { records, profile, predicate, theta } = spec;
  const carrier = CARRIERS[predicate.id];
  if (!carrier)
    throw new WitnessError(
      `${predicate.id} has no segment circuit yet; only ${SEGMENTED_PREDICATES.join(", ")}`,
    );
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
    repeatLabels: spec.repeatLabels,
    chainForgery: spec.chainForgery,
  });
  const hints = carrier.hints?.(records, theta, profile, boundaries, size);
  const plans = planSegments({
    depth: spec.depth,
    leaves,
    entries: spec.checkpoints,
    finalRoot,
    firstViolation,
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
        digest: Array.from({ length: size }, (_, i) => String(row(i)?.digest ?? 0n)),
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
