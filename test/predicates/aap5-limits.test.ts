// AAP-5: θ parsing and VAI's names, the circuit's cost, circuit = oracle on random
// traces near every limit's edge (the flipped outcome has no witness), forged
// witnesses against the per-record flags, the totals' comparisons and the repeat
// counts, and slot encodings the TS record model cannot express.
import fc from "fast-check";
import { keccak256, toBytes } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, type Json } from "../../sdk/core/canonical.js";
import { KIND, MAX_AMOUNT } from "../../sdk/core/encoding.js";
import { stringToField } from "../../sdk/core/hash.js";
import { aap5Limits, aap5ProfileFromVai, type Aap5Theta } from "../../sdk/core/predicates/aap5/definition.js";
import { paramsHashOf, PREDICATES, ThetaError } from "../../sdk/core/predicates/index.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { claimInput, type CircuitInput } from "../../prover/witness.js";
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

const INSTANCE = instance("aap5_n8");
const SHAPE = { depth: INSTANCE.params.depth, checkpoints: INSTANCE.params.checkpoints };
const SECRET = 0xa5n;
const CONTEXT = 505n;
const TWO64 = 1n << 64n;

const profileAt = (decimals: number): EncodingProfile => ({
  version: 1,
  tools: {
    pay: { target: "to", amount: { key: "amount", decimals } },
    refund: { target: "to", amount: { key: "amount", decimals } },
    send: { target: "to" },
    lookup: {},
  },
});
const PROFILE = profileAt(2);
const THETA: Aap5Theta = {
  countedTools: ["send"],
  maxCount: "2",
  summedTools: ["pay"],
  maxSum: "10000",
  maxRepeat: "2",
};

function input(records: readonly TraceRecord[], theta: Aap5Theta = THETA, profile = PROFILE) {
  return claimInput({
    records,
    profile,
    sessionSecret: SECRET,
    checkpoints: [],
    predicate: aap5Limits,
    theta,
    context: CONTEXT,
    shape: SHAPE,
  });
}

/** A full input from hand-made slots (for encodings no TS record produces). */
const rawInput = (slots: bigint[][], outcome: 0 | 1, theta: Aap5Theta = THETA): CircuitInput =>
  rawSlotsInput(aap5Limits, theta, slots, outcome, { secret: SECRET, context: CONTEXT, shape: SHAPE });

const call = (seq: number, tool: string, args: { [k: string]: Json }, blocked = false): TraceRecord => ({
  kind: "call",
  seq,
  ts: seq,
  tool,
  args,
  ...(blocked ? { blocked: true } : {}),
});

let circuit: TestCircuit;
beforeAll(async () => {
  circuit = await compileInstance(INSTANCE.name);
});

