// AAP-6 strict grounding: the circuit against the oracle. The instance's θ sizes and exact cost, a random
// differential on aap6_n8 (file tools, user messages, a tool θ does not name, grants and authorizations,
// both normalisations), and the two readings of a row whose tool θ does or does not name.
// The oracle itself is tested in ./aap6-grounding.test.ts; every fixture runs through the circuit in
// ./fixtures.test.ts; the gadget's edges and forgeries are in test/circuits/grounding.test.ts.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { chainHead, encodeTrace } from "../../sdk/core/encoding.js";
import { aap6Grounding, type Aap6Theta } from "../../sdk/core/predicates/aap6/definition.js";
import { ThetaError } from "../../sdk/core/predicates/types.js";
import { parseProfile, type EncodingProfile } from "../../sdk/core/profile.js";
import type { CallRecord, TraceRecord } from "../../sdk/core/records.js";
import { claimInput, shapeOf, type Checkpoint } from "../../prover/witness.js";
import { compileInstance, instance } from "../helpers/instance.js";
import {
  atLeast,
  expectVerdict,
  PROPERTY_RUNS,
  PROPERTY_TIMEOUT_MS,
  propertyParams,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";

const INSTANCE = instance("aap6_n8");
const SHAPE = shapeOf(INSTANCE.params);
const SECRET = 0x6a6n;
const CONTEXT = 606n;

function input(
  records: readonly TraceRecord[],
  profile: EncodingProfile,
  theta: Aap6Theta,
  at: number[] = [],
  predicate = aap6Grounding,
) {
  const leaves = encodeTrace(records, profile, SECRET).map((r) => r.leaf);
  const checkpoints: Checkpoint[] = at.map((n) => ({ n, root: chainHead(leaves, n) }));
  return claimInput({
    records,
    profile,
    sessionSecret: SECRET,
    checkpoints,
    predicate,
    theta,
    context: CONTEXT,
    shape: SHAPE,
  });
}

let circuit: TestCircuit;
beforeAll(async () => {
  circuit = await compileInstance(INSTANCE.name);
});

it("the instance's θ sizes are the predicate's", () => {
  expect(INSTANCE.params.consequential).toBe(aap6Grounding.caps.consequential);
  expect(INSTANCE.params.sources).toBe(aap6Grounding.caps.sources);
});

// aap6_n8 (N = 8 records, K = 2 checkpoints, O = 2 observed values a record, M = N·O = 16 elements),
// each part as compiled alone with --O2:
// - the shared frame, CommittedTrace(3, 2) (chained leaves over slots and digest, the checkpoint lookup): 5,082;
// - per row, 325: RecordDigest (leaf.circom: Poseidon(status, obs0, obs1, content) on an executed call of a tool
//   θ names, the content passed through on any other row) 298, Aap6RowKind(4, 4) 15, Aap6RecordRoles(2) 12:
//   2,600;
// - θ's hash, Aap6Theta(4, 4) = HashVector(12): 495;
// - StrictGrounding(8, 2) (circuits/gadgets/grounding.circom), linear in M: 734 = (10 + D + Bm)·M + N + 1 +
//   HashVector(2) 240 + Poseidon(1) 213, with D = countBits(8) = 3 gap bits and Bm = countBits(16) = 4
//   multiplicity bits;
// - the context's square: 1.
it("costs exactly this many constraints (a change in cost is a decision)", () => {
  expect(circuit.constraints).toBe(5082 + 8 * (298 + 15 + 12) + 495 + 734 + 1);
  expect(circuit.constraints).toBe(8912);
});

// ---- The random differential. ----

const PATHS = ["a.txt", "A.txt", "b.txt", "c.txt"];
const TOOLS = {
  list: "list_files",
  read: "read_file",
  del: "delete_file",
  user: "user_message",
  // Observes a path too, but θ names it neither way: it must neither ground nor violate.
  archive: "archive_file",
} as const;

function profileFor(how: "exact" | "fold"): EncodingProfile {
  const fact = (from: "args" | "result", path: string, pattern?: string) => ({
    observe: { fact: "path", from, path, normalise: how, ...(pattern ? { pattern } : {}) },
  });
  return parseProfile({
    version: 1,
    tools: {
      [TOOLS.list]: fact("result", "$.files[*]"),
      [TOOLS.read]: fact("args", "$.path"),
      [TOOLS.del]: fact("args", "$.path"),
      // The user names files in prose: "file <name>" (at most two, the fact's max).
      [TOOLS.user]: fact("args", "$.text", "file (\\S+\\.txt)"),
      [TOOLS.archive]: fact("args", "$.path"),
    },
  });
}

function thetaFor(how: "exact" | "fold"): Aap6Theta {
  return aap6Grounding.parseTheta({
    consequential: { [TOOLS.del]: "path" },
    sources: { [TOOLS.list]: "path", [TOOLS.read]: "path", [TOOLS.user]: "path" },
    normalise: how,
  });
}

const path = fc.constantFrom(...PATHS);
// A call's fate: ran and returned, ran and failed (executed: still checked), or refused (not executed).
const fate = fc.constantFrom("ok", "ok", "ok", "error", "blocked");
const stepArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ tool: fc.constant(TOOLS.list), files: fc.array(path, { maxLength: 2 }), fate }),
  },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant(TOOLS.read), path, fate }) },
  {
    weight: 4,
    arbitrary: fc.record({
      tool: fc.constant(TOOLS.del),
      path: fc.option(path, { nil: undefined }),
      fate,
      // Most deletes name a path an earlier source call showed (whether or not it succeeded), so that
      // satisfied traces with deletes, and ones decided by a failed or blocked read, are drawn often.
      echo: fc.nat(4),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ tool: fc.constant(TOOLS.user), files: fc.array(path, { maxLength: 2 }) }),
  },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant(TOOLS.archive), path, fate }) },
  { weight: 1, arbitrary: fc.record({ grant: path }) },
  { weight: 1, arbitrary: fc.record({ authorize: fc.constant(true) }) },
);
type Step = {
  tool?: string;
  grant?: string;
  authorize?: boolean;
  files?: string[];
  path?: string;
  fate?: string;
  echo?: number;
};

