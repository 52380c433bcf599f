// The AAP-4 segment circuit (circuits/segments/aap4_recipients.circom) at 8 records a segment and 4
// event slots: the recipient event log carried across segment boundaries (EventLogFrom) decides
// calls in later segments exactly as the oracle does, and a log forged at a boundary is refused; and
// EventLogFrom alone, at its exact cost, with forged carried slots, a full log and forged outputs.
import { beforeAll, describe, expect, it } from "vitest";
import { findPredicate } from "../../sdk/core/predicates/index.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { segmentInputs } from "../../prover/segments/witness.js";
import { compileTestCircuit, forge, signalValue, type TestCircuit, accepts } from "../helpers/circuit.js";
import { compileSegmentCircuit, oracleCases } from "../helpers/segment-circuits.js";

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

/** EventLogFrom(4, 3) alone. */
const EVENT_LOG_FROM_COST = 62;

/** The AAP-3 segment's chain at 8 records, plus AAP-4's per-record checks and the carried event log. */
const COST = 21061;

let c: TestCircuit;
beforeAll(async () => {
  c = await compileSegmentCircuit("aap4-segment-8", "aap4_recipients.circom", "Aap4RecipientsSegment", [
    DEPTH,
    SLOTS,
    aap4.caps.tools!,
    aap4.caps.allowlist!,
    EVENTS,
  ]);
});
const ok = (input: Record<string, unknown>) => accepts(c, input);

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
  oracleCases(() => c, inputs, cases);

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

describe("EventLogFrom, alone (4 rows, 3 slots)", () => {
  let g: TestCircuit;
  beforeAll(async () => {
    g = await compileTestCircuit("eventlogfrom-4-3", {
      template: "EventLogFrom",
      args: [4, 3],
      includes: ["circuits/gadgets/segment_events.circom"],
    });
  });
  // One event carried (a grant of 7), then this segment: a revoke of 7 at row 1, a grant of 9 at row 3.
  const base = {
    countIn: "1",
    valueIn: ["7", "0", "0"],
    grantedIn: ["1", "0", "0"],
    change: ["0", "1", "0", "1"],
    event: ["0", "7", "0", "9"],
    grant: ["0", "0", "0", "1"],
  };
  const holds = (input: Record<string, unknown>) => accepts(g, input);

  it(`costs exactly ${EVENT_LOG_FROM_COST} constraints`, () => {
    expect(g.constraints).toBe(EVENT_LOG_FROM_COST);
  });

  it("continues the carried log in record order, and counts the session's events before each row", async () => {
    const w = await g.witness(base);
    expect([0, 1, 2].map((k) => signalValue(g, w, `value[${k}]`))).toEqual([7n, 7n, 9n]);
    expect([0, 1, 2].map((k) => signalValue(g, w, `granted[${k}]`))).toEqual([1n, 0n, 1n]);
    expect([0, 1, 2, 3].map((i) => signalValue(g, w, `count[${i}]`))).toEqual([1n, 1n, 2n, 2n]);
    expect(signalValue(g, w, "countOut")).toBe(3n);
    // Row 2 sees the carried grant and the revoke at row 1; row 1 only the carried grant.
    expect([0, 1, 2].map((k) => signalValue(g, w, `before[2][${k}]`))).toEqual([1n, 1n, 0n]);
    expect([0, 1, 2].map((k) => signalValue(g, w, `before[1][${k}]`))).toEqual([1n, 0n, 0n]);
  });

  it("refuses a value or grant past the carried count, an event with no slot left, and forged outputs", async () => {
    expect(await holds({ ...base, valueIn: ["7", "5", "0"] })).toBe(false);
    expect(await holds({ ...base, grantedIn: ["1", "0", "1"] })).toBe(false);
    // Three events this segment on top of the carried one: the fourth has no slot.
    expect(await holds({ ...base, change: ["1", "1", "0", "1"], event: ["4", "7", "0", "9"] })).toBe(false);
    const w = await g.witness(base);
    for (const name of ["value[1]", "granted[2]", "countOut", "before[2][1]"])
      expect(
        g.firstUnsatisfied(forge(g, w, name, signalValue(g, w, name) + 1n)),
        name,
      ).toBeGreaterThanOrEqual(0);
  });
});
