// Independent adversarial review of circuits/gadgets/rule.circom (SelectFact, NonZero, RuleEntryOf, RuleRows,
// RuleCheck) against its oracle, sdk/core/rules/rule-eval.ts. RuleCheck(32, 16, 12, 2) is compiled as main (lean
// Poseidon: the same constraints), so every attack is judged by its own r1cs. The prover's freedom is the
// keyed state's hints (seen, latest, age, intro, final tuples, weights, beta, zeta) and every `<--` signal
// (IsZero's inverses, Num2Bits' bits); rows and θ are the caller's. Five parts:
//  1. Honest runs: on every τ³ fixture of an arm with a rule, the circuit's `violated` is the oracle's.
//  2. Hint forgeries on violated fixtures (`play`, the r1cs solver): the firing row's seen/latest changed,
//     answers consistent with another access pattern (a fresh key, the earlier writes or accesses dropped),
//     each with the challenges and weights recomputed for the forged hints. All refused; and the other way,
//     a compliant trace made to fire. All refused.
//  3. Internal-signal overrides on the firing row: the IsZero inverses of every guard and comparison, the
//     comparators' bits, the range checks' bits, and the derived fires/clean/violated. All refused.
//  4. θ shapes compileRule never makes: non-boolean flags, two seen-modes, an op out of range, a check or
//     write column other than 0/1, a tool named twice, an out-of-range bound: refused. And what the circuit
//     does accept that compileRule never makes (selectors out of range), pinned as the circuit reads it.
//  5. The range assumptions: a stored count or a local fact at or past 2^32 leaves the claim unprovable
//     (no verdict) where the oracle compares bigints; τ³ facts never reach it (countFact caps counts at 2^31).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS, stringToField } from "../../sdk/core/hash.js";
import { importTauRecords } from "../../sdk/core/import-tau.js";
import {
  keyedLatestChain,
  keyedLatestHints,
  type KeyedLatestHints,
  type KeyedRow,
} from "../../sdk/core/keyed-latest.js";
import { countBits, rowWeights } from "../../sdk/core/multiset.js";
import { RULE_FACTS, compileRule, type CompiledRule, type RuleRow } from "../../sdk/core/rules/rule.js";
import { evaluateRule, traceRule } from "../../sdk/core/rules/rule-eval.js";
import { padRuleRows, ruleCircuitInputs, ruleKeyedRows } from "../../sdk/core/rules/rule-witness.js";
import { TAU_RULES } from "../../sdk/core/rules/tau-arms.js";
import { TAU_FACTS, type TauDomain } from "../../sdk/core/rules/tau-facts.js";
import { tauRuleRows } from "../../sdk/core/rules/tau-rows.js";
import { play, signalsLike, type Peek } from "../helpers/adversary.js";
import { compileTestCircuit, witnessFails, type TestCircuit } from "../helpers/circuit.js";

const P = FIELD_MODULUS;
const N = 32;
const TB = countBits(N);
const SEED = 0x72756c652d726576n;
const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURES = join(ROOT, "fixtures", "tau");

type Input = Record<string, unknown>;

interface Case {
  file: string;
  domain: TauDomain;
  arm: string;
  compiled: CompiledRule;
  rows: RuleRow[];
  /** The oracle's firing row (the first that fires), as an index into rows, or -1. */
  firing: number;
}

function load(file: string): Case | undefined {
  const f = JSON.parse(readFileSync(join(FIXTURES, file), "utf8")) as {
    promise_id: string;
    records: unknown[];
  };
  const [domain, arm] = f.promise_id.split("/") as [TauDomain, string];
  if (!Object.hasOwn(TAU_RULES[domain], arm)) return undefined;
  const compiled = compileRule(TAU_RULES[domain][arm]!, TAU_FACTS[domain], f.promise_id);
  const rows = tauRuleRows(importTauRecords(f.records).records, domain);
  return { file, domain, arm, compiled, rows, firing: traceRule(compiled, rows).findIndex((t) => t.fires) };
}

const allCases = ["retail", "airline"]
  .flatMap((d) =>
    readdirSync(join(FIXTURES, d)).flatMap((arm) =>
      readdirSync(join(FIXTURES, d, arm)).map((f) => join(d, arm, f)),
    ),
  )
  .map(load)
  .filter((c): c is Case => c !== undefined);

