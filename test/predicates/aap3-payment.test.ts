// AAP-3: θ parsing and VAI's names, the circuit's cost, circuit = oracle on random
// traces near the cap's edges (the flipped outcome has no witness), forged witnesses
// against every per-record flag, and slot encodings the TS record model cannot express.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, type Json } from "../../sdk/core/canonical.js";
import { KIND, MAX_AMOUNT, SLOT } from "../../sdk/core/encoding.js";
import { stringToField } from "../../sdk/core/hash.js";
import {
  aap3Payment,
  aap3ProfileFromVai,
  type Aap3Theta,
} from "../../sdk/core/predicates/aap3/definition.js";
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

const INSTANCE = instance("aap3_n8");
const SHAPE = { depth: INSTANCE.params.depth, checkpoints: INSTANCE.params.checkpoints };
const SECRET = 0xa3n;
const CONTEXT = 303n;
const TWO64 = 1n << 64n;

const profileAt = (decimals: number): EncodingProfile => ({
  version: 1,
  tools: {
    pay: { target: "merchant", amount: { key: "amount", decimals } },
    refund: { target: "merchant", amount: { key: "amount", decimals } },
    lookup: {},
    send: { target: "to", amount: { key: "amount", decimals } },
  },
});
const PROFILE = profileAt(2);
const THETA: Aap3Theta = { payTools: ["pay"], merchants: ["acme", "globex"], cap: "10000" };

function input(records: readonly TraceRecord[], theta: Aap3Theta = THETA, profile = PROFILE) {
  return claimInput({
    records,
    profile,
    sessionSecret: SECRET,
    checkpoints: [],
    predicate: aap3Payment,
    theta,
    context: CONTEXT,
    shape: SHAPE,
  });
}

/** A full input from hand-made slots (for encodings no TS record produces). */
const rawInput = (slots: bigint[][], outcome: 0 | 1, theta: Aap3Theta = THETA): CircuitInput =>
  rawSlotsInput(aap3Payment, theta, slots, outcome, { secret: SECRET, context: CONTEXT, shape: SHAPE });

let circuit: TestCircuit;
beforeAll(async () => {
  circuit = await compileInstance(INSTANCE.name);
});

