// The AAP-6 segment circuit (circuits/segments/aap6_grounding.circom, StrictGroundingFrom in
// circuits/gadgets/segment_grounding.circom) at 8 records a segment: the grounding argument carried across
// boundaries decides the session as the oracle does, with a query grounded by a listing in an earlier
// segment and an ungrounded one in a later segment; and a dishonest prover's moves are refused: a carried
// value changed at a boundary, the verdict flipped with every state recomputed for the lie, the picked value
// changed, challenges other than the pinned ones, and hints solved after the challenge.
import { beforeAll, describe, expect, it } from "vitest";
import { aap6Grounding, type Aap6Theta } from "../../sdk/core/predicates/aap6/definition.js";
import { aap6Segment, aap6SegmentChain } from "../../sdk/core/predicates/aap6/segment.js";
import type { SessionGroundingLabels } from "../../sdk/core/predicates/aap6/segment-grounding.js";
import type { PredicateDefinition } from "../../sdk/core/predicates/types.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { FIELD_MODULUS, poseidon } from "../../sdk/core/hash.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import { fieldInverse } from "../../sdk/core/multiset.js";
import { OBS_SLOTS } from "../../sdk/core/observations.js";
import { planSegments } from "../../sdk/core/segments.js";
import { segmentInputs, type SegmentInputs } from "../../prover/segments/witness.js";
import { type TestCircuit, accepts, forge, signalValue, signalsMatching } from "../helpers/circuit.js";
import { compileSegmentCircuit, oracleCases } from "../helpers/segment-circuits.js";

const DEPTH = 3;
const SIZE = 2 ** DEPTH;
const SLOTS = checkpointSlots(SIZE);
const P = FIELD_MODULUS;
const profile = {
  version: 1,
  tools: {
    list_files: { observe: { fact: "path", from: "result", path: "$.files[*]" } },
    delete_file: { observe: { fact: "path", from: "args", path: "$.path" } },
    note: {},
  },
} as EncodingProfile;
const THETA: Aap6Theta = {
  consequential: { delete_file: "path" },
  sources: { list_files: "path" },
  normalise: "exact",
};
// The lead sets `segment: aap6Segment` in the definition; until then the test supplies it.
const predicate = { ...aap6Grounding, segment: aap6Segment } as PredicateDefinition<Aap6Theta, "AAP-6">;

type Body = Omit<Extract<TraceRecord, { kind: "call" }>, "seq" | "ts">;
/** n notes (no observations), with the calls given at their positions. */
function trace(n: number, at: Record<number, Body> = {}): TraceRecord[] {
  return Array.from({ length: n }, (_, seq): TraceRecord => {
    const r = at[seq] ?? { kind: "call", tool: "note", args: { text: `n${seq}` }, result: "ok" };
    return { seq, ts: seq, ...r } as TraceRecord;
  });
}
const list = (...files: string[]): Body => ({
  kind: "call",
  tool: "list_files",
  args: { dir: "." },
  result: { files },
});
const failedList = (...files: string[]): Body => ({ ...list(...files), result: undefined, error: "EIO" });
const del = (path: string): Body => ({
  kind: "call",
  tool: "delete_file",
  args: { path },
  result: "deleted",
});
const blockedDel = (path: string): Body => ({ ...del(path), result: undefined, blocked: true }) as Body;

const spec = (records: TraceRecord[]) => ({
  records,
  profile,
  sessionSecret: 11n,
  checkpoints: [],
  predicate,
  theta: predicate.parseTheta(THETA),
  context: 5n,
  depth: DEPTH,
  entrySlots: SLOTS,
});
const inputs = (records: TraceRecord[]) => segmentInputs(spec(records));

/**
 * The chain a dishonest prover builds for forged labels or challenges: the grounding state certified for
 * them, every state commitment and carried `violated` recomputed (the frame's violated turns on at the
 * forged pick's segment), and the claimed verdict where the chain ends.
 */
function forgedChain(records: TraceRecord[], forged: Parameters<typeof aap6SegmentChain>[5]): SegmentInputs {
  return forgedChainWith(records, forged, () => undefined);
}