const honestInput = (c: Pick<Case, "compiled" | "rows">): Input => ({
  ...ruleCircuitInputs(c.compiled, c.rows, N, SEED),
  seed: String(SEED),
});

/** Weights for the introduced keys: the certificate when distinct, else 1 on every introduction. */
function weightsFor(keyed: readonly KeyedRow[], h: KeyedLatestHints): bigint[] {
  try {
    return rowWeights(keyed.map((x, i) => (h.intro[i] === 1n ? x.key : null)));
  } catch {
    return h.intro.map((x) => (x === 1n ? 1n : 0n));
  }
}

/** The input with these hints, and the weights and challenges drawn from them exactly as the circuit pins them. */
function withHints(
  c: Pick<Case, "compiled" | "rows">,
  h: KeyedLatestHints,
  keyed: readonly KeyedRow[] = ruleKeyedRows(c.compiled, padRuleRows(c.rows, N)),
): Input {
  const chain = keyedLatestChain(keyed, N, SEED, TB, h, weightsFor(keyed, h));
  const s = (xs: readonly bigint[]) => xs.map(String);
  return {
    ...honestInput(c),
    seen: s(h.seen),
    latest: s(h.latest),
    age: s(h.age),
    intro: s(h.intro),
    finalValue: s(h.finalValue),
    finalSeen: s(h.finalSeen),
    finalTime: s(h.finalTime),
    weight: s(chain.weight),
    beta: String(chain.beta),
    zeta: String(chain.zeta),
  };
}

const edit = (
  h: KeyedLatestHints,
  field: keyof KeyedLatestHints,
  i: number,
  v: bigint,
): KeyedLatestHints => ({
  ...h,
  [field]: h[field].map((x, k) => (k === i ? ((v % P) + P) % P : x)),
});

let circuit: TestCircuit;

/**
 * The r1cs's judgement of a move, the `violated` its witness holds, and whether it lies: some row's `fires`
 * differs from the honest witness's (a lie on a row that is not the first to fire is one too).
 */
async function judge(input: Input, override?: (peek: Peek) => Record<string, bigint>, honest?: bigint[]) {
  const r = await play(circuit, { input, override });
  const fires = (w: bigint[]) =>
    Array.from({ length: N }, (_, i) => w[circuit.signals.get(`rows.fires[${i}]`)!]!);
  const truth = honest ?? (await circuit.lenientWitness(input)).witness;
  const lie =
    fires(r.witness).some((x, i) => x !== fires(truth)[i]) ||
    r.witness[circuit.signals.get("violated")!] !== truth[circuit.signals.get("violated")!];
  return { accepted: r.accepted, violated: r.witness[circuit.signals.get("violated")!]!, lie };
}

beforeAll(async () => {
  circuit = await compileTestCircuit("rule-check-review", {
    includes: ["circuits/gadgets/rule.circom"],
    template: "RuleCheck",
    args: [N, 16, 12, 2],
    poseidon: "lean",
    publicSignals: [],
  });
}, 600_000);

// ---------------------------------------------------------------------------------------------------------
describe("0. cost", () => {
  // RuleRows (the rule read through θ, its register and pair keys: ~1,080 a row) and KeyedLatest(32); aap7_n8's
  // total is pinned in test/predicates/aap7-rules.test.ts, aap7_seg8's in test/circuits/segment-rule.test.ts.
  it("RuleCheck(32, 16, 12, 2) costs exactly 40,264 constraints", () => {
    expect(circuit.constraints).toBe(40_264);
  });
});

describe("1. honest runs: the circuit's verdict is the oracle's", () => {
  it("every τ³ fixture of an arm with a rule", async () => {
    expect(allCases.length).toBeGreaterThan(60);
    for (const c of allCases) {
      const w = await circuit.witness(honestInput(c));
      expect(circuit.firstUnsatisfied(w), c.file).toBe(-1);
      expect(w[circuit.signals.get("violated")!], c.file).toBe(c.firing >= 0 ? 1n : 0n);
    }
  });
});

