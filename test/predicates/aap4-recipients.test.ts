// AAP-4: the TS oracle against the reference implementation's recorded verdicts,
// and the circuit against the oracle (fixtures and random traces with recipient
// grants and revokes), plus the binding checks of the trace commitment and forged
// witnesses on the active-at state inside the full circuit.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { callTargets, chainHead, encodeTrace } from "../../sdk/core/encoding.js";
import { aap4Recipients, type Aap4Theta } from "../../sdk/core/predicates/aap4/definition.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { claimInput, shapeOf, WitnessError, type Checkpoint } from "../../prover/witness.js";
import { agentDojoCases } from "../helpers/agentdojo.js";
import { compileInstance, instance } from "../helpers/instance.js";
import {
  forge,
  signalsMatching,
  witnessFails,
  type TestCircuit,
  expectVerdict,
  PROPERTY_TIMEOUT_MS,
  PROPERTY_RUNS,
  propertyParams,
  atLeast,
} from "../helpers/circuit.js";

const INSTANCE = instance("aap4_n16");
const SHAPE = shapeOf(INSTANCE.params);
// The random differential runs on the 8-record instance: same template, half the witness time.
const SMALL = instance("aap4_n8");
const SMALL_SHAPE = shapeOf(SMALL.params);
const SECRET = 0x5eedn;
const CONTEXT = 777n;

function checkpointsOf(
  records: readonly TraceRecord[],
  profile: EncodingProfile,
  at: number[],
): Checkpoint[] {
  const leaves = encodeTrace(records, profile, SECRET).map((r) => r.leaf);
  return at.map((n) => ({ n, root: chainHead(leaves, n) }));
}

function input(
  records: readonly TraceRecord[],
  profile: EncodingProfile,
  theta: Aap4Theta,
  at: number[] = [],
  shape = SHAPE,
) {
  return claimInput({
    records,
    profile,
    sessionSecret: SECRET,
    checkpoints: checkpointsOf(records, profile, at),
    predicate: aap4Recipients,
    theta,
    context: CONTEXT,
    shape,
  });
}

let circuit: TestCircuit;
let small: TestCircuit;
beforeAll(async () => {
  circuit = await compileInstance(INSTANCE.name);
  small = await compileInstance(SMALL.name);
});

it("the instances' θ sizes are the predicate's", () => {
  for (const inst of [INSTANCE, SMALL]) {
    expect(inst.params.tools, inst.name).toBe(aap4Recipients.caps.tools);
    expect(inst.params.allowlist, inst.name).toBe(aap4Recipients.caps.allowlist);
  }
});

// Grants and revokes (SetEvents, 9 per record) raised the cost from 17,354 (n16) and 10,658 (n8) to
// 18,218 and 10,898 with a scan of 3 per earlier record per target; the event log (3E + 3 per record,
// and 4E per target, E = 8 slots) replaced the scan: + N(3E + 3) + 8EN − 3N(N − 1), linear in N.
// Protocol v2 (docs/PROTOCOL.md): a chained leaf over the record digest (+15 per record) and
// checkpointSlots(N) entries checked by the lookup instead of 4 prefix commitments.
it("costs exactly this many constraints (a change in cost is a decision)", () => {
  expect(circuit.constraints).toBe(12604); // v1: 14,720
  expect(small.constraints).toBe(7542); // v1: 9,949
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
        const { input: honest } = input(
          c.trace.records,
          c.profile,
          pair.theta,
          n > 0 ? [Math.ceil(n / 2), n] : [],
        );
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
  tools: {
    send_email: { target: "to" },
    share_file: { target: "email" },
    read_inbox: {},
    post: { target: "to" },
  },
};
const THETA: Aap4Theta = { outboundTools: ["send_email", "share_file"], allowlist: ALLOWED };

// Small pools, and grants steered to off-list values and revokes to listed ones, so
// that a fair share of calls is decided by a grant or revoke before it.
const recipient = fc.constantFrom(ALLOWED[0], ALLOWED[1], OTHERS[0], OTHERS[2]);
const targetArg = fc.oneof(
  { weight: 6, arbitrary: recipient },
  { weight: 3, arbitrary: fc.array(recipient, { minLength: 0, maxLength: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, 42) },
);
const recordArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("call" as const),
      tool: fc.constantFrom("send_email", "share_file", "send_email", "read_inbox", "post"),
      target: targetArg,
      blocked: fc.constantFrom(false, false, false, true),
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        kind: fc.constantFrom("grant" as const, "revoke" as const),
        namespace: fc.constantFrom(
          "recipient" as const,
          "recipient" as const,
          "recipient" as const,
          "scope" as const,
        ),
        value: recipient,
        steer: fc.nat(3),
      })
      .map(({ steer, ...r }) =>
        steer === 0
          ? r
          : {
              ...r,
              value: (r.kind === "grant"
                ? [OTHERS[0], OTHERS[2], OTHERS[0]]
                : [ALLOWED[0], ALLOWED[1], ALLOWED[0]])[steer - 1],
            },
      ),
  },
);
const traceArb = fc
  .oneof(
    { weight: 1, arbitrary: fc.array(recordArb, { maxLength: 8 }) },
    { weight: 3, arbitrary: fc.array(recordArb, { minLength: 5, maxLength: 8 }) },
  )
  .map((list) =>
    list.map((r, seq): TraceRecord => {
      if (r.kind !== "call") {
        // A scope grant's value must be a path prefix; its slot can never equal a recipient's.
        const value = r.namespace === "scope" ? `/${r.value}` : r.value;
        return { kind: r.kind, seq, ts: seq, namespace: r.namespace, value };
      }
      const key = r.tool === "share_file" ? "email" : "to";
      const args = r.target === undefined ? { subject: "hi" } : { [key]: r.target, subject: "hi" };
      return { kind: "call", seq, ts: seq, tool: r.tool, args, ...(r.blocked ? { blocked: true } : {}) };
    }),
  );