describe("θ", () => {
  it("is registered, and the instances' θ sizes are the predicate's", () => {
    expect(PREDICATES["AAP-5"]).toBe(aap5Limits);
    for (const name of ["aap5_n4", "aap5_n8"]) {
      expect(instance(name).params.countedTools).toBe(aap5Limits.caps.countedTools);
      expect(instance(name).params.summedTools).toBe(aap5Limits.caps.summedTools);
    }
  });

  it("vector: [5, 2, 2, counted, summed, maxCount+1, maxSum+1, maxRepeat+1], 0 for no limit", () => {
    const v = aap5Limits.thetaVector(aap5Limits.parseTheta({ maxRepeat: 3 }));
    expect(v).toEqual([5n, 2n, 2n, 0n, 0n, 0n, 0n, 0n, 0n, 4n]);
    const full = aap5Limits.thetaVector(aap5Limits.parseTheta(THETA));
    expect(full).toEqual([5n, 2n, 2n, stringToField("send"), 0n, stringToField("pay"), 0n, 3n, 10001n, 3n]);
    // "No limit" hashes apart from every limit, the largest included.
    const h = (x: unknown) => paramsHashOf(aap5Limits, aap5Limits.parseTheta(x));
    expect(h({ maxRepeat: 3 })).not.toBe(
      h({ maxRepeat: 3, countedTools: ["send"], maxCount: String(TWO64 - 1n) }),
    );
    expect(h({ maxRepeat: 0 })).not.toBe(h({ maxCount: 0, countedTools: ["send"] }));
  });

  it("parses to JSON that parses to itself", () => {
    for (const raw of [
      THETA,
      { maxRepeat: 1 },
      { counted_tools: ["a"], max_count: 3, summed_tools: ["a"], max_sum: 1.5, amount_decimals: 1 },
    ]) {
      const theta = aap5Limits.parseTheta(raw);
      const again = aap5Limits.parseTheta(JSON.parse(canonicalJson(theta as unknown as Json)));
      expect(again).toEqual(theta);
    }
  });

  it("refuses bad θ with a ThetaError that names the field", () => {
    const bad: [unknown, RegExp][] = [
      [{}, /sets no limit/],
      [{ countedTools: ["send"] }, /countedTools is given without maxCount/],
      [{ maxCount: 3 }, /maxCount is given without countedTools/],
      [{ summedTools: ["pay"], maxRepeat: 1 }, /summedTools is given without maxSum/],
      [{ maxSum: 3 }, /maxSum is given without summedTools/],
      [{ countedTools: ["a", "b", "c"], maxCount: 1 }, /countedTools has 3/],
      [{ maxRepeat: -1 }, /maxRepeat must be in/],
      [{ maxRepeat: String(TWO64) }, /maxRepeat must be in/],
      [{ maxRepeat: 1.5 }, /maxRepeat must be a whole number/],
      [{ maxRepeats: 1 }, /unknown field\(s\) maxRepeats/],
      [{ maxRepeat: 1, max_count: 1 }, /mixes/],
      [{ summed_tools: ["pay"], max_sum: 10.5 }, /amount_decimals = 0/],
      [{ counted_tools: ["pay"] }, /counted_tools is given without max_count/],
    ];
    for (const [x, message] of bad) {
      expect(() => aap5Limits.parseTheta(x), JSON.stringify(x)).toThrow(ThetaError);
      expect(() => aap5Limits.parseTheta(x), JSON.stringify(x)).toThrow(message);
    }
  });

  it("maps VAI's names to θ and to the profile entries they imply", () => {
    const vai = {
      counted_tools: ["send", "pay"],
      max_count: 4,
      summed_tools: ["pay"],
      max_sum: 12.5,
      amount_decimals: 2,
    };
    expect(aap5Limits.parseTheta(vai)).toEqual({
      countedTools: ["pay", "send"],
      maxCount: "4",
      summedTools: ["pay"],
      maxSum: "1250",
      vai: { amountKey: "amount", decimals: 2 },
    });
    expect(aap5ProfileFromVai({ ...vai, amount_key: "eur" })).toEqual({
      send: {},
      pay: { amount: { key: "eur", decimals: 2 } },
    });
    expect(aap5Limits.vai!.profileTools(aap5Limits.parseTheta(THETA))).toEqual({});
  });

  it("checkProfile: summed tools need an amount, at one scale, read as the VAI params say", () => {
    expect(() => aap5Limits.checkProfile(aap5Limits.parseTheta(THETA), PROFILE)).not.toThrow();
    expect(() => aap5Limits.checkProfile({ ...THETA, summedTools: ["send"] }, PROFILE)).toThrow(
      /does not read an amount/,
    );
    const mixed = {
      version: 1 as const,
      tools: { ...PROFILE.tools, refund: { amount: { key: "amount", decimals: 0 } } },
    };
    expect(() => aap5Limits.checkProfile({ ...THETA, summedTools: ["pay", "refund"] }, mixed)).toThrow(
      /different decimals/,
    );
    const vai = aap5Limits.parseTheta({ summed_tools: ["pay"], max_sum: 5 });
    expect(() => aap5Limits.checkProfile(vai, profileAt(0))).not.toThrow();
    expect(() => aap5Limits.checkProfile(vai, profileAt(2))).toThrow(
      /at 0 decimals, but the encoding profile reads "amount" at 2/,
    );
  });
});

// Protocol v2 (docs/PROTOCOL.md): a chained leaf over the record digest (+15 per record) and
// checkpointSlots(N) entries checked by the lookup instead of 4 prefix commitments.
it("costs exactly this many constraints (a change in cost is a decision)", () => {
  expect(circuit.constraints).toBe(7342); // v1: 9,749
});