/** forgedChain, with the encoded rows changed first where the circuit does not bind them. */
function forgedChainWith(
  records: TraceRecord[],
  forged: Parameters<typeof aap6SegmentChain>[5],
  dress: (encoded: ReturnType<typeof encodeTrace>) => void,
): SegmentInputs {
  const honest = inputs(records);
  const encoded = encodeTrace(records, profile, 11n);
  dress(encoded);
  const leaves = encoded.map((r) => r.leaf);
  const finalRoot = commitmentRoot(leaves);
  const boundaries = [0, ...honest.plans.map((p) => p.to)];
  const thetaInputs = predicate.circuitInputs(predicate.parseTheta(THETA));
  const chain = aap6SegmentChain(encoded, boundaries, SIZE, thetaInputs, finalRoot, forged);
  const picked = chain.chain.labels.pick.findIndex((p) => p !== 0n);
  const plans = planSegments({
    depth: DEPTH,
    leaves,
    entries: [],
    finalRoot,
    firstViolation: picked < 0 ? null : Math.floor(picked / OBS_SLOTS),
    entrySlots: SLOTS,
    predicateStates: chain.states,
  });
  return {
    plans,
    verdict: honest.verdict,
    inputs: plans.map((plan, j) => ({
      ...honest.inputs[j]!,
      ...chain.inputs[j]!,
      stateIn: String(plan.stateIn),
      stateOut: String(plan.stateOut),
      inViolated: plan.carryIn.violated ? "1" : "0",
    })),
  };
}

const noLabels = (elements: number): SessionGroundingLabels => ({
  pick: Array<bigint>(elements).fill(0n),
  gap: Array<bigint>(elements).fill(0n),
  mult: Array<bigint>(elements).fill(0n),
});

let c: TestCircuit;
beforeAll(async () => {
  c = await compileSegmentCircuit("aap6-segment-8", "aap6_grounding.circom", "Aap6GroundingSegment", [
    DEPTH,
    SLOTS,
    aap6Grounding.caps.consequential!,
    aap6Grounding.caps.sources!,
  ]);
});
const ok = (input: Record<string, unknown>) => accepts(c, input);