/** Whether some checked recipient's status differs from the static allowlist's at its call. */
function decidedByGrants(records: readonly TraceRecord[]): boolean {
  const allowed = new Set(THETA.allowlist);
  for (const r of records) {
    if (r.kind === "grant" || r.kind === "revoke") {
      if (r.namespace === "recipient") {
        if (r.kind === "grant") allowed.add(r.value);
        else allowed.delete(r.value);
      }
    } else if (r.kind === "call" && !r.blocked && THETA.outboundTools.includes(r.tool)) {
      if (callTargets(r, PROFILE).some((t) => allowed.has(t) !== THETA.allowlist.includes(t))) return true;
    }
  }
  return false;
}

describe("circuit = oracle on random traces", () => {
  it(
    `agrees on ${PROPERTY_RUNS} random traces of 0..8 records with grants and revokes, with random checkpoints`,
    async () => {
      let grantsMatter = 0;
      await fc.assert(
        // An 8-record circuit folds checkpointSlots(8) = 2 entries.
        fc.asyncProperty(traceArb, fc.array(fc.nat(8), { maxLength: 2 }), async (records, cps) => {
          const at = [
            ...new Set(cps.map((x) => (records.length ? 1 + (x % records.length) : 0)).filter((x) => x > 0)),
          ].sort((a, b) => a - b);
          const { input: honest, verdict } = input(records, PROFILE, THETA, at, SMALL_SHAPE);
          await expectVerdict(small, honest, verdict.violated);
          if (decidedByGrants(records)) grantsMatter++;
        }),
        propertyParams(),
      );
      // Coverage: in enough traces a grant or revoke changed whether some recipient was allowed.
      expect(grantsMatter).toBeGreaterThanOrEqual(atLeast(25));
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe("event capacity", () => {
  // aap4_n16 holds 8 recipient grants/revokes among its 16 records.
  const events = (count: number): TraceRecord[] =>
    Array.from({ length: count }, (_, seq) => ({
      kind: seq % 2 ? "revoke" : "grant",
      seq,
      ts: seq,
      namespace: "recipient",
      value: `r${seq}@corp.example`,
    })) as TraceRecord[];
  const send: TraceRecord = {
    kind: "call",
    seq: 9,
    ts: 9,
    tool: "send_email",
    args: { to: "r0@corp.example" },
  };

  it("proves a trace with exactly as many events as slots", async () => {
    expect(SHAPE.events).toBe(8);
    const { input: honest, verdict } = input([...events(8), { ...send, seq: 8 }], PROFILE, THETA);
    // r0 was granted by the first event; the seven after it fill the slots without touching it.
    expect(verdict.violated).toBe(false);
    await expectVerdict(circuit, honest, verdict.violated);
  });

  it("refuses one event more, with the reason, and the circuit has no witness for it", async () => {
    const trace = [...events(9), send];
    expect(() => input(trace, PROFILE, THETA)).toThrow(WitnessError);
    expect(() => input(trace, PROFILE, THETA)).toThrow(
      /9 recipient grant\/revoke records exceed this circuit's 8 event slots/,
    );
    // Past the TS check (a shape without the limit), the constraints refuse it too.
    const unchecked = input(trace, PROFILE, THETA, [], { ...SHAPE, events: undefined }).input;
    expect(await witnessFails(circuit, unchecked)).toBe(true);
  });

  it("counts only recipient events: scope grants take no slot", async () => {
    const scope = events(12).map((r) => ({ ...r, namespace: "scope", value: `/s${r.seq}` })) as TraceRecord[];
    const { input: honest, verdict } = input([...scope, { ...send, seq: 12 }], PROFILE, THETA);
    await expectVerdict(circuit, honest, verdict.violated);
  });
});

describe("binding inside the full circuit", () => {
  const records: TraceRecord[] = [
    { kind: "call", seq: 0, ts: 0, tool: "read_inbox", args: {} },
    { kind: "call", seq: 1, ts: 1, tool: "send_email", args: { to: "alice@corp.example" } },
    {
      kind: "call",
      seq: 2,
      ts: 2,
      tool: "send_email",
      args: { to: ["bob@corp.example", "mallory@evil.example"] },
    },
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
    const mixed = {
      ...forgedTrace,
      cpN: honest.cpN,
      cpRoot: honest.cpRoot,
      cpActive: honest.cpActive,
      checkpointAcc: honest.checkpointAcc,
    };
    expect(await witnessFails(circuit, mixed)).toBe(true);
  });

  it("refuses a checkpoint beyond n, a gap in the checkpoint list, and a wrong accumulator", async () => {
    const { input: honest } = input(records, PROFILE, THETA, [2, 4]);
    const short = input(records.slice(0, 3), PROFILE, THETA, []).input;
    // Truncating the trace below a checkpoint (hiding records 3 and 4):
    expect(
      await witnessFails(circuit, {
        ...short,
        cpN: honest.cpN,
        cpRoot: honest.cpRoot,
        cpActive: honest.cpActive,
        checkpointAcc: honest.checkpointAcc,
      }),
    ).toBe(true);
    expect(await witnessFails(circuit, { ...honest, cpActive: ["1", "0", "1", "0"] })).toBe(true);
    expect(await witnessFails(circuit, { ...honest, checkpointAcc: "1" })).toBe(true);
    expect(await witnessFails(circuit, { ...honest, n: "4" })).toBe(true);
    expect(await witnessFails(circuit, { ...honest, paramsHash: "5" })).toBe(true);
  });

  it("forged internal signals (mask, leaves, violations, checkpoint fold, active-at state) break a constraint", async () => {
    // Record 1 sends to a granted recipient, record 3 to one revoked at 2 (violates).
    const granted: TraceRecord[] = [
      { kind: "grant", seq: 0, ts: 0, namespace: "recipient", value: "dave@corp.example" },
      {
        kind: "call",
        seq: 1,
        ts: 1,
        tool: "send_email",
        args: { to: ["dave@corp.example", "alice@corp.example"] },
      },
      { kind: "revoke", seq: 2, ts: 2, namespace: "recipient", value: "alice@corp.example" },
      { kind: "call", seq: 3, ts: 3, tool: "send_email", args: { to: "alice@corp.example" } },
    ];
    for (const trace of [records, granted]) {
      const { input: honest } = input(trace, PROFILE, THETA, [2, 4]);
      const w = await circuit.witness(honest);
      expect(circuit.firstUnsatisfied(w)).toBe(-1);
      const targets = [
        ...signalsMatching(circuit, /^trace\.active\[(4|5)\]$/),
        ...signalsMatching(circuit, /^trace\.leaf\[(0|4)\]\.leaf$/),
        ...signalsMatching(circuit, /^violations\[[1-3]\]$/),
        ...signalsMatching(circuit, /^record\[[1-3]\]\.(offAny|outbound|violated)$/),
        ...signalsMatching(
          circuit,
          /^record\[(1|3)\]\.listed\[[01]\]\.(scan\.(state\[[0-3]\]|hit\[[0-2]\]|same\[[0-2]\])|out|absent)$/,
        ),
        ...signalsMatching(circuit, /^events\.(event|grant|change)\[[0-3]\]$/),
        ...signalsMatching(circuit, /^eventLog\.(slotValue|slotGrant)\[[0-3]\]\[[0-2]\]$/),
        ...signalsMatching(circuit, /^trace\.checkpoints\.(chain|folded|rootDiff)\[1\]$/),
      ];
      expect(targets.length).toBeGreaterThanOrEqual(30);
      for (const name of targets) {
        const value = w[circuit.signals.get(name)!];
        expect(circuit.firstUnsatisfied(forge(circuit, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
        expect(circuit.firstUnsatisfied(forge(circuit, w, name, 1n - value)), name).toBeGreaterThanOrEqual(0);
      }
    }
  });
});
