// The AAP-5 segment circuit (circuits/segments/aap5_limits.circom) at 8 records a segment: the running count
// and sum and the repeat argument carried across boundaries decide the session as the oracle does, with
// repeats of one key spread over segments; and the repeat labels, weights and challenges are attacked as a
// dishonest prover would: labels relabelled with the challenges recomputed for them, challenges chosen
// freely, and carried values rehashed at a boundary.
import { beforeAll, describe, expect, it } from "vitest";
import { aap5Limits, type Aap5Theta } from "../../sdk/core/predicates/aap5/definition.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { segmentInputs } from "../../prover/segments/witness.js";
import { type TestCircuit, accepts, forge, signalValue, signalsMatching } from "../helpers/circuit.js";
import { compileSegmentCircuit, oracleCases } from "../helpers/segment-circuits.js";
import { forgedSegmentInputs } from "../helpers/segment-forgery.js";

const DEPTH = 3;
const SLOTS = checkpointSlots(2 ** DEPTH);
const profile = {
  version: 1,
  tools: {
    pay: { target: "to", amount: { key: "amount", decimals: 0 } },
    send: { target: "to" },
    lookup: {},
  },
} as EncodingProfile;
const THETA: Aap5Theta = {
  countedTools: ["send"],
  maxCount: "3",
  summedTools: ["pay"],
  maxSum: "1000",
  maxRepeat: "2",
};

/** n lookups of distinct queries, with the calls given at their positions. */
function trace(n: number, at: Record<number, { tool: string; args: Record<string, string> }> = {}) {
  return Array.from({ length: n }, (_, seq): TraceRecord => {
    const r = at[seq] ?? { tool: "lookup", args: { q: `q${seq}` } };
    return { kind: "call", seq, ts: seq, ...r };
  });
}
const lookupX = { tool: "lookup", args: { q: "x" } };
const send = (to: string) => ({ tool: "send", args: { to } });
const pay = (amount: string) => ({ tool: "pay", args: { to: "m", amount } });

const spec = (records: TraceRecord[], theta: Aap5Theta = THETA) => ({
  records,
  profile,
  sessionSecret: 11n,
  checkpoints: [],
  predicate: aap5Limits,
  theta: aap5Limits.parseTheta(theta),
  context: 5n,
  depth: DEPTH,
  entrySlots: SLOTS,
});
const inputs = (records: TraceRecord[], theta: Aap5Theta = THETA) => segmentInputs(spec(records, theta));

/** The segment chain at 8 records, AAP-5's flags and totals, and the repeat argument split over segments. */
const COST = 22412;

let c: TestCircuit;
beforeAll(async () => {
  c = await compileSegmentCircuit("aap5-segment-8", "aap5_limits.circom", "Aap5LimitsSegment", [
    DEPTH,
    SLOTS,
    aap5Limits.caps.countedTools!,
    aap5Limits.caps.summedTools!,
  ]);
});
const ok = (input: Record<string, unknown>) => accepts(c, input);

