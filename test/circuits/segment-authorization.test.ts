// The AAP-1 segment circuit (circuits/segments/aap1_authorization.circom) at 8 records a segment: the
// authorization chains run over the whole session, so an approval in one segment covers a call in a later
// one, a replay or a revoking deny in between is seen there, and the oracle's verdict is the chain's. The
// chain labels, weights and challenges are attacked as a dishonest prover would: a replayed call relabelled
// to read the approval's fresh state, with the pack chain, beta, the weights, zeta and every carried state
// recomputed for the lie; a predecessor in a later segment; rows past n dressed as an approval; challenges
// chosen freely; carried values changed alone.
import { readFileSync } from "node:fs";
import { keccak256, toBytes } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, type Json } from "../../sdk/core/canonical.js";
import { aap1Authorization, type Aap1Theta } from "../../sdk/core/predicates/aap1/definition.js";
import type { ChainLabels } from "../../sdk/core/predicates/aap1/chains.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { segmentInputs } from "../../prover/segments/witness.js";
import { authorizationChain } from "../../sdk/core/predicates/aap1/segment-chains.js";
import { fieldInverse } from "../../sdk/core/multiset.js";
import { SLOT } from "../../sdk/core/encoding.js";
import { FIELD_MODULUS as P } from "../../sdk/core/hash.js";
import { type TestCircuit, accepts, forge, signalValue, signalsMatching } from "../helpers/circuit.js";
import { compileSegmentCircuit, oracleCases } from "../helpers/segment-circuits.js";
import { forgedSegmentInputs } from "../helpers/segment-forgery.js";

const DEPTH = 3;
const SIZE = 2 ** DEPTH;
const SLOTS = checkpointSlots(SIZE);
const profile: EncodingProfile = { version: 1, tools: { delete_file: {}, exec: {}, read_file: {} } };
const THETA: Aap1Theta = { gatedTools: ["delete_file", "exec"], acceptedAuthorities: ["human", "policy"] };
const X = { path: "/srv/x" };
const Y = { path: "/srv/y" };
const argsHash = (args: { [k: string]: Json }) => keccak256(toBytes(canonicalJson(args)));

type Entry = Omit<TraceRecord, "seq" | "ts">;
const allow = (actionId: string, tool: string, args: { [k: string]: Json }, extra = {}): Entry =>
  ({
    kind: "authorization",
    actionId,
    tool,
    argsHash: argsHash(args),
    decision: "allow",
    authority: "human",
    scope: "once",
    ...extra,
  }) as Entry;
const call = (tool: string, args: { [k: string]: Json }, actionId?: string): Entry =>
  ({ kind: "call", tool, args, ...(actionId ? { actionId } : {}) }) as Entry;

/** n reads of distinct files (not gated), with the records given at their positions. */
function trace(n: number, at: Record<number, Entry> = {}): TraceRecord[] {
  return Array.from(
    { length: n },
    (_, seq) => ({ ...(at[seq] ?? call("read_file", { path: `/r/${seq}` })), seq, ts: seq }) as TraceRecord,
  );
}

const spec = (records: TraceRecord[], theta: Aap1Theta = THETA) => ({
  records,
  profile,
  sessionSecret: 13n,
  checkpoints: [],
  predicate: aap1Authorization,
  theta: aap1Authorization.parseTheta(theta),
  context: 6n,
  depth: DEPTH,
  entrySlots: SLOTS,
});
const inputs = (records: TraceRecord[]) => segmentInputs(spec(records));

/** The session's chain labels, read back from every segment's input (m·S rows). */
function labelsOf(all: ReturnType<typeof inputs>["inputs"]): ChainLabels {
  const column = (key: string) => all.flatMap((input) => (input[key] as string[]).map(BigInt));
  return {
    rank: column("chainRank"),
    last: column("chainLast"),
    pred: column("chainPred"),
    validIn: column("chainValidIn"),
    usedIn: column("chainUsedIn"),
    coversIn: column("chainCoversIn"),
  };
}

/** The segment chain at 8 records, AAP-1's record decoding and the authorization chains split over segments. */
const COST = 22258;

let c: TestCircuit;
beforeAll(async () => {
  c = await compileSegmentCircuit("aap1-segment-8", "aap1_authorization.circom", "Aap1AuthorizationSegment", [
    DEPTH,
    SLOTS,
    aap1Authorization.caps.tools!,
  ]);
});
const ok = (input: Record<string, unknown>) => accepts(c, input);