describe("AAP-6 segments: grounding crosses boundaries", () => {
  it("reports its constraint count at 8 records a segment", () => {
    console.log(`aap6 segment (8 records, ${SLOTS} entry slots): ${c.constraints} constraints`);
    expect(c.constraints).toBeGreaterThan(0);
  });

  const cases: [string, TraceRecord[], boolean][] = [
    ["notes only", trace(20), false],
    [
      "deletes in segments 1 and 2 grounded by a listing in segment 0",
      trace(20, { 1: list("a", "b"), 12: del("a"), 19: del("b") }),
      false,
    ],
    [
      "a delete in segment 2 of a file no listing showed",
      trace(20, { 1: list("a", "b"), 17: del("c") }),
      true,
    ],
    ["a delete in segment 0 before its listing", trace(20, { 2: del("a"), 3: list("a") }), true],
    ["a delete grounded only by a failed listing", trace(20, { 1: failedList("a"), 10: del("a") }), true],
    ["a blocked delete of an unlisted file", trace(20, { 1: list("a"), 10: blockedDel("z") }), false],
    ["a session shorter than one segment", trace(5, { 0: list("a"), 4: del("a") }), false],
    ["a session shorter than one segment, ungrounded", trace(5, { 0: list("a"), 4: del("b") }), true],
    ["a session of exactly two segments", trace(16, { 7: list("x"), 8: del("x"), 15: del("x") }), false],
  ];
  oracleCases(() => c, inputs, cases);

  it("a carried value changed at a boundary no longer opens stateIn", async () => {
    const { inputs: all } = inputs(trace(20, { 1: list("a", "b"), 12: del("a"), 19: del("b") }));
    for (const seg of [all[1]!, all[2]!]) {
      expect(await ok(seg)).toBe(true);
      for (const key of [
        "groundingB",
        "groundingV",
        "groundingPicked",
        "groundingRunning",
        "groundingAcc",
        "groundingQuerySum",
        "groundingGroundSum",
        "groundingPackChain",
        "groundingBeta",
        "groundingZ",
      ])
        expect(await ok({ ...seg, [key]: String(BigInt(seg[key] as string) + 1n) }), key).toBe(false);
    }
  });

  it("a violated session claimed satisfied: labels certified for the lie break the last segment", async () => {
    // The delete of c at 17 has no ground. The lie points it at the listing's a (record 1, gap 15) with
    // a's element counted once, and certifies it: pack chain, beta, z and every state follow the labels.
    const records = trace(20, { 1: list("a", "b"), 17: del("c") });
    const labels = noLabels(24 * OBS_SLOTS);
    labels.gap[17 * OBS_SLOTS] = 15n;
    labels.mult[1 * OBS_SLOTS] = 1n;
    const lie = forgedChain(records, { labels });
    expect(lie.plans.at(-1)!.stateOut).toBe(1n);
    expect(await ok(lie.inputs[0]!)).toBe(true);
    expect(await ok(lie.inputs[1]!)).toBe(true);
    expect(await ok(lie.inputs[2]!)).toBe(false);
    expect(await ok({ ...lie.inputs[2]!, stateOut: "2" })).toBe(false);
  });

  it("a satisfied session claimed violated: a grounded pick has no inverse", async () => {
    const records = trace(20, { 1: list("a", "b"), 12: del("a"), 19: del("b") });
    const labels = noLabels(24 * OBS_SLOTS);
    labels.pick[12 * OBS_SLOTS] = 1n;
    const lie = forgedChain(records, { labels });
    expect(lie.plans.at(-1)!.stateOut).toBe(2n);
    expect(await ok(lie.inputs[0]!)).toBe(true);
    expect(await ok(lie.inputs[1]!)).toBe(true);
    expect(await ok(lie.inputs[2]!)).toBe(false);
    // Nor does any accInv help: acc is 0, so acc·accInv = 1 has no solution.
    expect(await ok({ ...lie.inputs[2]!, groundingAccInv: "1" })).toBe(false);
  });

  it("b flipped, with every state recomputed for it, breaks the last segment", async () => {
    // Violated (c at 10 is ungrounded) with b = 0 carried beside the honest pick: picked = 1 ≠ b.
    const violated = trace(20, { 1: list("a"), 10: del("c"), 17: del("c") });
    const honestPick = noLabels(24 * OBS_SLOTS);
    honestPick.pick[10 * OBS_SLOTS] = 1n;
    const b0 = forgedChain(violated, { labels: honestPick, claim: { b: 0n } });
    expect(await ok(b0.inputs[0]!)).toBe(true);
    expect(await ok(b0.inputs[1]!)).toBe(true);
    for (const stateOut of ["1", "2"]) expect(await ok({ ...b0.inputs[2]!, stateOut })).toBe(false);
    // Satisfied with b = 1 carried and nothing picked: picked = 0 ≠ b.
    const satisfied = trace(20, { 1: list("a", "b"), 12: del("a"), 19: del("b") });
    const b1 = forgedChain(satisfied, { labels: noLabels(24 * OBS_SLOTS), claim: { b: 1n } });
    expect(await ok(b1.inputs[1]!)).toBe(true);
    for (const stateOut of ["1", "2"]) expect(await ok({ ...b1.inputs[2]!, stateOut })).toBe(false);
    // Two picks of one ungrounded value (c at 10 and 17): each segment holds one, the total is 2 ≠ b.
    const twoPicks = noLabels(24 * OBS_SLOTS);
    twoPicks.pick[10 * OBS_SLOTS] = 1n;
    twoPicks.pick[17 * OBS_SLOTS] = 1n;
    const doubled = forgedChain(violated, { labels: twoPicks });
    expect(await ok(doubled.inputs[1]!)).toBe(true);
    for (const stateOut of ["1", "2"]) expect(await ok({ ...doubled.inputs[2]!, stateOut })).toBe(false);
  });

  it("the picked value V must be the picked query's value", async () => {
    // The violation is in segment 0, whose stateIn is 0: any V opens it, so only pick·(value − V) = 0 holds V.
    const { inputs: all } = inputs(trace(20, { 2: del("a"), 3: list("a") }));
    expect(await ok(all[0]!)).toBe(true);
    expect(await ok({ ...all[0]!, groundingV: String(BigInt(all[0]!.groundingV as string) + 1n) })).toBe(
      false,
    );
  });

  it("challenges other than HashVector(finalRoot, packChain) and Poseidon(beta) are refused at the last segment", async () => {
    const records = trace(20, { 1: list("a", "b"), 12: del("a"), 19: del("b") });
    const honest = inputs(records);
    const beta = BigInt(honest.inputs[0]!.groundingBeta as string);
    for (const challenges of [
      { beta: beta + 1n, z: poseidon([beta + 1n]) },
      { beta, z: poseidon([beta]) + 1n },
    ]) {
      const chosen = forgedChain(records, { challenges });
      expect(await ok(chosen.inputs[0]!)).toBe(true);
      expect(await ok(chosen.inputs[1]!)).toBe(true);
      expect(await ok(chosen.inputs[2]!)).toBe(false);
    }
  });

  it("hints solved after the challenge: the gap that balances the lookup is out of range and moves beta", async () => {
    // Ungrounded delete of c at 17. Given the chain's beta and z, the only pointer that balances the lookup
    // against the listing's a (record 1) is j = 1 + (a − c)/beta: gap = 16 − j, a field element far beyond
    // 24 bits. Certified with the challenges kept (as if solved after them), the lookup balances but the
    // range check refuses it; and its pack chain no longer hashes to that beta.
    const records = trace(20, { 1: list("a", "b"), 17: del("c") });
    const honestLabels = noLabels(24 * OBS_SLOTS);
    honestLabels.mult[1 * OBS_SLOTS] = 1n;
    const first = forgedChain(records, { labels: honestLabels });
    const beta = BigInt(first.inputs[0]!.groundingBeta as string);
    const z = BigInt(first.inputs[0]!.groundingZ as string);
    const obs = (j: number) => (first.inputs[j >> 3]!.obs as string[][])[j % SIZE]!.map(BigInt);
    const [a] = obs(1);
    const [cValue] = obs(17);
    const jStar = (1n + (((a! - cValue!) % P) + P) * fieldInverse(beta)) % P;
    const labels = noLabels(24 * OBS_SLOTS);
    labels.mult[1 * OBS_SLOTS] = 1n;
    labels.gap[17 * OBS_SLOTS] = (((16n - jStar) % P) + P) % P;
    const solved = forgedChain(records, { labels, challenges: { beta, z } });
    expect(await ok(solved.inputs[2]!)).toBe(false);
    expect(await ok({ ...solved.inputs[2]!, stateOut: "2" })).toBe(false);
  });

  // Found by this test: a row was a ground on active · isOk · source without requiring an executed call, and an
  // authorization record's tool slot is its tool's name while its digest (not observed) leaves status and obs
  // free, so a prover could dress an authorization for a source tool as an OK read of any value. Grounds now
  // need an executed call (Aap6RowKind.executedSource).
  it("an authorization record of a source tool cannot be dressed as a successful read", async () => {
    const auth = {
      kind: "authorization",
      actionId: "a1",
      tool: "list_files",
      argsHash: `0x${"00".repeat(32)}`,
      decision: "allow",
      authority: "human",
      scope: "once",
    } as unknown as Body;
    const records = trace(20, { 1: auth, 10: del("c") });
    const honest = inputs(records);
    expect(honest.verdict.violated).toBe(true);
    const cValue = (honest.inputs[1]!.obs as string[][])[2]![0]!;
    const labels = noLabels(24 * OBS_SLOTS);
    labels.gap[10 * OBS_SLOTS] = 8n; // record 10 points at record 1
    labels.mult[1 * OBS_SLOTS] = 1n;
    // The dressed row: status OK, observing c. Its digest is its content (not observed), so the leaf holds.
    const lie = forgedChainWith(records, { labels }, (encoded) => {
      encoded[1] = { ...encoded[1]!, status: 1n, obs: [BigInt(cValue), 0n] };
    });
    // The lie claims the violated session satisfied; the segment holding the dressed row refuses it.
    const accepted: boolean[] = [];
    for (const input of lie.inputs) accepted.push(await ok(input));
    expect(accepted.every(Boolean), "every segment of the forged chain accepted").toBe(false);
  });

  it("the lookup's inverse hints (<--) have no other value: forged on any element, a constraint breaks", async () => {
    const { inputs: all } = inputs(trace(20, { 1: list("a", "b"), 12: del("a"), 19: del("b") }));
    const w = await c.witness(all[1]!);
    // --O2 substitutes the last query inverse away (querySumOut is linear in the inverses): no wire, no freedom.
    const invs = signalsMatching(c, /^grounding\.(query|ground)Inv\[\d+\]$/);
    expect(invs).toHaveLength(2 * SIZE * OBS_SLOTS - 1);
    for (const name of invs) {
      const forged = forge(c, w, name, signalValue(c, w, name) + 1n);
      expect(c.firstUnsatisfied(forged), name).toBeGreaterThanOrEqual(0);
    }
  });
});