describe("circuit = oracle on random traces (capacity 8)", () => {
  const limitArb = <T>(values: T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });
  const thetaArb = fc
    .record({
      counted: fc.constantFrom<string[]>([], ["send"], ["pay", "send"], ["lookup", "refund"]),
      maxCount: fc.constantFrom(0, 1, 2, 3, 8),
      summed: fc.constantFrom<string[]>([], ["pay"], ["pay", "refund"]),
      maxSum: fc.constantFrom(0n, 99n, 100n, 150n, 10000n, TWO64 - 1n),
      maxRepeat: limitArb([0, 1, 2, 3]),
      decimals: fc.constantFrom(0, 2),
    })
    .map((t) => {
      const theta: Aap5Theta = { countedTools: t.counted, summedTools: t.summed };
      if (t.counted.length) theta.maxCount = String(t.maxCount);
      if (t.summed.length) theta.maxSum = String(t.maxSum);
      if (t.maxRepeat !== undefined || (!t.counted.length && !t.summed.length))
        theta.maxRepeat = String(t.maxRepeat ?? 1);
      return { theta, decimals: t.decimals };
    });
  /** Amounts in minor units near the limits above, as numbers or decimal strings; or missing or malformed. */
  const amountArb = (decimals: number) =>
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .tuple(fc.constantFrom(0n, 1n, 50n, 99n, 100n, 5000n, 10000n, MAX_AMOUNT), fc.boolean())
          .map(([m, asString]): Json => {
            const scale = 10n ** BigInt(decimals);
            const text =
              decimals === 0 ? String(m) : `${m / scale}.${String(m % scale).padStart(decimals, "0")}`;
            return asString || m > BigInt(Number.MAX_SAFE_INTEGER) ? text : Number(text);
          }),
      },
      { weight: 1, arbitrary: fc.constantFrom<Json | undefined>(undefined, null, 0.001, -1, "x", "1e2") },
    );
  const caseArb = thetaArb.chain(({ theta, decimals }) =>
    fc.record({
      theta: fc.constant(theta),
      decimals: fc.constant(decimals),
      rows: fc.array(
        fc.record({
          kind: fc.constantFrom("call", "call", "call", "call", "authorization", "grant"),
          tool: fc.constantFrom("pay", "pay", "refund", "send", "send", "lookup"),
          to: fc.constantFrom("a", "b"),
          amount: amountArb(decimals),
          blocked: fc.boolean(),
        }),
        { minLength: 0, maxLength: 8 },
      ),
    }),
  );
  type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

  function build({ theta, decimals, rows }: Case) {
    const argsOf = (r: Case["rows"][number]) => {
      const args: { [k: string]: Json } = { to: r.to };
      if (r.amount !== undefined) args.amount = r.amount;
      return args;
    };
    const records = rows.map((r, seq): TraceRecord => {
      if (r.kind === "grant") return { kind: "grant", seq, ts: seq, namespace: "recipient", value: r.to };
      if (r.kind === "authorization") {
        // Same tool and args hash as a call would have: it must not count as one.
        return {
          kind: "authorization",
          seq,
          ts: seq,
          actionId: `a${seq}`,
          tool: r.tool,
          argsHash: keccak256(toBytes(canonicalJson(argsOf(r)))),
          decision: "allow",
          authority: "human",
          scope: "once",
        };
      }
      return call(seq, r.tool, argsOf(r), r.blocked && seq % 2 === 0);
    });
    return { theta, records, profile: profileAt(decimals) };
  }

  it(
    `agrees on ${PROPERTY_RUNS} random traces of 0..8 records, and the flipped outcome has no witness`,
    async () => {
      let violated = 0;
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const { theta, records, profile } = build(c);
          const { input: honest, verdict } = input(records, theta, profile);
          violated += verdict.violated ? 1 : 0;
          await expectVerdict(circuit, honest, verdict.violated);
        }),
        propertyParams(),
      );
      expect(violated).toBeGreaterThan(atLeast(50));
      expect(violated).toBeLessThan(PROPERTY_RUNS - atLeast(20));
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe("edge witnesses", () => {
  it("each limit's edge is the circuit's, and the flipped outcome has no witness", async () => {
    const send = (seq: number, to: string) => call(seq, "send", { to });
    const pay = (seq: number, amount?: Json) =>
      call(seq, "pay", amount === undefined ? { to: "s" } : { to: "s", amount });
    const cases: [TraceRecord[], Aap5Theta, number | null][] = [
      [[send(0, "a"), send(1, "b")], THETA, null],
      [[send(0, "a"), send(1, "b"), send(2, "c")], THETA, 2],
      [[pay(0, 60), pay(1, 40)], THETA, null],
      [[pay(0, 60), pay(1, 40.01)], THETA, 1],
      [[pay(0, 1), pay(1)], THETA, 1],
      [[pay(0, "0.001")], THETA, 0],
      [[send(0, "a"), send(1, "a")], THETA, null],
      [[call(0, "lookup", { q: 1 }), call(1, "lookup", { q: 1 }), call(2, "lookup", { q: 1 })], THETA, 2],
      [
        [call(0, "lookup", { q: 1 }), call(1, "lookup", { q: 1 }, true), call(2, "lookup", { q: 1 })],
        THETA,
        null,
      ],
      [
        [call(0, "lookup", {})],
        { countedTools: ["lookup"], maxCount: "0", summedTools: [], maxRepeat: "0" },
        0,
      ],
      [
        [send(0, "a"), send(1, "a"), send(2, "a")],
        { countedTools: [], summedTools: [], maxRepeat: String(TWO64 - 1n) },
        null,
      ],
    ];
    for (const [records, theta, seq] of cases) {
      const { input: honest, verdict } = input(records, theta);
      expect(verdict.seq, JSON.stringify(records)).toBe(seq);
      expect(circuit.firstUnsatisfied(await circuit.witness(honest))).toBe(-1);
      expect(await witnessFails(circuit, { ...honest, outcome: verdict.violated ? "0" : "1" })).toBe(true);
    }
  });

  it("a summed call whose aux slot is beyond 2^64 (no honest encoding) has no witness either way", async () => {
    const slots = [KIND.call, stringToField("pay"), 5n, 0n, TWO64 + 1n, stringToField("s"), 0n];
    expect(await witnessFails(circuit, rawInput([slots], 0))).toBe(true);
    expect(await witnessFails(circuit, rawInput([slots], 1))).toBe(true);
    const unsummed = [KIND.call, stringToField("send"), 5n, 0n, TWO64 + 1n, stringToField("s"), 0n];
    expect(await witnessFails(circuit, rawInput([unsummed], 0))).toBe(false);
  });

  it("a θ limit of 2^64 or more has no witness, even with its own paramsHash", async () => {
    const slots = [KIND.call, stringToField("send"), 5n, 0n, 0n, stringToField("s"), 0n];
    for (const field of ["maxCount", "maxSum", "maxRepeat"] as const) {
      const theta = { ...THETA, [field]: String(TWO64) };
      expect(await witnessFails(circuit, rawInput([slots], 0, theta)), field).toBe(true);
      expect(await witnessFails(circuit, rawInput([slots], 1, theta)), field).toBe(true);
      expect(
        await witnessFails(circuit, rawInput([slots], 0, { ...THETA, [field]: String(TWO64 - 1n) })),
        field,
      ).toBe(false);
    }
  });
});