// The violated fixtures attacked: every state mode (unseen, seen, seenEqual, seenDiffers with unknown, seenAbove)
// and every local test (none, above, notIn).
const ATTACKED = [
  "retail/auth_first/fail-closed-after-rejected-find.json",
  "retail/modify_items_lockout/violated-cancel-after-modify.json",
  "retail/status_precondition/violated-latest-snapshot-from-write.json",
  "retail/transfer_notice_after_success/violated-no-notice-after-transfer.json",
  "airline/no_bag_removal/violated-latest-snapshot-from-write.json",
  "airline/passenger_count_fixed/violated-passenger-dropped.json",
  "retail/cancel_reason_enum/violated-other-reason.json",
  "airline/one_tool_at_a_time/violated-two-calls.json",
  "airline/passenger_cap/violated-six-passengers.json",
  // Sub-rows and the register: an owner loaded and compared with the write-once user, a flight row's status,
  // and the chained lookup reservation → owner → profile version → Poseidon(version, id).
  "retail/one_user/violated-order-owner-from-snapshot.json",
  "airline/bookable_status/violated-latest-status-wins.json",
  "airline/payment_in_profile/violated-baggage-payment-via-reservation-owner.json",
];
const attacked = (files: readonly string[] = ATTACKED) =>
  files.map((f) => allCases.find((c) => c.file === f)!);
/** Part 3's subset (the runtime): seenDiffers with unknown, seenAbove, a local `above`, and a pair key. */
const OVERRIDDEN = [
  "retail/status_precondition/violated-latest-snapshot-from-write.json",
  "airline/no_bag_removal/violated-latest-snapshot-from-write.json",
  "airline/one_tool_at_a_time/violated-two-calls.json",
  "airline/payment_in_profile/violated-baggage-payment-via-reservation-owner.json",
];

