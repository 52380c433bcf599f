// Forged segment witnesses, for the circuit tests that show a forgery is refused
// (test/circuits/segment-limits.test.ts, test/circuits/segment-authorization.test.ts): the production spec
// plus the labels to certify in place of the honest ones, which production's SegmentInputSpec cannot carry.
import {
  segmentInputsWithLabels,
  type LabelOverrides,
  type SegmentInputs,
  type SegmentInputSpec,
} from "../../prover/segments/witness.js";

export type TestSegmentInputSpec<Theta> = SegmentInputSpec<Theta> & LabelOverrides;

/** segmentInputs, with the spec's forged labels (if any) certified instead of the honest ones. */
export function forgedSegmentInputs<Theta>(spec: TestSegmentInputSpec<Theta>): SegmentInputs {
  const { repeatLabels, chainForgery, ...honest } = spec;
  return segmentInputsWithLabels(honest, { repeatLabels, chainForgery });
}