describe("θ", () => {
  it("is registered, and the instances' θ sizes are the predicate's", () => {
    expect(PREDICATES["AAP-3"]).toBe(aap3Payment);
    for (const name of ["aap3_n4", "aap3_n8"]) {
      expect(instance(name).params.tools).toBe(aap3Payment.caps.tools);
      expect(instance(name).params.merchants).toBe(aap3Payment.caps.merchants);
    }
  });

  it("vector: [3, 2, 8, tools, merchants, cap], sorted and padded; the cap changes the hash", () => {
    const v = aap3Payment.thetaVector(
      aap3Payment.parseTheta({ payTools: ["pay"], merchants: ["b", "a"], cap: 5 }),
    );
    expect(v.slice(0, 3)).toEqual([3n, 2n, 8n]);
    expect(v).toHaveLength(14);
    expect(v.slice(3, 7)).toEqual([stringToField("pay"), 0n, stringToField("a"), stringToField("b")]);
    expect(v[13]).toBe(5n);
    const h = (cap: unknown) => paramsHashOf(aap3Payment, aap3Payment.parseTheta({ ...THETA, cap }));
    expect(h(10000)).toBe(h("10000"));
    expect(h(10000)).not.toBe(h(10001));
  });

  it("parses to JSON that parses to itself", () => {
    for (const raw of [
      THETA,
      { pay_tool: "send_money", max_amount: 50.5, merchant_allowlist: ["x"], amount_decimals: 2 },
    ]) {
      const theta = aap3Payment.parseTheta(raw);
      const again = aap3Payment.parseTheta(JSON.parse(canonicalJson(theta as unknown as Json)));
      expect(again).toEqual(theta);
    }
  });

  it("refuses bad θ with a ThetaError that names the field", () => {
    const bad: [unknown, RegExp][] = [
      [{ ...THETA, payTools: [] }, /payTools is empty/],
      [{ ...THETA, payTools: ["a", "b", "c"] }, /payTools has 3/],
      [{ ...THETA, merchants: Array.from({ length: 9 }, (_, i) => `m${i}`) }, /merchants has 9/],
      [{ ...THETA, cap: -1 }, /cap/],
      [{ ...THETA, cap: 1.5 }, /cap must be a whole number/],
      [{ ...THETA, cap: String(TWO64) }, /cap must be in \[0, 2\^64 - 1\]/],
      [{ ...THETA, limit: 5 }, /unknown field\(s\) limit/],
      [{ ...THETA, max_amount: 5 }, /mixes/],
      [{ merchant_allowlist: ["a"] }, /max_amount is required/],
      [{ max_amount: 100.5, merchant_allowlist: ["a"] }, /amount_decimals = 0.*whole number of minor units/],
      [{ max_amount: 1.005, merchant_allowlist: ["a"], amount_decimals: 2 }, /more than 2 decimal places/],
      [{ max_amount: "1e3", merchant_allowlist: ["a"] }, /max_amount/],
      // A non-string merchant is encoded with the malformed-value marker: it may never be listed.
      [{ ...THETA, merchants: ["\u0000malformed:123"] }, /reserved \(malformed-value\) marker/],
      [{ max_amount: 5, merchant_allowlist: ["\u0000malformed:x"] }, /reserved/],
    ];
    for (const [x, message] of bad) {
      expect(() => aap3Payment.parseTheta(x), JSON.stringify(x)).toThrow(ThetaError);
      expect(() => aap3Payment.parseTheta(x), JSON.stringify(x)).toThrow(message);
    }
  });

  it("maps VAI's names, with their defaults, to θ and to the profile entry they imply", () => {
    const vai = { max_amount: 100.25, merchant_allowlist: ["acme"], amount_decimals: 2 };
    expect(aap3Payment.parseTheta(vai)).toEqual({
      payTools: ["send_payment"],
      merchants: ["acme"],
      cap: "10025",
      vai: { recipientKey: "target", amountKey: "amount", decimals: 2 },
    });
    expect(aap3ProfileFromVai(vai)).toEqual({
      send_payment: { target: "target", amount: { key: "amount", decimals: 2 } },
    });
    const named = {
      pay_tool: "wire",
      max_amount: 7,
      merchant_allowlist: [],
      recipient_key: "iban",
      amount_key: "eur",
    };
    expect(aap3Payment.vai!.profileTools(aap3Payment.parseTheta(named))).toEqual({
      wire: { target: "iban", amount: { key: "eur", decimals: 0 } },
    });
    expect(aap3Payment.vai!.profileTools(aap3Payment.parseTheta(THETA))).toEqual({});
    expect(() => aap3ProfileFromVai(THETA)).toThrow(/imply no profile entries/);
  });

  it("checkProfile: pay tools need a merchant and an amount, at one scale, read as the VAI params say", () => {
    const two = aap3Payment.parseTheta({ ...THETA, payTools: ["pay", "refund"] });
    expect(() => aap3Payment.checkProfile(two, PROFILE)).not.toThrow();
    const mixed = {
      version: 1 as const,
      tools: { ...PROFILE.tools, refund: { target: "m", amount: { key: "a", decimals: 0 } } },
    };
    expect(() => aap3Payment.checkProfile(two, mixed)).toThrow(/different decimals/);
    expect(() => aap3Payment.checkProfile({ ...THETA, payTools: ["lookup"] }, PROFILE)).toThrow(
      /merchant \(target\)/,
    );
    const noAmount = { version: 1 as const, tools: { pay: { target: "merchant" } } };
    expect(() => aap3Payment.checkProfile(THETA, noAmount)).toThrow(/does not read an amount/);
    const vai = aap3Payment.parseTheta({
      pay_tool: "pay",
      max_amount: 1,
      merchant_allowlist: [],
      recipient_key: "merchant",
    });
    expect(() => aap3Payment.checkProfile(vai, profileAt(0))).not.toThrow();
    expect(() => aap3Payment.checkProfile(vai, profileAt(2))).toThrow(
      /at 0 decimals, but the encoding profile reads "amount" at 2/,
    );
    const vaiTo = aap3Payment.parseTheta({ pay_tool: "pay", max_amount: 1, merchant_allowlist: [] });
    expect(() => aap3Payment.checkProfile(vaiTo, profileAt(0))).toThrow(/merchant as "target"/);
  });
});

// Protocol v2 (docs/PROTOCOL.md): a chained leaf over the record digest (+15 per record) and
// checkpointSlots(N) entries checked by the lookup instead of 4 prefix commitments.
it("costs exactly this many constraints (a change in cost is a decision)", () => {
  expect(circuit.constraints).toBe(7013); // v1: 9,420
});

