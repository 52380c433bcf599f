// The AAP-4 segment circuit (circuits/segments/aap4_recipients.circom) at 8 records a segment and 4
// event slots: the recipient event log carried across segment boundaries (EventLogFrom) decides
// calls in later segments exactly as the oracle does, and a log forged at a boundary is refused.
import { SEGMENT_PUBLIC_INPUTS } from "../../sdk/core/claim.js";
import { beforeAll, describe, expect, it } from "vitest";
import { findPredicate } from "../../sdk/core/predicates/index.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { segmentInputs } from "../../prover/segments/witness.js";
import { compileTestCircuit, type TestCircuit } from "../helpers/circuit.js";

const DEPTH = 3;
const SLOTS = checkpointSlots(2 ** DEPTH);
const EVENTS = 4;
const aap4 = findPredicate("AAP-4")!;
const theta = aap4.parseTheta({ outboundTools: ["send_email"], allowlist: ["alice@a.example"] });
const profile = { version: 1, tools: { send_email: { target: "to" } } } as EncodingProfile;

/** n records: emails to alice, with the events and calls given at their positions. */
function trace(n: number, at: Record<number, Partial<TraceRecord> & { kind: TraceRecord["kind"] }>) {
  return Array.from({ length: n }, (_, seq): TraceRecord => {
    const r = at[seq];
    if (r?.kind === "grant" || r?.kind === "revoke")
      return { seq, ts: seq, namespace: "recipient", value: "bob@b.example", ...r } as TraceRecord;
    const to = (r as { args?: { to: string } } | undefined)?.args?.to ?? "alice@a.example";
    return { kind: "call", seq, ts: seq, tool: "send_email", args: { to } };
  });
}
const toBob = { kind: "call" as const, args: { to: "bob@b.example" } };

const inputs = (records: TraceRecord[]) =>
  segmentInputs({
    records,
    profile,
    sessionSecret: 5n,
    checkpoints: [],
    predicate: aap4,
    theta,
    context: 1n,
    depth: DEPTH,
    entrySlots: SLOTS,
    events: EVENTS,
  });

/** The AAP-3 segment's chain at 8 records, plus AAP-4's per-record checks and the carried event log. */
const COST = 21061;

let c: TestCircuit;
beforeAll(async () => {
  c = await compileTestCircuit("aap4-segment-8", {
    template: "Aap4RecipientsSegment",
    args: [DEPTH, SLOTS, aap4.caps.tools!, aap4.caps.allowlist!, EVENTS],
    includes: ["circuits/segments/aap4_recipients.circom"],
    publicSignals: [...SEGMENT_PUBLIC_INPUTS],
  });
});
const ok = async (input: Record<string, unknown>) => {
  try {
    return c.firstUnsatisfied(await c.witness(input)) === -1;
  } catch {
    return false;
  }
};

describe("AAP-4 segments: the recipient log crosses boundaries", () => {
  it(`costs exactly ${COST} constraints at 8 records a segment and ${EVENTS} event slots`, () => {
    expect(c.constraints).toBe(COST);
  });

  const cases: [string, TraceRecord[], boolean][] = [
    [
      "a grant in segment 0 covers a call in segment 2",
      trace(20, { 3: { kind: "grant" }, 18: toBob }),
      false,
    ],
    ["a call before the grant violates", trace(20, { 2: toBob, 12: { kind: "grant" } }), true],
    [
      "a revoke in segment 1 ends a grant from segment 0",
      trace(20, { 1: { kind: "grant" }, 4: toBob, 9: { kind: "revoke" }, 19: toBob }),
      true,
    ],
    [
      "a re-grant after the revoke covers again",
      trace(24, { 1: { kind: "grant" }, 9: { kind: "revoke" }, 15: { kind: "grant" }, 23: toBob }),
      false,
    ],
  ];
  for (const [what, records, violated] of cases) {
    it(`${what}: ${violated ? "violated" : "satisfied"}, as the oracle says`, async () => {
      const { inputs: all, plans, verdict } = inputs(records);
      expect(verdict.violated).toBe(violated);
      expect(plans.at(-1)!.stateOut).toBe(violated ? 2n : 1n);
      for (const input of all) expect(await ok(input)).toBe(true);
      const lie = { ...all.at(-1)!, stateOut: violated ? "1" : "2" };
      expect(await ok(lie)).toBe(false);
    });
  }

  it("refuses a carried log with the revoke dropped", async () => {
    const records = trace(20, { 1: { kind: "grant" }, 9: { kind: "revoke" }, 19: toBob });
    const { inputs: all } = inputs(records);
    const last = all[2]!;
    expect(last.eventCount).toBe("2");
    // Forget the revoke: count 1, slot 1 emptied. stateIn no longer opens.
    const value = [...(last.eventValue as string[])];
    const granted = [...(last.eventGranted as string[])];
    value[1] = "0";
    granted[1] = "0";
    expect(
      await ok({ ...last, eventCount: "1", eventValue: value, eventGranted: granted, stateOut: "1" }),
    ).toBe(false);
    // A value past the count is refused outright, whatever stateIn says.
    expect(await ok({ ...last, eventCount: "1" })).toBe(false);
  });

  it("has no witness for more events than its slots", () => {
    const many = trace(20, {
      1: { kind: "grant" },
      3: { kind: "revoke" },
      5: { kind: "grant" },
      9: { kind: "revoke" },
      11: { kind: "grant" },
    });
    expect(() => inputs(many)).toThrow(/more than 4 recipient grants and revokes/);
  });
});
