// AAP-4: the TS oracle against the reference implementation's recorded verdicts,
// and the circuit against the oracle (fixtures and random traces), plus the
// binding checks of the trace commitment inside the full circuit.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeRecord } from "../../sdk/encoding.js";
import { prefixCommitment } from "../../sdk/merkle.js";
import { aap4Recipients, type Aap4Theta } from "../../sdk/predicates/aap4-recipients.js";
import type { EncodingProfile } from "../../sdk/profile.js";
import type { TraceRecord } from "../../sdk/records.js";
import { claimInput, type Checkpoint } from "../../prover/witness.js";
import { agentDojoCases } from "../helpers/agentdojo.js";
import { compileInstance, instance } from "../helpers/instance.js";
import { forge, signalsMatching, witnessFails, type TestCircuit } from "../helpers/circuit.js";

const INSTANCE = instance("aap4_n16");
const SHAPE = { depth: INSTANCE.params.depth, checkpoints: INSTANCE.params.checkpoints };
const SECRET = 0x5eedn;
const CONTEXT = 777n;

function checkpointsOf(records: readonly TraceRecord[], profile: EncodingProfile, at: number[]): Checkpoint[] {
  const leaves = records.map((r) => encodeRecord(r, profile, SECRET).leaf);
  return at.map((n) => ({ n, root: prefixCommitment(leaves, n) }));
}