describe("circuit = oracle on random traces (capacity 8)", () => {
  const ALLOWED = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell", "cyberdyne"];
  const OFF = ["acme ", "evil"];
  const merchantArg = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...ALLOWED, ...OFF) },
    {
      weight: 2,
      arbitrary: fc.array(fc.constantFrom(...ALLOWED.slice(0, 3), ...OFF), { minLength: 0, maxLength: 2 }),
    },
    { weight: 1, arbitrary: fc.constantFrom<Json | undefined>(null, undefined, 42, [null]) },
  );
  /** An amount in minor units near the cap, or near the encoding's edges. */
  const minorArb = (cap: bigint) =>
    fc.oneof(
      fc.constantFrom(0n, cap, cap + 1n, cap > 0n ? cap - 1n : 0n, MAX_AMOUNT, MAX_AMOUNT + 1n),
      fc.bigInt({ min: 0n, max: cap + 2n }),
    );
  /** The amount argument as a number or a decimal string, or a malformed or missing one. */
  const amountArg = (cap: bigint, decimals: number) =>
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc.tuple(minorArb(cap), fc.boolean()).map(([m, asString]): Json => {
          const scale = 10n ** BigInt(decimals);
          const text =
            decimals === 0 ? String(m) : `${m / scale}.${String(m % scale).padStart(decimals, "0")}`;
          return asString || m > BigInt(Number.MAX_SAFE_INTEGER) ? text : Number(text);
        }),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Json | undefined>(undefined, null, "1.0001", -1, "ten", true, 0.001),
      },
    );

  const caseArb = fc
    .record({
      decimals: fc.constantFrom(0, 2),
      cap: fc.constantFrom(0n, 1n, 999n, 10000n, TWO64 - 2n, TWO64 - 1n),
      payTools: fc.constantFrom<string[]>(["pay"], ["pay", "refund"]),
      merchants: fc.shuffledSubarray(ALLOWED, { minLength: 0, maxLength: 8 }),
    })
    .chain((t) =>
      fc.record({
        t: fc.constant(t),
        rows: fc.array(
          fc.record({
            kind: fc.constantFrom("call", "call", "call", "grant", "authorization"),
            tool: fc.constantFrom("pay", "pay", "refund", "lookup", "send"),
            merchant: merchantArg,
            amount: amountArg(t.cap, t.decimals),
            blocked: fc.boolean(),
          }),
          { minLength: 0, maxLength: 8 },
        ),
      }),
    );

  type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;
  function build({ t, rows }: Case) {
    const theta: Aap3Theta = { payTools: t.payTools, merchants: [...t.merchants].sort(), cap: String(t.cap) };
    const records = rows.map((r, seq): TraceRecord => {
      if (r.kind === "grant") return { kind: "grant", seq, ts: seq, namespace: "recipient", value: "acme" };
      if (r.kind === "authorization") {
        return {
          kind: "authorization",
          seq,
          ts: seq,
          actionId: `a${seq}`,
          tool: r.tool,
          argsHash: `0x${"ff".repeat(32)}`,
          decision: "allow",
          authority: "policy",
          scope: "persistent",
        };
      }
      const key = r.tool === "send" ? "to" : "merchant";
      const args: { [k: string]: Json } = { memo: "x" };
      if (r.merchant !== undefined) args[key] = r.merchant;
      if (r.amount !== undefined) args.amount = r.amount;
      return { kind: "call", seq, ts: seq, tool: r.tool, args, ...(r.blocked ? { blocked: true } : {}) };
    });
    return { theta, records, profile: profileAt(t.decimals) };
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
      // Both verdicts are exercised, not just one.
      expect(violated).toBeGreaterThan(atLeast(50));
      expect(violated).toBeLessThan(PROPERTY_RUNS - atLeast(20));
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe("edge witnesses", () => {
  const pay = (seq: number, args: { [k: string]: Json }): TraceRecord => ({
    kind: "call",
    seq,
    ts: seq,
    tool: "pay",
    args,
  });

  it("each of the oracle's failure modes is the circuit's, and the flipped outcome has no witness", async () => {
    const cases: [TraceRecord[], boolean][] = [
      [[pay(0, { merchant: "acme", amount: 100 })], false],
      [[pay(0, { merchant: "acme", amount: 100.01 })], true],
      [[pay(0, { merchant: "acme" })], true],
      [[pay(0, { merchant: "acme", amount: 1.001 })], true],
      [[pay(0, { amount: 1 })], true],
      [[pay(0, { merchant: [], amount: 1 })], true],
      [[pay(0, { merchant: ["globex", "acme"], amount: 1 })], false],
      [[pay(0, { merchant: ["globex", "evil"], amount: 1 })], true],
      [[pay(0, { merchant: 7, amount: 1 })], true],
      [[{ ...pay(0, { merchant: "evil" }), blocked: true } as TraceRecord], false],
    ];
    for (const [records, violated] of cases) {
      const { input: honest, verdict } = input(records);
      expect(verdict.violated, JSON.stringify(records)).toBe(violated);
      expect(circuit.firstUnsatisfied(await circuit.witness(honest))).toBe(-1);
      expect(await witnessFails(circuit, { ...honest, outcome: violated ? "0" : "1" })).toBe(true);
    }
  });

  it("a payment whose aux slot is beyond 2^64 (no honest encoding) has no witness either way", async () => {
    const slots = [KIND.call, stringToField("pay"), 5n, 0n, TWO64 + 1n, stringToField("acme"), 0n];
    expect(slots[SLOT.aux]).toBe(TWO64 + 1n);
    expect(await witnessFails(circuit, rawInput([slots], 0))).toBe(true);
    expect(await witnessFails(circuit, rawInput([slots], 1))).toBe(true);
    // The same slot on a record that is not a payment is not read, so it cannot block the proof.
    const lookup = [KIND.call, stringToField("lookup"), 5n, 0n, TWO64 + 1n, 0n, 0n];
    expect(await witnessFails(circuit, rawInput([lookup], 0))).toBe(false);
  });

  it("a θ cap of 2^64 or more has no witness, even with its own paramsHash", async () => {
    const theta = { ...THETA, cap: String(TWO64) };
    const slots = [KIND.call, stringToField("lookup"), 5n, 0n, 0n, 0n, 0n];
    expect(await witnessFails(circuit, rawInput([slots], 0, theta))).toBe(true);
    expect(await witnessFails(circuit, rawInput([slots], 1, theta))).toBe(true);
    expect(await witnessFails(circuit, rawInput([slots], 0, { ...THETA, cap: String(TWO64 - 1n) }))).toBe(
      false,
    );
  });
});

describe("forged witnesses", () => {
  const records: TraceRecord[] = [
    { kind: "call", seq: 0, ts: 0, tool: "lookup", args: {} },
    { kind: "call", seq: 1, ts: 1, tool: "pay", args: { merchant: "acme", amount: 100 } },
    { kind: "call", seq: 2, ts: 2, tool: "pay", args: { merchant: ["acme", "globex"], amount: 3 } },
    { kind: "call", seq: 3, ts: 3, tool: "pay", args: { merchant: "acme", amount: 100.01 } },
    { kind: "call", seq: 4, ts: 4, tool: "pay", args: { merchant: ["acme", "evil"], amount: 1 } },
    { kind: "call", seq: 5, ts: 5, tool: "pay", args: { merchant: "acme" } },
    { kind: "call", seq: 6, ts: 6, tool: "pay", args: { amount: 1 }, blocked: true },
  ];

  it("every per-record flag, amount and comparison bit, edited alone, breaks a constraint", async () => {
    const { input: honest, verdict } = input(records);
    expect(verdict).toMatchObject({ violated: true, seq: 3 });
    const w = await circuit.witness(honest);
    expect(circuit.firstUnsatisfied(w)).toBe(-1);
    const flags = "isCall|isPayTool|checked|pay|over|firstOk|secondOff|merchantOk|ok|violated";
    const targets = [
      ...signalsMatching(circuit, new RegExp(`^record\\[(1|3|4|5|6)\\]\\.(${flags})$`)),
      ...signalsMatching(circuit, /^record\[(1|3|5)\]\.amount\.(missing|amount|absent)$/),
      ...signalsMatching(circuit, /^record\[(1|3)\]\.amount\.bits\.out\[(0|1)\]$/),
      ...signalsMatching(circuit, /^record\[(1|3)\]\..*n2b\.out\[(0|1)\]$/),
      ...signalsMatching(circuit, /^violations\[(1|3|4|5|6)\]$/),
      ...signalsMatching(circuit, /^capBits\.out\[(0|1)\]$/),
    ];
    expect(targets.length).toBeGreaterThanOrEqual(60);
    for (const name of targets) {
      const value = w[circuit.signals.get(name)!];
      expect(circuit.firstUnsatisfied(forge(circuit, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
      expect(circuit.firstUnsatisfied(forge(circuit, w, name, 1n - value)), name).toBeGreaterThanOrEqual(0);
    }
  });
});
