// What a predicate's segment circuit carries across a segment boundary (docs/ARCHITECTURE.md "The road of a
// claim"): each predicate's carrier lives in its own folder (./<aapN>/segment.ts); the shapes two predicates
// share (nothing carried, a grant/revoke log) live here. prover/segments/witness.ts runs the carrier to build
// each segment's input; the circuit checks every value again.
import { KIND, SLOT, type EncodedRecord } from "../encoding.js";
import { WitnessError } from "../errors.js";
import { hashVector, stringToField } from "../hash.js";
import type { CircuitInput } from "../inputs.js";
import type { EncodingProfile } from "../profile.js";
import type { TraceRecord } from "../records.js";
import type { AuthorizationForgery } from "./aap1/segment-chains.js";

/**
 * What a predicate's segment circuit carries from one segment to the next, besides the trace: its state
 * commitment at each boundary (0 for none) and the circuit inputs that open it at the start of a segment.
 */
export interface SegmentCarrier {
  carry(session: CarrierSession): {
    states: bigint[];
    inputs: CircuitInput[];
    /**
     * Where the chain's verdict turns on when that is not the violating record's segment: the first record of
     * the segment that first fires (AAP-7, whose rows may lie in an earlier segment than their record).
     */
    violationFrom?: number | null;
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
export interface CarrierSession {
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
  /** Labels to certify in place of the honest ones (see LabelOverrides): none in production. */
  overrides: LabelOverrides;
}

/**
 * What a carrier certifies in place of the honest labels it derives. The circuits refuse any but the honest
 * ones, so nothing in production passes these: only the tests that show a forgery is refused do
 * (test/helpers/segment-forgery.ts).
 */
export interface LabelOverrides {
  /** AAP-5: repeat labels, one per row of the chain's m·S rows. */
  repeatLabels?: { count: bigint[]; last: bigint[] };
  /** AAP-1: chain labels, challenges or certificate weights. */
  chainForgery?: AuthorizationForgery;
}

/** AAP-3 judges each call on its own: nothing is carried. */
export const stateless: SegmentCarrier = {
  carry: ({ boundaries }) => ({ states: boundaries.map(() => 0n), inputs: boundaries.map(() => ({})) }),
};

/**
 * The grant/revoke log of one namespace so far (circuits/gadgets/segment_events.circom EventLogFrom):
 * E slots of (value, granted) in record order, and their count, committed by EventLogState.
 */
export function eventLog(namespace: string): SegmentCarrier {
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