function toRecords(steps: readonly Step[]): TraceRecord[] {
  const shown: string[] = [];
  return steps.map((s, seq): TraceRecord => {
    if (s.grant !== undefined) return { kind: "grant", seq, ts: seq, namespace: "recipient", value: s.grant };
    if (s.authorize) {
      return {
        kind: "authorization",
        seq,
        ts: seq,
        actionId: `act-${seq}`,
        tool: TOOLS.del,
        argsHash: `0x${"ab".repeat(32)}`,
        decision: "allow",
        authority: "human",
        scope: "once",
      };
    }
    const tool = s.tool!;
    if (tool === TOOLS.list || tool === TOOLS.user) shown.push(...s.files!);
    if (tool === TOOLS.read && s.path !== undefined) shown.push(s.path);
    if (tool === TOOLS.user) {
      const text = `hello${s.files!.map((f) => ` please remove file ${f}`).join(" and")}`;
      return { kind: "call", seq, ts: seq, tool, args: { text }, result: null };
    }
    const echoed = tool === TOOLS.del && s.echo! < 3 && shown.length > 0;
    const target = echoed && s.path !== undefined ? shown[(seq + s.echo!) % shown.length] : s.path;
    const args: CallRecord["args"] =
      tool === TOOLS.list ? { dir: "." } : target === undefined ? {} : { path: target };
    const record: CallRecord = { kind: "call", seq, ts: seq, tool, args };
    if (s.fate === "blocked") record.blocked = true;
    else if (s.fate === "error") record.error = "failed";
    else record.result = tool === TOOLS.list ? { files: s.files! } : "done";
    return record;
  });
}

const traceArb = fc.oneof(
  { weight: 1, arbitrary: fc.array(stepArb, { maxLength: 7 }) },
  { weight: 3, arbitrary: fc.array(stepArb, { minLength: 4, maxLength: 7 }) },
);

describe("circuit = oracle on random traces", () => {
  it(
    `agrees on ${PROPERTY_RUNS} random traces of 0..7 records, exact and fold, with random checkpoints`,
    async () => {
      let violated = 0;
      let groundedDeletes = 0;
      await fc.assert(
        // An 8-record circuit folds checkpointSlots(8) = 2 entries.
        fc.asyncProperty(
          traceArb,
          fc.constantFrom("exact" as const, "fold" as const),
          fc.array(fc.nat(7), { maxLength: 2 }),
          async (steps, how, cps) => {
            const records = toRecords(steps as Step[]);
            const at = [
              ...new Set(
                cps.map((x) => (records.length ? 1 + (x % records.length) : 0)).filter((x) => x > 0),
              ),
            ].sort((a, b) => a - b);
            const { input: honest, verdict } = input(records, profileFor(how), thetaFor(how), at);
            const w = await expectVerdict(circuit, honest, verdict.violated);
            expect(circuit.firstUnsatisfied(w)).toBe(-1);
            if (verdict.violated) violated++;
            else if (
              records.some((r) => r.kind === "call" && r.tool === TOOLS.del && !r.blocked && r.args.path)
            )
              groundedDeletes++;
          },
        ),
        propertyParams(),
      );
      // Both verdicts are drawn often enough that agreeing on each says something.
      expect(violated).toBeGreaterThanOrEqual(atLeast(60));
      expect(groundedDeletes).toBeGreaterThanOrEqual(atLeast(30));
    },
    PROPERTY_TIMEOUT_MS,
  );
});