function input(records: readonly TraceRecord[], profile: EncodingProfile, theta: Aap4Theta, at: number[] = []) {
  return claimInput({
    records,
    profile,
    sessionSecret: SECRET,
    checkpoints: checkpointsOf(records, profile, at),
    predicate: aap4Recipients,
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
  expect(INSTANCE.params.tools).toBe(aap4Recipients.caps.tools);
  expect(INSTANCE.params.allowlist).toBe(aap4Recipients.caps.allowlist);
});

it("costs exactly this many constraints (a change in cost is a decision)", () => {
  expect(circuit.constraints).toBe(17354);
});

describe("AgentDojo runs from the reference implementation", () => {
  const cases = agentDojoCases();

  it("covers all 36 recorded (run, promise) verdicts", () => {
    expect(cases.flatMap((c) => c.pairs)).toHaveLength(36);
  });

  for (const c of cases) {
    for (const pair of c.pairs) {
      it(`${c.caseId.slice(0, 13)} ${pair.promiseId}: oracle and circuit give VAI's verdict`, async () => {
        const verdict = aap4Recipients.evaluate(c.trace.records, pair.theta, c.profile);
        expect(verdict.violated).toBe(pair.expected.violated);
        expect(verdict.seq === null ? null : c.trace.vaiSeq[verdict.seq]).toBe(pair.expected.seq);
        expect(verdict.reason).toBe(pair.expected.reason);

        const n = c.trace.records.length;
        const { input: honest } = input(c.trace.records, c.profile, pair.theta, n > 0 ? [Math.ceil(n / 2), n] : []);
        const w = await circuit.witness(honest);
        expect(circuit.firstUnsatisfied(w)).toBe(-1);
        const flipped = { ...honest, outcome: verdict.violated ? "0" : "1" };
        expect(await witnessFails(circuit, flipped)).toBe(true);
      });
    }
  }
});

const ALLOWED = ["alice@corp.example", "bob@corp.example", "carol@corp.example"];
const OTHERS = ["mallory@evil.example", "eve@evil.example", "alice@corp.example.evil"];
const PROFILE: EncodingProfile = {
  version: 1,
  tools: { send_email: { target: "to" }, share_file: { target: "email" }, read_inbox: {}, post: { target: "to" } },
};
const THETA: Aap4Theta = { outboundTools: ["send_email", "share_file"], allowlist: ALLOWED };

const recipient = fc.constantFrom(...ALLOWED, ...OTHERS);
const targetArg = fc.oneof(
  recipient,
  fc.array(recipient, { minLength: 0, maxLength: 2 }),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(42),
);
const recordArb = fc.oneof(
  fc.record({
    kind: fc.constant("call" as const),
    tool: fc.constantFrom("send_email", "share_file", "read_inbox", "post"),
    target: targetArg,
    blocked: fc.boolean(),
  }),
  fc.record({ kind: fc.constantFrom("grant" as const, "revoke" as const), value: recipient }),
);
const traceArb = fc.array(recordArb, { minLength: 0, maxLength: 16 }).map((list) =>
  list.map((r, seq): TraceRecord => {
    if (r.kind !== "call") return { kind: r.kind, seq, ts: seq, namespace: "recipient", value: r.value };
    const key = r.tool === "share_file" ? "email" : "to";
    const args = r.target === undefined ? { subject: "hi" } : { [key]: r.target, subject: "hi" };
    return { kind: "call", seq, ts: seq, tool: r.tool, args, ...(r.blocked ? { blocked: true } : {}) };
  }),
);

describe("circuit = oracle on random traces", () => {
  it("agrees on 120 random traces of 0..16 records, with random checkpoints", async () => {
    await fc.assert(
      fc.asyncProperty(traceArb, fc.array(fc.nat(16), { maxLength: 4 }), async (records, cps) => {
        const at = [...new Set(cps.map((x) => (records.length ? 1 + (x % records.length) : 0)).filter((x) => x > 0))].sort(
          (a, b) => a - b,
        );
        const { input: honest, verdict } = input(records, PROFILE, THETA, at);
        const w = await circuit.witness(honest);
        expect(w[circuit.signals.get("outcome")!]).toBe(verdict.violated ? 1n : 0n);
        expect(await witnessFails(circuit, { ...honest, outcome: verdict.violated ? "0" : "1" })).toBe(true);
      }),
      { numRuns: 120 },
    );
  });
});

describe("binding inside the full circuit", () => {
  const records: TraceRecord[] = [
    { kind: "call", seq: 0, ts: 0, tool: "read_inbox", args: {} },
    { kind: "call", seq: 1, ts: 1, tool: "send_email", args: { to: "alice@corp.example" } },
    { kind: "call", seq: 2, ts: 2, tool: "send_email", args: { to: ["bob@corp.example", "mallory@evil.example"] } },
    { kind: "call", seq: 3, ts: 3, tool: "read_inbox", args: {} },
    { kind: "call", seq: 4, ts: 4, tool: "post", args: { to: "anyone" } },
  ];

  it("a trace altered after a checkpoint cannot be proven against it", async () => {
    const { input: honest } = input(records, PROFILE, THETA, [2, 4]);
    expect(circuit.firstUnsatisfied(await circuit.witness(honest))).toBe(-1);
    // Rewrite record 1 (inside the first checkpoint) to hide nothing in particular:
    // the new slots change the leaf, so the checkpoint roots no longer match.
    const altered = records.map((r) => (r.seq === 1 ? { ...r, args: { to: "bob@corp.example" } } : r));
    const { input: forgedTrace } = input(altered, PROFILE, THETA, []);
    const mixed = { ...forgedTrace, cpN: honest.cpN, cpRoot: honest.cpRoot, cpActive: honest.cpActive, checkpointAcc: honest.checkpointAcc };
    expect(await witnessFails(circuit, mixed)).toBe(true);
  });

  it("refuses a checkpoint beyond n, a gap in the checkpoint list, and a wrong accumulator", async () => {
    const { input: honest } = input(records, PROFILE, THETA, [2, 4]);
    const short = input(records.slice(0, 3), PROFILE, THETA, []).input;
    // Truncating the trace below a checkpoint (hiding records 3 and 4):
    expect(await witnessFails(circuit, { ...short, cpN: honest.cpN, cpRoot: honest.cpRoot, cpActive: honest.cpActive, checkpointAcc: honest.checkpointAcc })).toBe(true);
    expect(await witnessFails(circuit, { ...honest, cpActive: ["1", "0", "1", "0"] })).toBe(true);
    expect(await witnessFails(circuit, { ...honest, checkpointAcc: "1" })).toBe(true);
    expect(await witnessFails(circuit, { ...honest, n: "4" })).toBe(true);
    expect(await witnessFails(circuit, { ...honest, paramsHash: "5" })).toBe(true);
  });

  it("forged internal signals (mask, leaves, violations, checkpoint fold) break a constraint", async () => {
    const { input: honest } = input(records, PROFILE, THETA, [2, 4]);
    const w = await circuit.witness(honest);
    const targets = [
      ...signalsMatching(circuit, /^trace\.active\[(4|5)\]$/),
      ...signalsMatching(circuit, /^trace\.leaf\[(0|4)\]\.leaf$/),
      ...signalsMatching(circuit, /^violations\[(1|2)\]$/),
      ...signalsMatching(circuit, /^record\[2\]\.(off|offAny|outbound)/),
      ...signalsMatching(circuit, /^trace\.checkpoints\.(chain|folded|rootDiff)\[1\]$/),
    ];
    expect(targets.length).toBeGreaterThanOrEqual(8);
    for (const name of targets) {
      const value = w[circuit.signals.get(name)!];
      expect(circuit.firstUnsatisfied(forge(circuit, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
      expect(circuit.firstUnsatisfied(forge(circuit, w, name, 1n - value)), name).toBeGreaterThanOrEqual(0);
    }
  });
});