describe("AAP-1 segments: authorization chains cross boundaries", () => {
  it(`costs exactly ${COST} constraints at 8 records a segment`, () => {
    expect(c.constraints).toBe(COST);
  });

  const cases: [string, TraceRecord[], boolean][] = [
    ["no gated call", trace(20), false],
    [
      "approved in segment 0, deleted in segment 2",
      trace(20, { 1: allow("a1", "delete_file", X), 18: call("delete_file", X, "a1") }),
      false,
    ],
    [
      "approved in segment 0, deleted in segment 1, the approval replayed in segment 2",
      trace(20, {
        1: allow("a1", "delete_file", X),
        10: call("delete_file", X, "a1"),
        18: call("delete_file", X, "a1"),
      }),
      true,
    ],
    [
      "approved in segment 0, denied in segment 1, called in segment 2",
      trace(20, {
        1: allow("a1", "delete_file", X),
        9: allow("a1", "delete_file", X, { decision: "deny" }),
        18: call("delete_file", X, "a1"),
      }),
      true,
    ],
    [
      "denied in segment 0, approved in segment 1, called in segment 2",
      trace(20, {
        1: allow("a1", "delete_file", X, { decision: "deny" }),
        9: allow("a1", "delete_file", X),
        18: call("delete_file", X, "a1"),
      }),
      false,
    ],
    [
      "called in segment 0, approved only in segment 1",
      trace(20, { 2: call("delete_file", X, "a1"), 12: allow("a1", "delete_file", X) }),
      true,
    ],
    [
      "approved for one file, another deleted two segments later",
      trace(20, { 1: allow("a1", "delete_file", X), 18: call("delete_file", Y, "a1") }),
      true,
    ],
    [
      "a gated call with no action id in the last segment",
      trace(20, { 19: call("exec", { command: "ls" }) }),
      true,
    ],
    [
      "two approvals and their calls interleaved over three segments",
      trace(20, {
        0: allow("a1", "delete_file", X),
        7: allow("a2", "exec", { command: "ls" }, { authority: "policy", policyId: "p" }),
        8: call("exec", { command: "ls" }, "a2"),
        16: call("delete_file", X, "a1"),
      }),
      false,
    ],
    [
      "a session shorter than one segment",
      trace(5, { 0: allow("a1", "exec", Y), 4: call("exec", Y, "a1") }),
      false,
    ],
    ["a session shorter than one segment, a call not approved", trace(5, { 4: call("exec", Y, "a1") }), true],
  ];
  oracleCases(() => c, inputs, cases);

  it("a replayed approval relabelled as fresh is refused, with every challenge, weight and state recomputed for the lie", async () => {
    // Approved at 1, used at 10, replayed at 18: the replay reads usedIn = 1 and violates. A dishonest prover
    // points the replay's chain at the approval instead (rank 2, pred 1, the approval's fresh state), and
    // certifies the lie as the honest prover would: the pack chain, beta, the weights, zeta and every
    // carried state follow the forged labels (forgedSegmentInputs' chainForgery).
    const records = trace(20, {
      1: allow("a1", "delete_file", X),
      10: call("delete_file", X, "a1"),
      18: call("delete_file", X, "a1"),
    });
    const honest = labelsOf(inputs(records).inputs);
    expect([honest.rank[18], honest.pred[18], honest.usedIn[18]]).toEqual([3n, 10n, 1n]);
    const forged = (lastAt10: bigint): ChainLabels => {
      const l = structuredClone(honest);
      l.rank[18] = 2n;
      l.pred[18] = 1n;
      l.usedIn[18] = 0n;
      l.last[10] = lastAt10;
      return l;
    };
    for (const lie of [forged(0n), forged(1n)]) {
      const { inputs: all } = forgedSegmentInputs({ ...spec(records), chainForgery: { labels: lie } });
      expect(await ok(all[0]!)).toBe(true);
      expect(await ok(all[1]!)).toBe(true);
      // Satisfied is what the lie is for; the multiset identity fails at the last segment either way.
      expect(await ok({ ...all[2]!, stateOut: "1" })).toBe(false);
      expect(await ok({ ...all[2]!, stateOut: "2" })).toBe(false);
    }
    // Labelled as a new chain (rank 1): two rank-1 members of one action id have no certificate at all.
    const fresh = structuredClone(honest);
    fresh.rank[18] = 1n;
    fresh.pred[18] = 0n;
    fresh.validIn[18] = 0n;
    fresh.usedIn[18] = 0n;
    fresh.coversIn[18] = 0n;
    expect(() => forgedSegmentInputs({ ...spec(records), chainForgery: { labels: fresh } })).toThrow(
      /no partial-fraction/,
    );
  });

  it("a call cannot read an approval recorded after it: a predecessor later in the session is refused", async () => {
    // Called at 17, approved only at 19 (both in the last segment, so the earlier segments carry no
    // violation). The prover makes the approval the chain's first member and the call its second, reading
    // the approval's state (valid, unused, its covers). The session's multiset identity then balances (the
    // TS mirror closes it); only pred < position refuses the segment, whichever verdict it claims.
    const records = trace(20, { 17: call("delete_file", X, "a1"), 19: allow("a1", "delete_file", X) });
    const all = inputs(records).inputs;
    const slots = all.flatMap((input) => (input.slots as string[][]).map((row) => row.map(BigInt)));
    const finalRoot = BigInt(all[0]!.finalRoot as string);
    const approval = slots[19]!;
    const lie = labelsOf(all);
    lie.rank[19] = 1n;
    lie.pred[19] = 0n;
    lie.usedIn[19] = 0n;
    lie.last[19] = 0n;
    lie.rank[17] = 2n;
    lie.pred[17] = 19n;
    lie.validIn[17] = 1n;
    lie.coversIn[17] = (approval[SLOT.tool]! + finalRoot * approval[SLOT.args]!) % P;
    lie.last[17] = 1n;
    const theta = aap1Authorization.circuitInputs(aap1Authorization.parseTheta(THETA));
    const chain = authorizationChain(
      slots,
      records.length,
      SIZE,
      finalRoot,
      (theta.gatedTools as string[]).map(BigInt),
      (theta.authorities as string[]).map(BigInt),
      { labels: lie },
    );
    expect(chain.carries.at(-1)!.states).toBe(chain.carries.at(-1)!.handOffs);
    const { inputs: forged } = forgedSegmentInputs({ ...spec(records), chainForgery: { labels: lie } });
    expect(await ok(forged[0]!)).toBe(true);
    expect(await ok(forged[1]!)).toBe(true);
    expect(await ok({ ...forged[2]!, stateOut: "1" })).toBe(false);
    expect(await ok({ ...forged[2]!, stateOut: "2" })).toBe(false);
    // And the assert that fails is the order check's range check (gapBits), nothing else.
    const gadget = readFileSync("circuits/gadgets/segment_authorization.circom", "utf8").split("\n");
    const gapLine = gadget.findIndex((line) => line.includes("gapBits[i].in <==")) + 1;
    await expect(c.witness({ ...forged[2]!, stateOut: "1" })).rejects.toThrow(
      new RegExp(
        `Num2Bits\\S* line: \\d+\\s+Error in template AuthorizationChainFrom\\S* line: ${gapLine}\\b`,
      ),
    );
    // The same lie with a predecessor before the call (pred 16) passes the order check and breaks the
    // identity instead: pred is in the tuple.
    const earlier = { ...lie, pred: lie.pred.map((p, i) => (i === 17 ? 16n : p)) };
    const { inputs: moved } = forgedSegmentInputs({ ...spec(records), chainForgery: { labels: earlier } });
    expect(await ok({ ...moved[2]!, stateOut: "1" })).toBe(false);
  });

  // The asserts of SessionArgumentClose (circuits/gadgets/segment_argument.circom) a forgery below must break,
  // by line: each test shows the one it targets is the only assert that fails, so deleting it would let the
  // forgery settle.
  const argument = readFileSync("circuits/gadgets/segment_argument.circom", "utf8").split("\n");
  const lineOf = (code: string) => {
    const at = argument.findIndex((line) => line.includes(code));
    expect(at, code).toBeGreaterThanOrEqual(0);
    return at + 1;
  };
  const refusedOnlyAt = async (input: Record<string, unknown>, code: string) => {
    expect((await c.lenientWitness(input)).failedAsserts, code).toBe(1);
    await expect(c.witness(input)).rejects.toThrow(
      new RegExp(`Error in template SessionArgumentClose\\S* line: ${lineOf(code)}\\b`),
    );
  };
  const theta = aap1Authorization.circuitInputs(aap1Authorization.parseTheta(THETA));
  const gatedTools = (theta.gatedTools as string[]).map(BigInt);
  const authorities = (theta.authorities as string[]).map(BigInt);
  const slotsOf = (all: ReturnType<typeof inputs>["inputs"]) =>
    all.flatMap((input) => (input.slots as string[][]).map((row) => row.map(BigInt)));

  it("a beta the prover picks (0 in every segment) balances the replay's lie; only the beta check refuses it", async () => {
    // The replay of the test above, relabelled to read the approval's fresh state. At beta = 0 every tuple is
    // its action id alone, so the two sides of the identity hold the same multiset and the certificate (the
    // honest one: the rank-1 members are unchanged) holds too. Each segment accepts but the last, where
    // beta = HashVector(finalRoot, packChain) is the one assert that fails.
    const records = trace(20, {
      1: allow("a1", "delete_file", X),
      10: call("delete_file", X, "a1"),
      18: call("delete_file", X, "a1"),
    });
    const honest = inputs(records).inputs;
    const lie = labelsOf(honest);
    lie.rank[18] = 2n;
    lie.pred[18] = 1n;
    lie.usedIn[18] = 0n;
    lie.last[10] = 0n;
    lie.last[18] = 1n;
    const forgery = { labels: lie, beta: 0n };
    const chain = authorizationChain(
      slotsOf(honest),
      records.length,
      SIZE,
      BigInt(honest[0]!.finalRoot as string),
      gatedTools,
      authorities,
      forgery,
    );
    const end = chain.carries.at(-1)!;
    expect(end.states).toBe(end.handOffs);
    expect((end.roots * end.fractions) % P).toBe(1n);
    const { inputs: forged } = forgedSegmentInputs({ ...spec(records), chainForgery: forgery });
    expect(await ok(forged[0]!)).toBe(true);
    expect(await ok(forged[1]!)).toBe(true);
    await refusedOnlyAt({ ...forged[2]!, stateOut: "1" }, "isLast * (beta - betaSeed) === 0");
  });

  it("one action split into two chains balances the identity; the certificate, or zeta's check, refuses it", async () => {
    // Approved at 1, used at 10, approved again at 12 and called at 18: the call at 18 reads the used state
    // and violates. The lie makes two chains of a1, 1 -> 10 and 12 -> 18, so 18 reads the second approval's
    // fresh state. The multiset identity then balances; what refuses it is the distinctness certificate (two
    // rank-1 members of a1), which no weights satisfy at a zeta derived from them. Weights that certify at a
    // zeta fixed first pass the certificate only with that zeta, which zeta's own check refuses.
    const records = trace(20, {
      1: allow("a1", "delete_file", X),
      10: call("delete_file", X, "a1"),
      12: allow("a1", "delete_file", X),
      18: call("delete_file", X, "a1"),
    });
    const honest = inputs(records).inputs;
    expect(inputs(records).verdict.violated).toBe(true);
    const slots = slotsOf(honest);
    const finalRoot = BigInt(honest[0]!.finalRoot as string);
    const lie = labelsOf(honest);
    lie.last[10] = 1n;
    Object.assign(lie, {
      rank: lie.rank.map((r, i) => (i === 12 ? 1n : i === 18 ? 2n : r)),
      pred: lie.pred.map((p, i) => (i === 12 ? 0n : i === 18 ? 12n : p)),
      validIn: lie.validIn.map((v, i) => (i === 12 ? 0n : i === 18 ? 1n : v)),
      usedIn: lie.usedIn.map((u, i) => (i === 12 || i === 18 ? 0n : u)),
      coversIn: lie.coversIn.map((v, i) =>
        i === 12 ? 0n : i === 18 ? (slots[12]![SLOT.tool]! + finalRoot * slots[12]![SLOT.args]!) % P : v,
      ),
      last: lie.last.map((l, i) => (i === 12 ? 0n : i === 18 ? 1n : l)),
    });
    const chainOf = (forgery: Parameters<typeof authorizationChain>[6]) =>
      authorizationChain(slots, records.length, SIZE, finalRoot, gatedTools, authorities, forgery);
    const zeros = slots.map(() => 0n);
    const zetaFirst = chainOf({ labels: lie, weight: zeros }).carries[0]!.zeta;
    const action = slots[1]![SLOT.action]!;
    const certifying = zeros.map((w, i) => (i === 1 ? fieldInverse(zetaFirst - action) : w));
    const forgeries: [string, Parameters<typeof authorizationChain>[6], string][] = [
      ["no weights", { labels: lie, weight: zeros }, "isLast * (certified - 1 + empty) === 0"],
      [
        "weights certifying at another zeta",
        { labels: lie, weight: certifying },
        "isLast * (certified - 1 + empty) === 0",
      ],
      [
        "weights certifying at the zeta picked for them",
        { labels: lie, weight: certifying, zeta: zetaFirst },
        "isLast * (zeta - zetaSeed) === 0",
      ],
    ];
    for (const [what, forgery, code] of forgeries) {
      const end = chainOf(forgery).carries.at(-1)!;
      expect(end.states, what).toBe(end.handOffs);
      const { inputs: forged } = forgedSegmentInputs({ ...spec(records), chainForgery: forgery });
      expect(await ok(forged[0]!), what).toBe(true);
      expect(await ok(forged[1]!), what).toBe(true);
      await refusedOnlyAt({ ...forged[2]!, stateOut: "1" }, code);
    }
  });

  it("rows past n cannot carry an approval: no verdict has a witness", async () => {
    // n = 5, the call at 4 is not approved. A dishonest prover writes an approval into rows 5..7 and points
    // the call's chain at none of them (they come after it); or leaves the labels and fills the rows:
    // rows past n must be zero (SegmentTrace), so the honest verdict alone has a witness.
    const { inputs: all } = inputs(trace(5, { 4: call("exec", Y, "a1") }));
    const seg = all[0]!;
    const approval = inputs(trace(5, { 0: allow("a1", "exec", Y), 4: call("exec", Y, "a1") })).inputs[0]!;
    const slots = [...(seg.slots as string[][])];
    for (const row of [5, 6, 7]) slots[row] = (approval.slots as string[][])[0]!;
    expect(await ok({ ...seg, slots, stateOut: "1" })).toBe(false);
    expect(await ok({ ...seg, slots, stateOut: "2" })).toBe(false);
    expect(await ok(seg)).toBe(true);
  });

  it("the certificate's inverse hint (<--) has no other value: forged on any row, a constraint breaks", async () => {
    const { inputs: all } = inputs(
      trace(20, { 1: allow("a1", "delete_file", X), 18: call("delete_file", X, "a1") }),
    );
    const w = await c.witness(all[0]!);
    const invs = signalsMatching(c, /^chains\.distinct\.inv\[\d+\]$/);
    expect(invs).toHaveLength(SIZE);
    for (const name of invs) {
      const forged = forge(c, w, name, signalValue(c, w, name) + 1n);
      expect(c.firstUnsatisfied(forged), name).toBeGreaterThanOrEqual(0);
    }
  });

  it("challenges chosen by the prover, not derived from the chain, are refused at the last segment", async () => {
    const { inputs: all } = inputs(
      trace(20, { 1: allow("a1", "delete_file", X), 18: call("delete_file", X, "a1") }),
    );
    const last = all[2]!;
    expect(await ok(last)).toBe(true);
    for (const key of ["chainBeta", "chainZeta"] as const)
      expect(await ok({ ...last, [key]: String(BigInt(last[key] as string) + 1n) }), key).toBe(false);
    // Carried running values changed without rehashing no longer open stateIn.
    for (const key of ["packChain", "weightChain", "states", "handOffs", "roots", "fractions", "firsts"])
      expect(await ok({ ...last, [key]: String(BigInt(last[key] as string) + 1n) }), key).toBe(false);
  });

  it("the first segment starts from the empty state", async () => {
    const { inputs: all } = inputs(
      trace(20, { 1: allow("a1", "delete_file", X), 18: call("delete_file", X, "a1") }),
    );
    const first = all[0]!;
    for (const key of ["states", "handOffs", "roots", "fractions", "firsts"])
      expect(await ok({ ...first, [key]: String(BigInt(first[key] as string) + 1n) }), key).toBe(false);
  });
});