// ---- A row's two readings: observed (θ names its tool) or whole (it does not). ----

describe("a row of a fact-observing tool θ does not name", () => {
  const profile = profileFor("exact");
  const theta = thetaFor("exact");
  const records: TraceRecord[] = [
    { kind: "call", seq: 0, ts: 0, tool: TOOLS.archive, args: { path: "a.txt" }, result: "archived" },
    { kind: "call", seq: 1, ts: 1, tool: TOOLS.read, args: { path: "b.txt" }, result: "text" },
    { kind: "call", seq: 2, ts: 2, tool: TOOLS.del, args: { path: "b.txt" }, result: "deleted" },
    { kind: "call", seq: 3, ts: 3, tool: TOOLS.archive, args: { path: "c.txt" }, result: "archived" },
    { kind: "call", seq: 4, ts: 4, tool: TOOLS.del, args: { path: "a.txt" }, result: "deleted" },
  ];

  it("is read whole (its content input is its digest) and neither grounds nor violates", async () => {
    const encoded = encodeTrace(records, profile, SECRET);
    // The encoder binds the observations of every call of a tool that observes a fact, named or not.
    expect(encoded[0]!.observed).toBe(true);
    expect(encoded[0]!.digest).not.toBe(encoded[0]!.content);

    // Without the last delete: archive_file's unchecked c.txt violates nothing.
    const head = input(records.slice(0, 4), profile, theta);
    expect(head.verdict.violated).toBe(false);
    const content = head.input.content as string[];
    for (const seq of [0, 3]) expect(content[seq]).toBe(String(encoded[seq]!.digest));
    // A named row gives its content: the circuit recomputes the digest from status, observations and it.
    expect(content[1]).toBe(String(encoded[1]!.content));
    await expectVerdict(circuit, head.input, false);

    // The last delete names a.txt, which only archive_file observed: archiving grounds nothing.
    const whole = input(records, profile, theta);
    expect(whole.verdict).toMatchObject({ violated: true, seq: 4 });
    await expectVerdict(circuit, whole.input, true);
  });

  it("a θ naming a tool that observes nothing is refused by checkProfile, and has no witness", async () => {
    // rename_file observes nothing; θ calls it a source anyway.
    const bare = parseProfile({ ...profile, tools: { ...profile.tools, rename_file: { path: "path" } } });
    const named = aap6Grounding.parseTheta({
      consequential: { [TOOLS.del]: "path" },
      sources: { [TOOLS.read]: "path", rename_file: "path" },
    });
    const trace: TraceRecord[] = [
      { kind: "call", seq: 0, ts: 0, tool: TOOLS.read, args: { path: "a.txt" }, result: "text" },
      { kind: "call", seq: 1, ts: 1, tool: "rename_file", args: { path: "a.txt" }, result: "renamed" },
      { kind: "call", seq: 2, ts: 2, tool: TOOLS.del, args: { path: "a.txt" }, result: "deleted" },
    ];
    expect(() => aap6Grounding.checkProfile(named, bare)).toThrow(ThetaError);
    expect(() => aap6Grounding.checkProfile(named, bare)).toThrow(/rename_file observes no fact/);
    expect(() => input(trace, bare, named)).toThrow(/rename_file observes no fact/);

    // Past the check: the circuit reads rename_file's row as observed and recomputes a digest its leaf
    // does not bind (the encoder took the content whole), so the final root cannot match, either outcome.
    const unchecked = { ...aap6Grounding, checkProfile: () => {} };
    const { input: forced, verdict } = input(trace, bare, named, [], unchecked);
    expect(verdict.violated).toBe(false);
    expect(await witnessFails(circuit, forced)).toBe(true);
    expect(await witnessFails(circuit, { ...forced, outcome: "1" })).toBe(true);
    // The same trace without the unobserving tool's call proves: the refusal is that row's, nothing else.
    const without = input(
      trace.filter((r) => r.seq !== 1).map((r, seq) => ({ ...r, seq, ts: seq })),
      bare,
      named,
      [],
      unchecked,
    );
    await expectVerdict(circuit, without.input, false);
  });
});
