// Independent review of the row stream in AAP-7 segments (issue 37, circuits/gadgets/record_rows.circom RowStream in
// circuits/segments/aap7_rule.circom). Two checks the commit's own tests leave out:
//  1. the two fixtures that type many ids (rows past a segment's 16 slots), which docs/PREDICATES.md and
//     docs/SOUNDNESS.md say a chain of aap7_seg8 segments proves, while test/circuits/segment-rule.test.ts still
//     filters them out;
//  2. each of the eight new carried values (rowsP … rowsEnded, register), changed by one at a boundary where a run
//     is open, no longer opens stateIn (segment-rule.test.ts changes only the keyed state's nine);
//  3. one user turn whose 41 rows span three segments, the middle one all continuation rows (openIn = openOut = 1,
//     no run ending in it): the padded chain gives the oracle's verdict.
// Run: ZKVAI_FULL=1 npx vitest run test/circuits/row-stream-review.test.ts
import { beforeAll, describe, expect, it } from "vitest";
import { aap7Rule } from "../../sdk/core/predicates/aap7/definition.js";
import { withRowPads } from "../../sdk/core/predicates/aap7/pads.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { segmentInputs } from "../../prover/segments/witness.js";
import { tauRows } from "../../sdk/core/rules/tau-rows.js";
import { predicateFixtures, type PredicateFixture } from "../helpers/fixtures.js";
import { type TestCircuit, accepts } from "../helpers/circuit.js";
import { compileAap7Segment8, oracleCases } from "../helpers/segment-circuits.js";

const DEPTH = 3;
const SIZE = 2 ** DEPTH;
const SLOTS = checkpointSlots(SIZE);
const fixtures = predicateFixtures("AAP-7").filter((f) => f.file.startsWith("aap-7/many-ids-typed-"));

const closed = (f: PredicateFixture): TraceRecord[] =>
  withRowPads(
    f.records.map((r, seq) => ({ ...r, seq, ts: 1_700_000_000_000 + seq * 1000 }) as TraceRecord),
    f.profile,
  );
const inputsOf = (f: PredicateFixture) => (records: TraceRecord[]) =>
  segmentInputs({
    records,
    profile: f.profile,
    sessionSecret: 11n,
    checkpoints: [],
    predicate: aap7Rule,
    theta: aap7Rule.parseTheta(f.theta),
    context: 5n,
    depth: DEPTH,
    entrySlots: SLOTS,
  });

let c: TestCircuit;
beforeAll(async () => {
  c = await compileAap7Segment8();
}, 1_200_000);

describe("review: the row stream in AAP-7 segments", () => {
  it("has the two many-ids fixtures", () => {
    expect(fixtures.length).toBe(2);
  });
  describe.each(fixtures.map((f) => [f.file, f] as const))("%s through aap7_seg8", (_name, f) => {
    oracleCases(() => c, inputsOf(f), [["closed with its row pads", closed(f), f.expected.violated]]);
  });

  it("every new carried value changed by one at an open-run boundary no longer opens stateIn", async () => {
    const f = fixtures[0]!;
    const { inputs } = inputsOf(f)(closed(f));
    const at = inputs.findIndex((x, j) => j > 0 && x.runOpen === "1");
    expect(at).toBeGreaterThan(0);
    const seg = inputs[at]!;
    expect(await accepts(c, seg)).toBe(true);
    for (const key of [
      "rowsP",
      "rowsQ",
      "runChain",
      "runTool",
      "runOk",
      "runOpen",
      "rowsEnded",
      "register",
    ]) {
      const changed = { ...seg, [key]: String(BigInt(seg[key] as string) + 1n) };
      expect(await accepts(c, changed), key).toBe(false);
    }
  });

  it("a record whose rows fill a whole middle segment: the padded chain proves the oracle's verdict", async () => {
    const f = predicateFixtures("AAP-7").find((x) => x.file === "aap-7/user-id-only-from-agent.json")!;
    const text = Array.from({ length: 40 }, (_, i) => `mei_kovacs_${8000 + i}`).join(" ");
    const turn = {
      kind: "call",
      seq: 0,
      ts: 0,
      tool: "tau.user",
      args: {},
      result: text,
    } as unknown as TraceRecord;
    expect(tauRows(turn, "tau_airline").length).toBe(41);
    const records = withRowPads(
      [turn, ...f.records].map(
        (r, seq) => ({ ...r, seq, ts: 1_700_000_000_000 + seq * 1000 }) as TraceRecord,
      ),
      f.profile,
    );
    const { inputs, verdict } = inputsOf(f)(records);
    expect(inputs.length).toBeGreaterThanOrEqual(3);
    expect(inputs[1]!.runOpen).toBe("1");
    expect(inputs[2]!.runOpen).toBe("1");
    for (const input of inputs) expect(await accepts(c, input)).toBe(true);
    expect(inputs.at(-1)!.stateOut).toBe(verdict.violated ? "2" : "1");
    expect(await accepts(c, { ...inputs.at(-1)!, stateOut: verdict.violated ? "1" : "2" })).toBe(false);
  });
});
