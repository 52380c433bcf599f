// AAP-1: θ parsing, the circuit's cost, circuit = oracle on random traces (the
// flipped outcome has no witness), forged witnesses against the cross-record scan,
// and edge witnesses the TS record model cannot express.
import fc from "fast-check";
import { keccak256, toBytes } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, type Json } from "../../sdk/core/canonical.js";
import { chainHead, encodeTrace, KIND } from "../../sdk/core/encoding.js";
import { FIELD_MODULUS, stringToField } from "../../sdk/core/hash.js";
import { aap1Authorization, type Aap1Theta } from "../../sdk/core/predicates/aap1/definition.js";
import { ThetaError } from "../../sdk/core/predicates/index.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { AUTHORITIES, DECISIONS, SCOPES, parseRecord, type TraceRecord } from "../../sdk/core/records.js";
import { claimInput, type Checkpoint, type CircuitInput } from "../../prover/witness.js";
import { rawSlotsInput } from "../helpers/inputs.js";
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

const INSTANCE = instance("aap1_n8");
const SHAPE = { depth: INSTANCE.params.depth, checkpoints: INSTANCE.params.checkpoints };
const SECRET = 0xa11n;
const CONTEXT = 4242n;
const PROFILE: EncodingProfile = { version: 1, tools: { delete_file: {}, exec: {}, read_file: {} } };
const THETA: Aap1Theta = { gatedTools: ["delete_file", "exec"], acceptedAuthorities: ["human", "policy"] };

const argsHash = (args: { [k: string]: Json }) => keccak256(toBytes(canonicalJson(args)));

function checkpointsOf(records: readonly TraceRecord[], at: number[]): Checkpoint[] {
  const leaves = encodeTrace(records, PROFILE, SECRET).map((r) => r.leaf);
  return at.map((n) => ({ n, root: chainHead(leaves, n) }));
}

function input(records: readonly TraceRecord[], theta: Aap1Theta = THETA, at: number[] = []) {
  return claimInput({
    records,
    profile: PROFILE,
    sessionSecret: SECRET,
    checkpoints: checkpointsOf(records, at),
    predicate: aap1Authorization,
    theta,
    context: CONTEXT,
    shape: SHAPE,
  });
}

/** A full input from hand-made slots (for encodings no TS record produces). */
const rawInput = (slots: bigint[][], outcome: 0 | 1, theta: Aap1Theta = THETA): CircuitInput =>
  rawSlotsInput(aap1Authorization, theta, slots, outcome, { secret: SECRET, context: CONTEXT, shape: SHAPE });

let circuit: TestCircuit;
beforeAll(async () => {
  circuit = await compileInstance(INSTANCE.name);
});

describe("θ", () => {
  const parse = (x: unknown) => aap1Authorization.parseTheta(x);

  it("the instance's θ sizes are the predicate's", () => {
    expect(INSTANCE.params.tools).toBe(aap1Authorization.caps.tools);
    expect(INSTANCE.params.authorities).toBe(aap1Authorization.caps.authorities);
    expect(INSTANCE.args).toEqual([
      INSTANCE.params.depth,
      INSTANCE.params.checkpoints,
      INSTANCE.params.tools,
    ]);
  });

  it("reads this project's names and VAI's, sorted and deduplicated; defaults to VAI's authorities", () => {
    expect(parse({ gatedTools: ["b", "a", "b"], acceptedAuthorities: ["auto_review", "human"] })).toEqual({
      gatedTools: ["a", "b"],
      acceptedAuthorities: ["human", "auto_review"],
    });
    expect(parse({ destructive_tools: ["exec"], authorization_mode: "invocation" })).toEqual({
      gatedTools: ["exec"],
      acceptedAuthorities: ["human", "policy"],
    });
    expect(parse({ gatedTools: ["exec"], authorization_mode: "invocation" }).acceptedAuthorities).toEqual([
      "human",
      "policy",
    ]);
  });

  it("refuses what it cannot mean, with clear errors", () => {
    expect(() => parse({ destructive_tools: ["exec"] })).toThrow(/authorization_mode is missing.*legacy/);
    expect(() => parse({ destructive_tools: ["exec"], authorization_mode: "legacy" })).toThrow(
      /"legacy" is not supported/,
    );
    expect(() =>
      parse({ gatedTools: ["a"], destructive_tools: ["a"], authorization_mode: "invocation" }),
    ).toThrow(/not both/);
    expect(() => parse({ gatedTools: [] })).toThrow(/no gated tools/);
    expect(() => parse({ gatedTools: ["a", "b", "c", "d", "e"] })).toThrow(/circuits hold 4/);
    expect(() => parse({ gatedTools: ["a"], acceptedAuthorities: ["root"] })).toThrow(/root is not one of/);
    expect(() => parse({ gatedTools: "a" })).toThrow(ThetaError);
  });

  it("encodes θ as [1, 4, 3, tools padded with 0, human, policy, auto_review]", () => {
    expect(aap1Authorization.thetaVector({ gatedTools: ["exec"], acceptedAuthorities: ["policy"] })).toEqual([
      1n,
      4n,
      3n,
      stringToField("exec"),
      0n,
      0n,
      0n,
      0n,
      1n,
      0n,
    ]);
  });
});

