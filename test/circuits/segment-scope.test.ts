// The AAP-2 segment circuit (circuits/segments/aap2_scope.circom) at 8 records a segment and 4 event slots:
// the scope log carried across boundaries decides later segments' calls as the oracle does, each segment's
// `named` flag is fixed by its rows (no cover for a violating call, no violation to name in a clean segment,
// none past n), and a log forged at a boundary is refused.
import { beforeAll, describe, expect, it } from "vitest";
import { aap2Scope } from "../../sdk/core/predicates/aap2/definition.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { ROOT_PREFIX_HASH } from "../../sdk/core/paths.js";
import { segmentInputs } from "../../prover/segments/witness.js";
import { type TestCircuit, accepts } from "../helpers/circuit.js";
import { compileSegmentCircuit, oracleCases } from "../helpers/segment-circuits.js";

const DEPTH = 3;
const SLOTS = checkpointSlots(2 ** DEPTH);
const EVENTS = 4;
const theta = aap2Scope.parseTheta({ scopedTools: ["read_file"], allowPrefixes: ["/data"] });
const profile = { version: 1, tools: { read_file: { path: "path" }, search: {} } } as EncodingProfile;

/** n records: reads under /data, with the events and calls given at their positions. */
function trace(
  n: number,
  at: Record<number, { kind: "grant" | "revoke"; value: string } | { path: string | null }>,
) {
  return Array.from({ length: n }, (_, seq): TraceRecord => {
    const r = at[seq];
    if (r && "kind" in r) return { seq, ts: seq, namespace: "scope", ...r } as TraceRecord;
    const path = r ? r.path : `/data/f${seq}`;
    return { kind: "call", seq, ts: seq, tool: "read_file", args: { path } };
  });
}
const grantTmp = { kind: "grant" as const, value: "/tmp" };
const revokeTmp = { kind: "revoke" as const, value: "/tmp" };
const readTmp = { path: "/tmp/x/y" };

const inputs = (records: TraceRecord[]) =>
  segmentInputs({
    records,
    profile,
    sessionSecret: 7n,
    checkpoints: [],
    predicate: aap2Scope,
    theta,
    context: 3n,
    depth: DEPTH,
    entrySlots: SLOTS,
    events: EVENTS,
  });

/** The segment chain at 8 records, plus AAP-2's covers, the named violation and the carried scope log. */
const COST = 22695; // 22,917 before the four-input path digest (issue 38)

let c: TestCircuit;
beforeAll(async () => {
  c = await compileSegmentCircuit("aap2-segment-8", "aap2_scope.circom", "Aap2ScopeSegment", [
    DEPTH,
    SLOTS,
    aap2Scope.caps.tools!,
    aap2Scope.caps.prefixes!,
    EVENTS,
  ]);
});
const ok = (input: Record<string, unknown>) => accepts(c, input);

describe("AAP-2 segments: the scope log crosses boundaries", () => {
  it(`costs exactly ${COST} constraints at 8 records a segment and ${EVENTS} event slots`, () => {
    expect(c.constraints).toBe(COST);
  });

  const cases: [string, TraceRecord[], boolean][] = [
    ["a grant in segment 0 covers a read in segment 2", trace(20, { 3: grantTmp, 18: readTmp }), false],
    ["a read before the grant violates", trace(20, { 2: readTmp, 12: grantTmp }), true],
    [
      "a revoke in segment 1 ends a grant from segment 0",
      trace(20, { 1: grantTmp, 4: readTmp, 9: revokeTmp, 19: readTmp }),
      true,
    ],
    ["a read with no path violates, fail-closed", trace(20, { 17: { path: null } }), true],
    // One segment shorter than S: its rows past n still take hints (a bug the review found).
    ["a session shorter than one segment", trace(5, { 1: grantTmp, 3: readTmp }), false],
    ["a session shorter than one segment, out of scope", trace(5, { 3: readTmp }), true],
    [
      "a re-grant after the revoke covers again",
      trace(24, { 1: grantTmp, 9: revokeTmp, 15: grantTmp, 23: readTmp }),
      false,
    ],
  ];
  oracleCases(() => c, inputs, cases);

  it("a violating segment cannot say it is clean: no cover of the call works", async () => {
    // Segment 2 reads /tmp/x/y (row 3 of it) after the grant was revoked in segment 1.
    const { inputs: all, plans } = inputs(trace(20, { 1: grantTmp, 9: revokeTmp, 19: readTmp }));
    const seg = all[2]!;
    expect([seg.named, seg.violationAt]).toEqual(["1", "3"]);
    const ancestors = [String(ROOT_PREFIX_HASH), ...(seg.pathWitness as string[][])[3]!];
    // named = 0 and the verdict the chain would have without it; the call covered by each ancestor in turn.
    for (const cover of [...ancestors, "0", "12345"]) {
      const covers = [...(seg.cover as string[])];
      covers[3] = cover;
      expect(await ok({ ...seg, named: "0", cover: covers, stateOut: String(plans[2]!.stateOut - 1n) })).toBe(
        false,
      );
    }
  });

  it("a clean segment has no violation to name, at any row, nor past n", async () => {
    const records = trace(20, { 3: grantTmp, 18: readTmp });
    const { inputs: all } = inputs(records);
    const last = all[2]!;
    expect(last.named).toBe("0");
    // The verdict "violated" by naming any row of the last segment, 0..7 (rows 4..7 are past n = 20).
    for (let row = 0; row < 8; row++)
      expect(await ok({ ...last, named: "1", violationAt: String(row), stateOut: "2" })).toBe(false);
    // A row past n dressed as a read outside the scope: its slots are the prover's, but it is not active.
    const bad = inputs(trace(20, { 17: readTmp })).inputs[2]!;
    const slots = [...(last.slots as string[][])];
    slots[5] = (bad.slots as string[][])[1]!;
    const paths = [...(last.pathWitness as string[][])];
    paths[5] = (bad.pathWitness as string[][])[1]!;
    expect(
      await ok({
        ...last,
        slots,
        pathWitness: paths,
        named: "1",
        violationAt: "5",
        violationPath: paths[5],
        stateOut: "2",
      }),
    ).toBe(false);
  });

  it("refuses a carried log with the revoke dropped", async () => {
    const { inputs: all } = inputs(trace(20, { 1: grantTmp, 9: revokeTmp, 19: readTmp }));
    const last = all[2]!;
    expect(last.eventCount).toBe("2");
    const value = [...(last.eventValue as string[])];
    const granted = [...(last.eventGranted as string[])];
    value[1] = "0";
    granted[1] = "0";
    // The read (row 3) covered by /tmp, its depth-1 ancestor, as it would be without the revoke.
    const covers = [...(last.cover as string[])];
    covers[3] = (last.pathWitness as string[][])[3]![1]!;
    // Forgetting the revoke would cover the read at 19: the carried state no longer opens stateIn.
    expect(
      await ok({
        ...last,
        eventCount: "1",
        eventValue: value,
        eventGranted: granted,
        cover: covers,
        named: "0",
        violationAt: "0",
        stateOut: "1",
      }),
    ).toBe(false);
  });

  it("has no witness for more scope events than its slots", () => {
    const many = trace(20, { 1: grantTmp, 3: revokeTmp, 5: grantTmp, 9: revokeTmp, 11: grantTmp });
    expect(() => inputs(many)).toThrow(/more than 4 scope grants and revokes/);
  });
});