// ---------------------------------------------------------------------------------------------------------
describe("2. hint forgeries (challenges recomputed for the forged hints)", () => {
  it("the firing row's seen and latest, and answers consistent with another access pattern", async () => {
    let tried = 0;
    for (const c of attacked()) {
      expect(c.firing, c.file).toBeGreaterThanOrEqual(0);
      const truth = await circuit.witness(honestInput(c));
      expect(await judge(honestInput(c)), c.file).toEqual({ accepted: true, violated: 1n, lie: false });
      const keyed = ruleKeyedRows(c.compiled, padRuleRows(c.rows, N));
      const h = keyedLatestHints(keyed);
      const f = c.firing;
      const step = traceRule(c.compiled, c.rows)[f]!.step;
      const forgeries: [string, KeyedLatestHints][] = [];
      const written = [...new Set(keyed.filter((k) => k.write).map((k) => k.value))];
      const latests = [0n, step.expect, c.compiled.unknown, h.latest[f]! + 1n, ...written];
      for (const seen of [0n, 1n])
        for (const latest of latests)
          if (seen !== h.seen[f] || latest !== h.latest[f])
            forgeries.push([
              `seen ${seen} latest ${latest}`,
              edit(edit(h, "seen", f, seen), "latest", f, latest),
            ]);
      // Never observed, with the row introducing its key a second time (the initial tuple it would consume).
      forgeries.push(["unseen + intro", edit(edit(edit(h, "seen", f, 0n), "latest", f, 0n), "intro", f, 1n)]);
      // Self-consistent answers for an access pattern the circuit does not derive.
      const fresh = keyed.map((k, i) => (i === f ? { ...k, key: stringToField("fresh key") } : k));
      forgeries.push(["as a fresh key", keyedLatestHints(fresh)]);
      const sameKey = (k: KeyedRow, i: number) => i < f && k.hasKey && k.key === keyed[f]!.key;
      forgeries.push([
        "earlier writes dropped",
        keyedLatestHints(keyed.map((k, i) => (sameKey(k, i) ? { ...k, write: false, value: 0n } : k))),
      ]);
      forgeries.push([
        "earlier accesses dropped",
        keyedLatestHints(
          keyed.map((k, i) => (sameKey(k, i) ? { key: 0n, hasKey: false, write: false, value: 0n } : k)),
        ),
      ]);
      for (const [what, forged] of forgeries) {
        const outcome = await judge(withHints(c, forged), undefined, truth);
        if (!outcome.lie) continue; // e.g. another latest that fires all the same
        expect(outcome.accepted, `${c.file}: ${what}`).toBe(false);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(40);
  }, 900_000);

  it("a compliant trace made to fire: any keyed row's answer flipped", async () => {
    const satisfied = allCases.filter(
      (c) =>
        c.firing < 0 &&
        [
          "modify_items_lockout",
          "once_per_order",
          "status_precondition",
          "no_bag_removal",
          "auth_first",
        ].includes(c.arm),
    );
    let tried = 0;
    for (const c of satisfied) {
      const keyed = ruleKeyedRows(c.compiled, padRuleRows(c.rows, N));
      const h = keyedLatestHints(keyed);
      const truth = await circuit.witness(honestInput(c));
      for (let i = 0; i < c.rows.length; i++) {
        if (!keyed[i]!.hasKey) continue;
        const step = traceRule(c.compiled, c.rows)[i]!.step;
        for (const forged of [
          edit(h, "seen", i, 1n - h.seen[i]!),
          edit(edit(h, "seen", i, 1n), "latest", i, step.expect + 1n),
        ]) {
          const outcome = await judge(withHints(c, forged), undefined, truth);
          if (!outcome.lie) continue;
          expect(outcome.accepted, `${c.file}: row ${i}`).toBe(false);
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThan(10);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------------
describe("3. internal-signal overrides on the firing row", () => {
  it("inverses, comparator and range bits, and the derived verdict signals", async () => {
    let tried = 0;
    for (const c of attacked(OVERRIDDEN)) {
      const f = c.firing;
      const input = honestInput(c);
      const truth = await circuit.witness(input);
      const bit = (name: string) => (peek: Peek) => ({ [name]: 1n - peek(name) });
      const set = (name: string, v: bigint) => () => ({ [name]: v });
      const moves: [string, (peek: Peek) => Record<string, bigint>][] = [];
      // IsZero inverses: isRegister, isPair, sameAsExpect, isUnknown (IsEqual), keyed, first, registerEmpty
      // (IsZero), checkGuard, writeGuard, keyPresent, preferPresent (NonZero), localIn (one a set element).
      const inverses = [
        ...signalsLike(circuit, new RegExp(`^rows\\.IsEqual_\\d+_\\d+\\[${f}\\]\\.isz\\.inv$`)),
        ...signalsLike(circuit, new RegExp(`^rows\\.IsZero_\\d+_\\d+\\[${f}\\]\\.inv$`)),
        ...signalsLike(circuit, new RegExp(`^rows\\.NonZero_\\d+_\\d+\\[${f}\\]\\.IsZero_\\d+_\\d+\\.inv$`)),
        ...signalsLike(circuit, new RegExp(`^rows\\.IsInSet_\\d+_\\d+\\[${f}\\]\\.IsZero_\\d+_\\d+\\.inv$`)),
      ];
      // 13 on the keyed-state fixtures' firing rows; 12 on the payment row (the symbol table names one fewer there,
      // not looked into): every inverse the patterns find is overridden below.
      expect(new Set(inverses).size, c.file).toBeGreaterThanOrEqual(12);
      for (const inv of new Set(inverses)) for (const v of [7n]) moves.push([`${inv} = ${v}`, set(inv, v)]);
      // The comparators' top bit (the comparison's result) and low bits, and the range checks' bits.
      for (const lt of signalsLike(
        circuit,
        new RegExp(`^rows\\.LessThan_\\d+_\\d+\\[${f}\\]\\.n2b\\.out\\[(0|31|32)\\]$`),
      ))
        moves.push([lt, bit(lt)]);
      for (const b of signalsLike(
        circuit,
        new RegExp(`^rows\\.(aboveBits\\[${f}\\]\\[[01]\\]|localBits\\[${f}\\])\\.out\\[(0|31)\\]$`),
      ))
        moves.push([b, bit(b)]);
      // The derived signals themselves (the solver re-derives everything else from the constraints).
      for (const s of [
        "checked",
        "checkGuard",
        "hasKey",
        "stateFires",
        "localFires",
        "fires",
        "sameAsExpect",
        "isUnknown",
        "above",
        "localAbove",
        "localIn",
        "live",
        "idle",
        "writes",
        "writesKey",
        "skipsWrite",
        "loads",
        "usesRegister",
        "registerEmpty",
        "keyPresent",
      ])
        if (circuit.signals.has(`rows.${s}[${f}]`)) moves.push([`rows.${s}[${f}]`, bit(`rows.${s}[${f}]`)]);
      // The register the row reads and the one it leaves (a field value, not a bit).
      for (const s of ["registerIn", "registerOut"])
        if (circuit.signals.has(`rows.${s}[${f}]`))
          moves.push([
            `rows.${s}[${f}] + 1`,
            (peek) => ({ [`rows.${s}[${f}]`]: peek(`rows.${s}[${f}]`) + 1n }),
          ]);
      // clean[0] and clean[N − 1] are linear in their neighbours (the compiler substitutes them): the row's own.
      if (circuit.signals.has(`rows.clean[${f}]`)) moves.push([`clean`, set(`rows.clean[${f}]`, 1n)]);
      moves.push([`violated`, set("violated", 0n)]);
      for (const [what, override] of moves) {
        // Accepted with the honest verdicts is no lie (an IsZero inverse of 0 is free); any other would be one.
        const outcome = await judge(input, override, truth);
        expect(outcome.accepted && outcome.lie, `${c.file}: ${what}`).toBe(false);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(60);
  }, 900_000);
});

// ---------------------------------------------------------------------------------------------------------
describe("4. θ shapes compileRule never makes", () => {
  const c = () =>
    allCases.find((x) => x.file === "retail/modify_items_lockout/violated-cancel-after-modify.json")!;
  const withTheta = (changes: Input): Input => ({ ...honestInput(c()), ...changes });
  const column = (k: number, j: number, v: string) => {
    const cols = (honestInput(c()).entryColumns as string[][]).map((col) => [...col]);
    cols[k]![j] = v;
    return cols;
  };

  it("non-boolean flags, two seen-modes, an op out of range, a bound past 2^32: refused", async () => {
    const refused: [string, Input][] = [
      ["fireSeen = 2", { fireSeen: ["2"] }],
      ["fireSeen = -1", { fireSeen: [String(P - 1n)] }],
      ["fireUnseen = 2", { fireUnseen: ["2"] }],
      ["fireSeen + fireSeenEqual", { fireSeenEqual: ["1"] }],
      ["fireSeen = 1/2 twice", { fireSeen: [String((P + 1n) / 2n)], fireSeenEqual: [String((P + 1n) / 2n)] }],
      ["localOp = 3", { localOp: ["3"] }],
      ["localOp = -1", { localOp: [String(P - 1n)] }],
      ["localBound = 2^32 (above)", { localOp: ["1"], localSel: ["8"], localBound: [String(2n ** 32n)] }],
      ["localBound = -1 (above)", { localOp: ["1"], localSel: ["8"], localBound: [String(P - 1n)] }],
    ];
    for (const [what, changes] of refused)
      expect(await witnessFails(circuit, withTheta(changes)), what).toBe(true);
    for (const [what, changes] of refused)
      expect((await judge(withTheta(changes))).accepted, what).toBe(false);
  });

  it("a check or write column other than 0/1, or a tool named twice, on a tool the trace uses: refused", async () => {
    const theta = honestInput(c());
    const tools = theta.entryTool as string[];
    const used = tools.findIndex((t) => c().rows.some((r) => r.ok && String(r.tool) === t));
    const free = tools.findIndex((t) => t === "0");
    const dup = [...tools];
    dup[free] = tools[used]!;
    const cols = (theta.entryColumns as string[][]).map((col) => [...col]);
    cols[0]![free] = "1";
    // The copy names the same (tool, part): a padding entry's part is RULE_PARTS, which no row has.
    const parts = [...(theta.entryPart as string[])];
    parts[free] = parts[used]!;
    const refused: [string, Input][] = [
      ["check = 2", { entryColumns: column(0, used, "2") }],
      ["write = 2", { entryColumns: column(5, used, "2") }],
      ["check = -1", { entryColumns: column(0, used, String(P - 1n)) }],
      ["a tool named twice, both checking", { entryTool: dup, entryPart: parts, entryColumns: cols }],
    ];
    for (const [what, changes] of refused)
      expect((await judge(withTheta(changes))).accepted, what).toBe(false);
  });

  it("accepted but never compiled: a selector past W reads 0 (no key, no check), where the oracle would read undefined", async () => {
    // Not an attack on a user under AAP-7 (θ is a named τ³ arm, compiled by compileRule, and the escrow binds its
    // hash), but the circuit does take these vectors: pinned here as the circuit reads them.
    // Hints for the access pattern the circuit derives under the changed θ.
    const hinted = (keyed: KeyedRow[], changes: Input): Input => {
      const h = keyedLatestHints(keyed);
      return { ...withHints({ ...c(), compiled: c().compiled }, h, keyed), ...changes };
    };
    const none: KeyedRow[] = Array.from({ length: N }, () => ({
      key: 0n,
      hasKey: false,
      write: false,
      value: 0n,
    }));
    // keySel past W on every entry: no row has a key, so nothing is ever seen and a `seen` rule never fires
    // (the oracle would key every row by `undefined`, one flag for the session, and fire on the second
    // modification).
    const pastW = String(RULE_FACTS + 1);
    const keyless = {
      ...c().compiled,
      entries: c().compiled.entries.map((e) => ({ ...e, keySel: RULE_FACTS + 1 })),
    };
    expect(evaluateRule(keyless, c().rows).seq).not.toBe(null);
    const keySel = (honestInput(c()).entryColumns as string[][]).map((col, k) =>
      k === 11 ? col.map(() => pastW) : col,
    );
    expect(await judge(hinted(none, { entryColumns: keySel }))).toEqual({
      accepted: true,
      violated: 0n,
      lie: false,
    });
    // checkWhen past W on every entry: no row is checked (the writes stay).
    const writesOnly = {
      ...c().compiled,
      entries: c().compiled.entries.map((e) => ({ ...e, check: false })),
    };
    const checkWhen = (honestInput(c()).entryColumns as string[][]).map((col, k) =>
      k === 1 ? col.map(() => pastW) : col,
    );
    expect(
      await judge(hinted(ruleKeyedRows(writesOnly, padRuleRows(c().rows, N)), { entryColumns: checkWhen })),
    ).toEqual({
      accepted: true,
      violated: 0n,
      lie: false,
    });
    // No state test at all (compileRule refuses it): never fires.
    expect(await judge(withTheta({ fireSeen: ["0"] }))).toEqual({ accepted: true, violated: 0n, lie: false });
  });
});

// ---------------------------------------------------------------------------------------------------------
describe("5. range assumptions: past 2^32 the claim is unprovable, never a wrong verdict", () => {
  const rowOf = (seq: number, tool: string, facts: Record<number, bigint>): RuleRow => ({
    seq,
    tool: stringToField(tool),
    ok: true,
    part: 0,
    facts: Array.from({ length: RULE_FACTS }, (_, k) => facts[k] ?? 0n),
  });

  it("seenAbove: a stored count past 2^32, or one that wraps, has no witness either way", async () => {
    const compiled = compileRule(TAU_RULES.tau_airline.no_bag_removal!, TAU_FACTS.tau_airline, "bags");
    const R = stringToField("RES1");
    for (const stored of [2n ** 32n + 5n, P - 1n]) {
      // get_reservation_details stores storedBags (fact 3); the update proposes bags (fact 4) = 3.
      const rows = [
        rowOf(1, "get_reservation_details", { 0: R, 3: stored }),
        rowOf(2, "update_reservation_baggages", { 0: R, 4: 3n, 3: 4n }),
      ];
      expect(evaluateRule(compiled, rows).seq).toBe(2); // the oracle compares bigints: it fires
      const input = honestInput({ compiled, rows });
      expect(await witnessFails(circuit, input), String(stored)).toBe(true);
      // Nor can the prover answer around it: latest below 2^32 on that row is a lie the memory check refuses.
      const keyed = ruleKeyedRows(compiled, padRuleRows(rows, N));
      const lie = edit(keyedLatestHints(keyed), "latest", 1, 2n);
      const c: Case = {
        file: "hand",
        domain: "tau_airline",
        arm: "no_bag_removal",
        compiled,
        rows,
        firing: 1,
      };
      expect((await judge(withHints(c, lie))).accepted).toBe(false);
    }
  });

  it("local above: a fact past 2^32 on any row, checked or not, has no witness", async () => {
    const compiled = compileRule(TAU_RULES.tau_airline.passenger_cap!, TAU_FACTS.tau_airline, "cap");
    // passengers (fact 2) on a row of a tool the rule never checks: the oracle ignores it, the circuit's
    // localBits range check (not gated by `checked`) refuses the whole claim.
    const rows = [rowOf(1, "get_user_details", { 2: 2n ** 40n }), rowOf(2, "book_reservation", { 2: 3n })];
    expect(evaluateRule(compiled, rows).seq).toBe(null);
    expect(await witnessFails(circuit, honestInput({ compiled, rows }))).toBe(true);
    // The same fact below 2^32: provable, and satisfied.
    const ok = [rowOf(1, "get_user_details", { 2: 2n ** 31n }), rowOf(2, "book_reservation", { 2: 3n })];
    const w = await circuit.witness(honestInput({ compiled, rows: ok }));
    expect(w[circuit.signals.get("violated")!]).toBe(0n);
  });
});