describe("forged witnesses", () => {
  const traces: [string, TraceRecord[]][] = [
    [
      "satisfied",
      [
        call(0, "send", { to: "a" }),
        call(1, "pay", { to: "s", amount: 60 }),
        call(2, "pay", { to: "s", amount: 40 }),
        call(3, "send", { to: "a" }),
        call(4, "lookup", { q: 1 }),
        call(5, "pay", { to: "s" }, true),
        call(6, "lookup", { q: 1 }),
      ],
    ],
    [
      "violated",
      [
        call(0, "send", { to: "a" }),
        call(1, "pay", { to: "s", amount: 60 }),
        call(2, "pay", { to: "s", amount: 60 }),
        call(3, "send", { to: "a" }),
        call(4, "send", { to: "a" }),
        call(5, "pay", { to: "s" }),
      ],
    ],
  ];

  for (const [label, records] of traces) {
    it(`${label}: per-record flags, amounts, repeat counts, limits and the totals' comparisons, edited alone, break a constraint`, async () => {
      const { input: honest, verdict } = input(records);
      expect(verdict.violated).toBe(label === "violated");
      const w = await circuit.witness(honest);
      expect(circuit.firstUnsatisfied(w)).toBe(-1);
      const targets = [
        ...signalsMatching(circuit, /^record\[(0|2|5|6)\]\.(isCall|call|isCounted|counted|isSummed|summed)$/),
        ...signalsMatching(circuit, /^record\[(1|2|5)\]\.a\.(missing|amount|absent|bits\.out\[0\])$/),
        ...signalsMatching(circuit, /^call\[(3|5)\]$/),
        ...signalsMatching(circuit, /^repeats\.(key|entry|first)\[(3|5)\]$/),
        ...signalsMatching(circuit, /^repeats\.(beta|betaSquared|zeta|labelled)$/),
        ...signalsMatching(circuit, /^repeats\.(atBound\[(2|4)\]\.out|hit\[(2|4|6)\])$/),
        ...signalsMatching(circuit, /^limit\[(0|1|2)\]\.(enabled|limit|bits\.out\[0\])$/),
        ...signalsMatching(circuit, /^(countOver|countViolated|sumOver|sumViolated|none|violated)$/),
        ...signalsMatching(circuit, /^Exceeds_.*n2b\.out\[(0|1|2)\]$/),
      ];
      expect(targets.length).toBeGreaterThanOrEqual(45);
      for (const name of targets) {
        const value = w[circuit.signals.get(name)!];
        expect(circuit.firstUnsatisfied(forge(circuit, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
        expect(circuit.firstUnsatisfied(forge(circuit, w, name, 1n - value)), name).toBeGreaterThanOrEqual(0);
      }
    });
  }
});