// Protocol v2 (docs/PROTOCOL.md): a chained leaf over the record digest (+15 per record) and
// checkpointSlots(N) entries checked by the lookup instead of 4 prefix commitments.
it("costs exactly this many constraints (a change in cost is a decision)", () => {
  // 40 per record and 7 per pair (j < i) in the predicate, the rest is the trace commitment.
  expect(circuit.constraints).toBe(7007); // v1: 9,414
});

describe("circuit = oracle on random traces", () => {
  const ACTIONS = ["a1", "a2", "a3"];
  const GATED = ["delete_file", "exec"];
  const TOOLS = [...GATED, "read_file"];
  const ARGS = [{ path: "/srv/a" }, { path: "/srv/b" }];
  const authFields = {
    decision: fc.constantFrom<(typeof DECISIONS)[number]>(
      "allow",
      "allow",
      "allow",
      "allow",
      "deny",
      "timeout",
    ),
    authority: fc.constantFrom(...AUTHORITIES),
    policyId: fc.boolean(),
    scope: fc.constantFrom(...SCOPES),
  };
  const step = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        type: fc.constant("covered" as const),
        action: fc.constantFrom(...ACTIONS),
        tool: fc.constantFrom(...GATED),
        args: fc.nat(1),
        mutate: fc.constantFrom("none", "none", "none", "none", "args", "tool", "late", "no-action"),
        ...authFields,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        type: fc.constant("auth" as const),
        action: fc.constantFrom(...ACTIONS),
        tool: fc.constantFrom(...GATED),
        args: fc.nat(1),
        ...authFields,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        type: fc.constant("call" as const),
        action: fc.option(fc.constantFrom(...ACTIONS), { nil: undefined }),
        tool: fc.constantFrom(...TOOLS),
        args: fc.nat(1),
        blocked: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ type: "grant" as const }) },
  );
  type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;
  type Raw = Record<string, unknown>;
  const authOf = (s: Extract<Step, { decision: unknown }>): Raw => ({
    kind: "authorization",
    actionId: s.action,
    tool: s.tool,
    argsHash: argsHash(ARGS[s.args]),
    decision: s.decision,
    authority: s.authority,
    scope: s.scope,
    ...(s.policyId ? { policyId: "pol-1" } : {}),
  });
  const expand = (s: Step): Raw[] => {
    switch (s.type) {
      case "grant":
        return [{ kind: "grant", namespace: "recipient", value: "x@y.example" }];
      case "auth":
        return [authOf(s)];
      case "call":
        return [
          {
            kind: "call",
            tool: s.tool,
            args: ARGS[s.args],
            ...(s.action ? { actionId: s.action } : {}),
            ...(s.blocked ? { blocked: true } : {}),
          },
        ];
      case "covered": {
        const call: Raw = {
          kind: "call",
          tool: s.mutate === "tool" ? GATED.find((t) => t !== s.tool)! : s.tool,
          args: ARGS[s.mutate === "args" ? 1 - s.args : s.args],
          ...(s.mutate === "no-action" ? {} : { actionId: s.action }),
        };
        return s.mutate === "late" ? [call, authOf(s)] : [authOf(s), call];
      }
    }
  };
  const traceArb = fc.array(step, { minLength: 0, maxLength: 6 }).map((steps) =>
    steps
      .flatMap(expand)
      .slice(0, 8)
      .map((r, seq) => parseRecord({ ...r, seq, ts: seq })),
  );
  const thetaArb = fc.record({
    gatedTools: fc.subarray(TOOLS, { minLength: 1 }),
    acceptedAuthorities: fc.subarray([...AUTHORITIES]),
  });

  it(
    `agrees on ${PROPERTY_RUNS} random traces of 0..8 records, with random θ and checkpoints`,
    async () => {
      const seen = { violated: 0, satisfied: 0 };
      await fc.assert(
        fc.asyncProperty(
          traceArb,
          thetaArb,
          fc.array(fc.nat(7), { maxLength: 2 }), // an 8-record circuit folds checkpointSlots(8) = 2 entries
          async (records, rawTheta, cps) => {
            const theta = aap1Authorization.parseTheta(rawTheta);
            const at = [
              ...new Set(
                cps.map((x) => (records.length ? 1 + (x % records.length) : 0)).filter((x) => x > 0),
              ),
            ].sort((a, b) => a - b);
            const { input: honest, verdict } = input(records, theta, at);
            seen[verdict.violated ? "violated" : "satisfied"]++;
            await expectVerdict(circuit, honest, verdict.violated);
          },
        ),
        propertyParams(),
      );
      // The generator must exercise both verdicts, not only the easy one.
      expect(seen.violated).toBeGreaterThan(atLeast(60));
      expect(seen.satisfied).toBeGreaterThan(atLeast(60));
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe("forged witnesses against the cross-record scan", () => {
  const X = { path: "/srv/x" };
  const Y = { path: "/srv/y" };
  const CMD = { command: "make clean" };
  const auth = (
    seq: number,
    actionId: string,
    tool: string,
    args: { [k: string]: Json },
    extra = {},
  ): TraceRecord => ({
    kind: "authorization",
    seq,
    ts: seq,
    actionId,
    tool,
    argsHash: argsHash(args),
    decision: "allow",
    authority: "human",
    scope: "once",
    ...extra,
  });
  const call = (seq: number, tool: string, args: { [k: string]: Json }, actionId?: string): TraceRecord => ({
    kind: "call",
    seq,
    ts: seq,
    tool,
    args,
    ...(actionId ? { actionId } : {}),
  });
  // Full capacity; every call is covered, by human, identified policy, and an allow after a deny.
  const satisfied: TraceRecord[] = [
    auth(0, "a1", "delete_file", X),
    auth(1, "a2", "exec", CMD, { authority: "policy", policyId: "pol-1" }),
    call(2, "delete_file", X, "a1"),
    call(3, "read_file", X, "a1"),
    call(4, "exec", CMD, "a2"),
    auth(5, "a3", "delete_file", Y, { decision: "deny" }),
    auth(6, "a3", "delete_file", Y),
    call(7, "delete_file", Y, "a3"),
  ];
  // The same, but the last call's latest authorization is the deny.
  const violated = satisfied.map((r) => (r.seq === 6 ? call(6, "read_file", Y) : r));

  // Signals of the chains: membership, rank and hand-off of records 2, 4, 6 and 7, their
  // state out and tuple fingerprints, the challenges, the verdicts, per-record decodes.
  const scanSignals = () => [
    ...signalsMatching(
      circuit,
      /^aap1\.(auth|member|first|step|covers|validOut|usedOut|coversOut|betaSmallOut|betaSmallIn|tupleOut|tupleIn|fresh|covered|ok)\[(2|4|6|7)\]$/,
    ),
    ...signalsMatching(circuit, /^aap1\.(beta|betaSquared|zeta|states)$/),
    ...signalsMatching(circuit, /^aap1\.(sameCover|noAction|isFirst)\[(2|7)\]\.out$/),
    ...signalsMatching(circuit, /^aap1\.handOffs\.(acc|term)\[(7|15)\]$/),
    ...signalsMatching(
      circuit,
      /^aap1\.record\[(1|6|7)\]\.(isCall|listed|activeCall|code|b\[\d\]|allow|autoReview|noRef|humanOk|policyAccepted|policyOk|autoOk)$/,
    ),
  ];

  for (const [name, trace, expected] of [
    ["satisfied", satisfied, 0n],
    ["violated", violated, 1n],
  ] as const) {
    it(`editing any one of them breaks a constraint (${name} trace)`, async () => {
      const { input: honest, verdict } = input(trace, THETA, [3, 8]);
      expect(verdict.violated ? 1n : 0n).toBe(expected);
      const w = await circuit.witness(honest);
      expect(w[circuit.signals.get("outcome")!]).toBe(expected);
      expect(circuit.firstUnsatisfied(w)).toBe(-1);
      const targets = scanSignals();
      expect(targets.length).toBeGreaterThanOrEqual(60);
      for (const signal of targets) {
        const value = w[circuit.signals.get(signal)!];
        expect(
          circuit.firstUnsatisfied(forge(circuit, w, signal, value + 1n)),
          signal,
        ).toBeGreaterThanOrEqual(0);
        expect(
          circuit.firstUnsatisfied(forge(circuit, w, signal, 1n - value)),
          signal,
        ).toBeGreaterThanOrEqual(0);
      }
    });
  }

  it("the verdict on the last call hangs on exactly the labels the forgeries target", async () => {
    const { input: honest } = input(violated);
    const w = await circuit.witness(honest);
    const at = (s: string) => w[circuit.signals.get(s)!];
    // Record 7's predecessor in a3's chain is the deny at 5: rank 2, state in invalid.
    expect([honest.chainRank, honest.chainPred, honest.chainValidIn].map((l) => (l as string[])[7])).toEqual([
      "2",
      "5",
      "0",
    ]);
    expect([at("aap1.ok[7]"), at("aap1.ok[4]"), at("aap1.ok[2]")]).toEqual([0n, 1n, 1n]);
  });

  // A prover who wants "satisfied" relabels the chains. Each lie keeps whatever it can
  // of the honest input, including a certificate that stays valid where the first
  // members do not change; none has a witness.
  const relabel = (honest: CircuitInput, edits: Record<string, Record<number, string>>): CircuitInput => {
    const out: CircuitInput = { ...honest };
    for (const [field, at] of Object.entries(edits)) {
      const labels = [...(honest[field] as string[])];
      for (const [i, v] of Object.entries(at)) labels[Number(i)] = v;
      out[field] = labels;
    }
    return { ...out, outcome: "0" };
  };

  it("refuses chains split in two: an authorization used twice", async () => {
    // a1 approved, used, approved again and used again: the second use is violated.
    const trace = [
      auth(0, "a1", "delete_file", X),
      call(1, "delete_file", X, "a1"),
      auth(2, "a1", "delete_file", X),
      call(3, "delete_file", X, "a1"),
    ];
    const { input: honest, verdict } = input(trace);
    expect(verdict.violated).toBe(true);
    expect(honest.chainUsedIn!.slice(0, 4)).toEqual(["0", "0", "1", "1"]);
    // Two chains, {0, 1} and {2, 3}: record 2 starts afresh, so 3 sees an unused allow.
    const split = relabel(honest, {
      chainRank: { 2: "1", 3: "2" },
      chainPred: { 2: "0" },
      chainLast: { 1: "1" },
      chainValidIn: { 2: "0" },
      chainUsedIn: { 2: "0", 3: "0" },
      chainCoversIn: { 2: "0" },
    });
    expect(await witnessFails(circuit, split)).toBe(true);
  });

  it("refuses a chain out of record order: an approval after the call", async () => {
    const trace = [call(0, "delete_file", X, "a1"), auth(1, "a1", "delete_file", X)];
    const { input: honest, verdict } = input(trace);
    expect(verdict.violated).toBe(true);
    const h = honest.chainCoversIn as string[];
    // The authorization ranked first, the call second with pred 1 > 0: the same first
    // action, so the honest certificate still holds; the order check does not.
    const late = relabel(honest, {
      chainRank: { 0: "2", 1: "1" },
      chainPred: { 0: "1" },
      chainLast: { 0: "1", 1: "0" },
      chainValidIn: { 0: "1" },
      chainCoversIn: { 0: coversOf(honest, 1) },
    });
    expect(h[0]).toBe("0");
    expect(await witnessFails(circuit, late)).toBe(true);
  });

  it("refuses a state handed over wrong: an allow claimed where the latest is a deny", async () => {
    const { input: honest } = input(violated);
    const forged = relabel(honest, { chainValidIn: { 7: "1" }, chainCoversIn: { 7: coversOf(honest, 6) } });
    expect(await witnessFails(circuit, forged)).toBe(true);
  });
});

/** covers = tool + finalRoot·args of record i, as the circuit fingerprints an authorization. */
function coversOf(input: CircuitInput, i: number): string {
  const slots = (input.slots as string[][])[i]!;
  const root = BigInt(input.finalRoot as string);
  return String((BigInt(slots[1]!) + root * BigInt(slots[2]!)) % FIELD_MODULUS);
}

describe("edge witnesses", () => {
  const X = { path: "/srv/x" };
  const h = stringToField;
  const authSlots = (action: bigint, tool: string, aux: bigint, ref = 0n) => [
    KIND.authorization,
    h(tool),
    BigInt(argsHash(X)) >> 3n,
    action,
    aux,
    ref,
    0n,
  ];
  const callSlots = (action: bigint, tool = "delete_file") => [
    KIND.call,
    h(tool),
    BigInt(argsHash(X)) >> 3n,
    action,
    0n,
    0n,
    0n,
  ];
  // allow (1) + 4 * human (1) + 16 * once (1)
  const ALLOW_HUMAN = 1n + 4n + 16n;

  it("an empty trace is satisfied and nothing else", async () => {
    const { input: honest, verdict } = input([]);
    expect(verdict.violated).toBe(false);
    expect(circuit.firstUnsatisfied(await circuit.witness(honest))).toBe(-1);
    expect(await witnessFails(circuit, { ...honest, outcome: "1" })).toBe(true);
  });

  it("hand-made slots agree with the encoder (the baseline the edges below vary)", async () => {
    const slots = [authSlots(h("a1"), "delete_file", ALLOW_HUMAN), callSlots(h("a1"))];
    const records: TraceRecord[] = [
      {
        kind: "authorization",
        seq: 0,
        ts: 0,
        actionId: "a1",
        tool: "delete_file",
        argsHash: argsHash(X),
        decision: "allow",
        authority: "human",
        scope: "once",
      },
      { kind: "call", seq: 1, ts: 1, tool: "delete_file", args: X, actionId: "a1" },
    ];
    expect(encodeTrace(records, PROFILE, SECRET).map((r) => r.slots)).toEqual(slots);
    expect(await witnessFails(circuit, rawInput(slots, 0))).toBe(false);
  });

  it("slots past n (inactive) must be 0: garbage there has no witness either way; their digests are free", async () => {
    const slots = [authSlots(h("a1"), "delete_file", ALLOW_HUMAN), callSlots(h("a1"))];
    const honest = rawInput(slots, 0);
    const garbage = (honest.slots as string[][]).map((row, i) =>
      i >= 2 ? callSlots(h("zz")).map(String) : row,
    );
    for (const outcome of ["0", "1"]) {
      expect(await witnessFails(circuit, { ...honest, slots: garbage, outcome })).toBe(true);
    }
    const salted = { ...honest, digest: (honest.digest as string[]).map((s, i) => (i >= 2 ? "7" : s)) };
    expect(circuit.firstUnsatisfied(await circuit.witness(salted))).toBe(-1);
    expect(await witnessFails(circuit, { ...salted, outcome: "1" })).toBe(true);
  });

  it("an authorization whose aux does not decode (>= 64) has no witness at all (no proof either way)", async () => {
    for (const outcome of [0, 1] as const) {
      expect(
        await witnessFails(
          circuit,
          rawInput([authSlots(h("a1"), "delete_file", 64n + ALLOW_HUMAN), callSlots(h("a1"))], outcome),
        ),
      ).toBe(true);
    }
  });

  it("decision or authority code 0 (never encoded) is not an allow: the call violates", async () => {
    for (const aux of [4n + 16n, 1n + 16n, 3n + 4n + 16n]) {
      const slots = [authSlots(h("a1"), "delete_file", aux), callSlots(h("a1"))];
      expect(await witnessFails(circuit, rawInput(slots, 1)), String(aux)).toBe(false);
      expect(await witnessFails(circuit, rawInput(slots, 0)), String(aux)).toBe(true);
    }
  });

  it("a call with action slot 0 violates even after an authorization whose action slot is 0", async () => {
    const slots = [authSlots(0n, "delete_file", ALLOW_HUMAN), callSlots(0n)];
    expect(await witnessFails(circuit, rawInput(slots, 1))).toBe(false);
    expect(await witnessFails(circuit, rawInput(slots, 0))).toBe(true);
  });

  it("a policy allow needs a non-zero policy reference, whatever else it carries", async () => {
    const POLICY = 1n + 8n + 16n;
    expect(
      await witnessFails(
        circuit,
        rawInput([authSlots(h("a1"), "delete_file", POLICY, 0n), callSlots(h("a1"))], 1),
      ),
    ).toBe(false);
    expect(
      await witnessFails(
        circuit,
        rawInput([authSlots(h("a1"), "delete_file", POLICY, h("p")), callSlots(h("a1"))], 0),
      ),
    ).toBe(false);
  });

  it("θ flags must be booleans, and θ must hash to paramsHash", async () => {
    const slots = [authSlots(h("a1"), "delete_file", ALLOW_HUMAN), callSlots(h("a1"))];
    const honest = rawInput(slots, 0);
    // A flag of 2 with a paramsHash that matches it: refused by the booleanity constraint.
    const vector = aap1Authorization.thetaVector(THETA);
    vector[vector.length - 3] = 2n;
    const { hashVector } = await import("../../sdk/core/hash.js");
    const twos = { ...honest, authorities: ["2", "1", "0"], paramsHash: String(hashVector(vector)) };
    expect(await witnessFails(circuit, twos)).toBe(true);
    expect(await witnessFails(circuit, { ...honest, authorities: ["0", "1", "0"] })).toBe(true);
    expect(
      await witnessFails(circuit, {
        ...honest,
        gatedTools: (honest.gatedTools as string[]).slice().reverse(),
      }),
    ).toBe(true);
  });
});
