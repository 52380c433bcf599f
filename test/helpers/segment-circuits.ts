// What the predicate segment-circuit tests share (test/circuits/segment-{events,scope,limits}.test.ts): a
// predicate's segment circuit compiled at a test size with the segment public inputs, and the check that
// every segment of an honest chain is accepted, its verdict is the oracle's, and the other verdict is not.
import { expect, it } from "vitest";
import { SEGMENT_PUBLIC_INPUTS } from "../../sdk/core/claim.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { SegmentInputs } from "../../prover/segments/witness.js";
import { accepts, compileTestCircuit, type TestCircuit } from "./circuit.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { RULE_ENTRIES, RULE_FACTS, RULE_SET } from "../../sdk/core/rules/rule.js";

/** circuits/segments/<file>'s `template`, compiled with `args` under `name`. */
export function compileSegmentCircuit(
  name: string,
  file: string,
  template: string,
  args: number[],
): Promise<TestCircuit> {
  return compileTestCircuit(name, {
    template,
    args,
    includes: [`circuits/segments/${file}`],
    publicSignals: [...SEGMENT_PUBLIC_INPUTS],
  });
}

/**
 * One test per case: the oracle's verdict is the one expected, every segment of the honest chain is accepted,
 * the chain ends in that verdict, and its last segment with the other verdict is refused.
 */
export function oracleCases(
  circuit: () => TestCircuit,
  inputs: (records: TraceRecord[]) => SegmentInputs,
  cases: [string, TraceRecord[], boolean][],
): void {
  for (const [what, records, violated] of cases) {
    it(`${what}: ${violated ? "violated" : "satisfied"}, as the oracle says`, async () => {
      const { inputs: all, plans, verdict } = inputs(records);
      expect(verdict.violated).toBe(violated);
      expect(plans.at(-1)!.stateOut).toBe(violated ? 2n : 1n);
      for (const input of all) expect(await accepts(circuit(), input)).toBe(true);
      const lie = { ...all.at(-1)!, stateOut: violated ? "1" : "2" };
      expect(await accepts(circuit(), lie)).toBe(false);
    });
  }
}

/** AAP-7's segment circuit at 8 records a segment (aap7_seg8's shape), as the AAP-7 segment tests compile it. */
export function compileAap7Segment8(): Promise<TestCircuit> {
  return compileSegmentCircuit("aap7-segment-8", "aap7_rule.circom", "Aap7RuleSegment", [
    3,
    checkpointSlots(8),
    RULE_ENTRIES,
    RULE_FACTS,
    RULE_SET,
  ]);
}