describe("AAP-5 segments: totals and repeats cross boundaries", () => {
  it(`costs exactly ${COST} constraints at 8 records a segment`, () => {
    expect(c.constraints).toBe(COST);
  });

  const cases: [string, TraceRecord[], boolean][] = [
    ["distinct lookups only", trace(20), false],
    ["one query twice, in segments 0 and 2 (the limit is 2)", trace(20, { 1: lookupX, 18: lookupX }), false],
    ["one query three times across three segments", trace(20, { 1: lookupX, 9: lookupX, 17: lookupX }), true],
    [
      "a fourth send in the last segment",
      trace(20, { 2: send("a"), 6: send("b"), 12: send("c"), 19: send("d") }),
      true,
    ],
    [
      "three sends over two segments, within the count",
      trace(20, { 2: send("a"), 6: send("b"), 12: send("c") }),
      false,
    ],
    ["payments passing 1000 in the last segment", trace(20, { 3: pay("600"), 18: pay("401") }), true],
    ["payments of exactly 1000", trace(20, { 3: pay("600"), 18: pay("400") }), false],
    ["a payment with no amount", trace(20, { 10: { tool: "pay", args: { to: "m" } } }), true],
    ["a session shorter than one segment", trace(5, { 0: lookupX, 4: lookupX }), false],
    [
      "a session shorter than one segment, one query three times",
      trace(5, { 0: lookupX, 2: lookupX, 4: lookupX }),
      true,
    ],
  ];
  oracleCases(() => c, inputs, cases);

  it("relabelled repeats are refused, with every challenge, weight and state recomputed for the lie", async () => {
    // "x" at rows 1, 9 and 17 (one per segment) hits the bound 3 at row 17. A dishonest prover relabels that
    // row so that nothing hits, and certifies the lie as the honest prover would: the pack chain, beta, the
    // weights, zeta and every carried state follow the forged labels (forgedSegmentInputs' repeatLabels).
    const records = trace(20, { 1: lookupX, 9: lookupX, 17: lookupX });
    const honest = inputs(records);
    expect((honest.inputs[2]!.repeatCount as string[])[1]).toBe("3");
    const labels = (count17: bigint, lastAt: number) => {
      const count = Array.from({ length: 24 }, (_, i) =>
        i === 1 ? 1n : i === 9 ? 2n : i === 17 ? count17 : 1n,
      );
      const last = Array.from({ length: 24 }, (_, i) =>
        (i < 20 && i !== 1 && i !== 9 && i !== 17) || i === lastAt ? 1n : 0n,
      );
      return { count, last };
    };
    // Labelled 1: two first occurrences of one key have no distinctness certificate at all.
    expect(() => forgedSegmentInputs({ ...spec(records), repeatLabels: labels(1n, 17) })).toThrow(
      /no partial-fraction/,
    );
    // Labelled 2 (twice (x, 2), last at 17), or 4 (a gap at 3): certified, chained, and the chain breaks at
    // its last segment, whose multiset identity fails; the segments before it pass.
    for (const forged of [labels(2n, 17), labels(4n, 17)]) {
      const { inputs: lie } = forgedSegmentInputs({ ...spec(records), repeatLabels: forged });
      expect(await ok(lie[0]!)).toBe(true);
      expect(await ok(lie[1]!)).toBe(true);
      // Satisfied is what the lie is for; violated does not hold either (no row reaches the bound).
      expect(await ok({ ...lie[2]!, stateOut: "1" })).toBe(false);
      expect(await ok({ ...lie[2]!, stateOut: "2" })).toBe(false);
    }
  });

  it("rows past n cannot carry a violation: dressed as a third repeat, no verdict has a witness", async () => {
    // n = 5 with "x" twice (the limit): rows 5..7 are past n. A dishonest prover fills them with "x" calls
    // labelled as its third occurrence, the bound, to claim a violation. Refused twice over: rows past n must
    // be zero (SegmentTrace), and the labels feed the pack chain that beta must hash; honest, the segment passes.
    const { inputs: all } = inputs(trace(5, { 0: lookupX, 4: lookupX }));
    const seg = all[0]!;
    const slots = [...(seg.slots as string[][])];
    const counts = [...(seg.repeatCount as string[])];
    for (const row of [5, 6, 7]) {
      slots[row] = (seg.slots as string[][])[4]!;
      counts[row] = "3";
    }
    expect(await ok({ ...seg, slots, repeatCount: counts, stateOut: "2" })).toBe(false);
    expect(await ok({ ...seg, slots, repeatCount: counts, stateOut: "1" })).toBe(false);
    expect(await ok(seg)).toBe(true);
  });

  it("the certificate's inverse hint (<--) has no other value: forged on any row, a constraint breaks", () =>
    (async () => {
      const { inputs: all } = inputs(trace(20, { 1: lookupX, 18: lookupX }));
      const w = await c.witness(all[0]!);
      const invs = signalsMatching(c, /^repeats\.distinct\.inv\[\d+\]$/);
      expect(invs).toHaveLength(8);
      for (const name of invs) {
        const forged = forge(c, w, name, signalValue(c, w, name) + 1n);
        expect(c.firstUnsatisfied(forged), name).toBeGreaterThanOrEqual(0);
      }
    })());

  it("challenges chosen by the prover, not derived from the chain, are refused at the last segment", async () => {
    const { inputs: all } = inputs(trace(20, { 1: lookupX, 18: lookupX }));
    const last = all[2]!;
    for (const key of ["repeatBeta", "repeatZeta"] as const)
      expect(await ok({ ...last, [key]: String(BigInt(last[key] as string) + 1n) })).toBe(false);
    // Carried running values changed without rehashing no longer open stateIn.
    for (const key of [
      "runCount",
      "runSum",
      "labelled",
      "steps",
      "roots",
      "fractions",
      "firsts",
      "packChain",
      "weightChain",
    ])
      expect(await ok({ ...last, [key]: String(BigInt(last[key] as string) + 1n) }), key).toBe(false);
  });

  it("the first segment starts from the empty state: a prover cannot start the count or the sum elsewhere", async () => {
    const { inputs: all } = inputs(trace(20, { 2: send("a"), 6: send("b"), 12: send("c"), 19: send("d") }));
    const first = all[0]!;
    expect(await ok({ ...first, runCount: "0" })).toBe(true);
    expect(await ok({ ...first, runCount: String(-1n) })).toBe(false);
    expect(await ok({ ...first, runSum: "5" })).toBe(false);
  });
});
