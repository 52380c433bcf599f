// AAP-2's segment carrier: the scope grant/revoke log so far, and each segment's path witnesses, covers and
// named violation (circuits/segments/aap2_scope.circom).
import type { CircuitInput } from "../../inputs.js";
import type { EncodingProfile } from "../../profile.js";
import type { TraceRecord } from "../../records.js";
import { eventLog, type SegmentCarrier } from "../segment-carrier.js";
import { aap2RecordInputs, aap2UncoveredCalls, PATH_WITNESS_WIDTH } from "./scope-walk.js";
import type { Aap2Theta } from "./theta.js";

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
  const all = aap2RecordInputs(records, t, profile, records.length) as {
    pathWitness: string[][];
    cover: string[];
  };
  const uncovered = aap2UncoveredCalls(records, t, profile);
  const zero = Array<string>(PATH_WITNESS_WIDTH).fill("0");
  return boundaries.slice(1).map((to, j) => {
    const from = boundaries[j]!;
    const first = uncovered.find((i) => i >= from && i < to);
    const at = first === undefined ? from : first;
    return {
      pathWitness: Array.from({ length: size }, (_, i) => all.pathWitness[from + i] ?? zero),
      cover: Array.from({ length: size }, (_, i) => all.cover[from + i] ?? "0"),
      named: first === undefined ? "0" : "1",
      violationAt: String(at - from),
      violationPath: all.pathWitness[at] ?? zero,
    };
  });
}

export const aap2Segment: SegmentCarrier = { ...eventLog("scope"), hints: scopeHints };
