// Independent adversarial review (issue 37): RecordRows (circuits/gadgets/record_rows.circom) and RuleRows /
// RuleCheck (circuits/gadgets/rule.circom) against the oracle (sdk/core/rules/rule-eval.ts). Small instances
// only: RecordRows(4, 8, 12) and RuleCheck(32, 16, 12, 2) (lean Poseidon), the same specs as record-rows.test.ts
// and rule-review.test.ts, so the compiled cache is shared. Written by an independent reviewer in its own clone
// (npm run test:full): A and B found no forgery; C (a key of one map equal to another's) and D (a segment's row
// layout unbound by the keyed challenges) were real, are fixed (every key names its map; a record that binds no
// rows has exactly one empty row) and now assert the fixes; E pins the capacity limit issue 37 leaves open.
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS, poseidon, stringToField } from "../../sdk/core/hash.js";
import {
  keyedLatestChain,
  keyedLatestHints,
  type KeyedLatestHints,
  type KeyedRow,
} from "../../sdk/core/keyed-latest.js";
import { countBits, rowWeights } from "../../sdk/core/multiset.js";
import {
  RULE_FACTS,
  compileRule,
  type CompiledRule,
  type Rule,
  type RuleEntry,
  type RuleRow,
} from "../../sdk/core/rules/rule.js";
import { traceRule } from "../../sdk/core/rules/rule-eval.js";
import { padRuleRows, ruleCircuitInputs, ruleKeyedRows } from "../../sdk/core/rules/rule-witness.js";
import { tauRowsDigest, type FactRow } from "../../sdk/core/rules/tau-rows.js";
import { accepts, compileTestCircuit, type TestCircuit } from "../helpers/circuit.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importTauRecords } from "../../sdk/core/import-tau.js";
import { evaluateRule } from "../../sdk/core/rules/rule-eval.js";
import { TAU_RULES } from "../../sdk/core/rules/tau-arms.js";
import { TAU_FACTS } from "../../sdk/core/rules/tau-facts.js";
import { tauRuleRows } from "../../sdk/core/rules/tau-rows.js";
import { aap7Rule } from "../../sdk/core/predicates/aap7/definition.js";
import { aap7SegmentChain } from "../../sdk/core/predicates/aap7/segment.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import { planSegments } from "../../sdk/core/segments.js";
import { segmentInputs } from "../../prover/segments/witness.js";
import { predicateFixtures } from "../helpers/fixtures.js";
import { compileAap7Segment8 } from "../helpers/segment-circuits.js";
import { aap7Rows } from "../../sdk/core/predicates/aap7/rows.js";
import { tauRows } from "../../sdk/core/rules/tau-rows.js";
import { withRowPads } from "../../sdk/core/predicates/aap7/pads.js";
import { claimInput } from "../../prover/witness.js";
import { compileInstance, instancesOf } from "../helpers/instance.js";
import { expectVerdict } from "../helpers/circuit.js";

const W = RULE_FACTS;
const P = FIELD_MODULUS;

// ---------------------------------------------------------------------------------------------------------
// Part A: RecordRows(4, 8, 12)
const RN = 4;
const RM = 8;
const factRow = (part: number | bigint, ...facts: bigint[]): { part: bigint; facts: bigint[] } => ({
  part: BigInt(part),
  facts: Array.from({ length: W }, (_, k) => facts[k] ?? 0n),
});
type Row = ReturnType<typeof factRow>;
interface Rec {
  rows: Row[];
  tool: bigint;
  ok: boolean;
}
const digestOf = (rows: Row[]) =>
  tauRowsDigest(rows.map((r) => ({ part: r.part as unknown as number, facts: r.facts }) as FactRow));
const HONEST: Rec[] = [
  { rows: [factRow(0, 5n)], tool: 11n, ok: true },
  { rows: [factRow(0, 7n, 1n), factRow(1), factRow(3, 9n, 4n)], tool: 22n, ok: true },
  { rows: [factRow(0)], tool: 33n, ok: false },
  { rows: [factRow(0, 2n), factRow(4, 6n)], tool: 22n, ok: true },
];
interface Laid {
  row: Row;
  tool: bigint;
  ok: boolean;
  live?: boolean;
}
const flat = (records: Rec[] = HONEST): Laid[] =>
  records.flatMap((r) => r.rows.map((row) => ({ row, tool: r.tool, ok: r.ok, live: true })));
function rrInput(records: Rec[], laid: Laid[] = flat(records)) {
  const padded = [
    ...laid,
    ...Array.from({ length: RM - laid.length }, () => ({
      row: factRow(0),
      tool: 0n,
      ok: false,
      live: false,
    })),
  ];
  return {
    seedIn: "77",
    digest: records.map((r) => String(digestOf(r.rows))),
    tool: records.map((r) => String(r.tool)),
    ok: records.map((r) => (r.ok ? "1" : "0")),
    live: padded.map((r) => (r.live === false ? "0" : "1")),
    part: padded.map((r) => String(r.row.part)),
    facts: padded.map((r) => r.row.facts.map(String)),
    rowTool: padded.map((r) => String(r.tool)),
    rowOk: padded.map((r) => (r.ok ? "1" : "0")),
  };
}

let rr: TestCircuit;
let rc: TestCircuit;
beforeAll(async () => {
  rr = await compileTestCircuit("record-rows-4-8", {
    includes: ["circuits/gadgets/record_rows.circom"],
    template: "RecordRows",
    args: [RN, RM, W],
    publicSignals: [],
  });
  rc = await compileTestCircuit("rule-check-review", {
    includes: ["circuits/gadgets/rule.circom"],
    template: "RuleCheck",
    args: [32, 16, 12, 2],
    poseidon: "lean",
    publicSignals: [],
  });
}, 600_000);

describe("A. RecordRows(4, 8, 12)", () => {
  it("honest baseline accepted", async () => {
    expect(await accepts(rr, rrInput(HONEST))).toBe(true);
  });

  it("A1 a record with no run (its rows dropped, the others shifted up): refused", async () => {
    const rows = flat();
    // record 2 (one row, index 4) dropped
    expect(
      await accepts(
        rr,
        rrInput(
          HONEST,
          rows.filter((_, i) => i !== 4),
        ),
      ),
    ).toBe(false);
    // the last record's rows dropped (dead instead)
    expect(await accepts(rr, rrInput(HONEST, rows.slice(0, 5)))).toBe(false);
  });

  it("A2 an extra run (a fifth record's rows after the fourth): refused", async () => {
    const rows = flat();
    expect(await accepts(rr, rrInput(HONEST, [...rows, { row: factRow(0, 5n), tool: 11n, ok: true }]))).toBe(
      false,
    );
    // the same with ok 0 (a harmless-looking run)
    expect(await accepts(rr, rrInput(HONEST, [...rows, { row: factRow(0), tool: 0n, ok: false }]))).toBe(
      false,
    );
  });

  it("A3 a record's run given to the record with the same digest but another tool: refused", async () => {
    // Records 0 and 3 share their rows (same digest), tools differ: swap their runs.
    const same: Rec[] = [
      { rows: [factRow(0, 2n), factRow(4, 6n)], tool: 11n, ok: true },
      HONEST[1]!,
      HONEST[2]!,
      { rows: [factRow(0, 2n), factRow(4, 6n)], tool: 22n, ok: true },
    ];
    expect(await accepts(rr, rrInput(same))).toBe(true);
    const laid = flat(same).map((l, i) => (i < 2 ? { ...l, tool: 22n } : i >= 6 ? { ...l, tool: 11n } : l));
    expect(await accepts(rr, rrInput(same, laid))).toBe(false);
    // ok swapped between two records of the same digest and tool
    const sameOk: Rec[] = same.map((r, k) => (k === 3 ? { ...r, tool: 11n, ok: false } : r));
    expect(await accepts(rr, rrInput(sameOk))).toBe(true);
    const laidOk = flat(sameOk).map((l, i) =>
      i < 2 ? { ...l, ok: false } : i >= 6 ? { ...l, ok: true } : l,
    );
    expect(await accepts(rr, rrInput(sameOk, laidOk))).toBe(false);
  });

  it("A4 parts are not range-checked here: a committed part 8 or 2^64 is taken (the profile never commits one)", async () => {
    const odd: Rec[] = HONEST.map((r, k) =>
      k === 1 ? { ...r, rows: [factRow(0, 7n, 1n), factRow(8), factRow(1n << 64n, 9n, 4n)] } : r,
    );
    expect(await accepts(rr, rrInput(odd))).toBe(true);
  });

  it("A5 a record whose committed rows hold part 0 in the middle: unprovable (refused), not mis-read", async () => {
    const mid: Rec[] = HONEST.map((r, k) =>
      k === 1 ? { ...r, rows: [factRow(0, 7n, 1n), factRow(0, 3n), factRow(3, 9n, 4n)] } : r,
    );
    expect(await accepts(rr, rrInput(mid))).toBe(false);
  });

  it("A6 dead rows are free (any part, tool, facts) while their ok is 0; ok 1 on a dead row refused", async () => {
    const rows = flat();
    const dead = [...rows, { row: factRow(0, 123n), tool: 99n, ok: false, live: false }];
    expect(await accepts(rr, rrInput(HONEST, dead))).toBe(true);
    const deadOk = dead.map((l, i) => (i === 7 ? { ...l, ok: true } : l));
    expect(await accepts(rr, rrInput(HONEST, deadOk))).toBe(false);
    // A dead row of part != 0 right after an ok record must copy its ok (1), which a dead row may not hold:
    // the witness must give dead rows part 0 (rows.ts does), else the honest trace is unprovable.
    const deadSub = [...rows, { row: factRow(5, 1n), tool: 22n, ok: false, live: false }];
    expect(await accepts(rr, rrInput(HONEST, deadSub))).toBe(false);
  });

  it("A7 the non-executed record (free digest) given a second run that starts with part 0: refused", async () => {
    // record 2 given rows [p0, p0] chained as one digest: the circuit cuts it into two runs
    const two: Rec[] = HONEST.map((r, k) => (k === 2 ? { ...r, rows: [factRow(0), factRow(0, 1n)] } : r));
    expect(await accepts(rr, rrInput(two))).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Part B: RuleCheck(32, 16, 12, 2): the oracle against the circuit, and answer-dependent forgeries.
const N = 32;
const TB = countBits(N);
const SEED = 0x7265763337n;
const LAYOUT = Array.from({ length: W }, (_, k) => `f${k}`);
const T = (name: string) => stringToField(name);

function weightsFor(keyed: readonly KeyedRow[], h: KeyedLatestHints): bigint[] {
  try {
    return rowWeights(keyed.map((x, i) => (h.intro[i] === 1n ? x.key : null)));
  } catch {
    return h.intro.map((x) => (x === 1n ? 1n : 0n));
  }
}
const S = (xs: readonly bigint[]) => xs.map(String);
function honestRC(c: CompiledRule, rows: RuleRow[]) {
  return { ...ruleCircuitInputs(c, rows, N, SEED), seed: String(SEED) };
}
function forgedRC(c: CompiledRule, rows: RuleRow[], keyed: KeyedRow[], h: KeyedLatestHints) {
  const chain = keyedLatestChain(keyed, N, SEED, TB, h, weightsFor(keyed, h));
  return {
    ...honestRC(c, rows),
    seen: S(h.seen),
    latest: S(h.latest),
    age: S(h.age),
    intro: S(h.intro),
    finalValue: S(h.finalValue),
    finalSeen: S(h.finalSeen),
    finalTime: S(h.finalTime),
    weight: S(chain.weight),
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
const fr = (facts: Record<number, bigint>) => Array.from({ length: W }, (_, k) => facts[k] ?? 0n);
const row = (seq: number, tool: string, part: number, facts: Record<number, bigint>, ok = true): RuleRow => ({
  seq,
  tool: tool === "" ? 0n : T(tool),
  ok,
  part,
  facts: fr(facts),
});
/** The oracle's per-row fires, and the circuit's (honest witness), and whether the r1cs accepts it. */
async function compare(c: CompiledRule, rows: RuleRow[]) {
  const oracle = traceRule(c, padRuleRows(rows, N)).map((t) => t.fires);
  const w = await rc.witness(honestRC(c, rows));
  const ok = rc.firstUnsatisfied(w) === -1;
  const fires = Array.from({ length: N }, (_, i) => w[rc.signals.get(`rows.fires[${i}]`)!] === 1n);
  return { ok, oracle, fires, violated: w[rc.signals.get("violated")!] };
}
// A named-tool rule compiled against the layout (tool names replaced by their ids below).
function compile(rule: Rule): CompiledRule {
  return compileRule(rule, LAYOUT, "review-37");
}

describe("B. RuleCheck(32, 16, 12, 2): register, loads, pairs, ifUnseen", () => {
  // w writes state[f0] = f1; l loads its register from state[f0]; its part-1 sub-row checks state[register]
  // (fires when never written).
  const LOAD: Rule = {
    key: "f0",
    entries: [
      { tool: "w", key: "f0", write: { value: "f1" } },
      { tool: "l", key: "f0", load: {} },
      { tool: "l", part: 1, key: "register", check: {} },
    ],
    fire: { unseen: true },
  };
  it("B1 the load row's answer forged (register moved), accesses recertified for the forged register: refused", async () => {
    const c = compile(LOAD);
    const rows = [
      row(0, "w", 0, { 0: 5n, 1: 9n }),
      row(1, "w", 0, { 0: 9n, 1: 1n }),
      row(2, "l", 0, { 0: 5n }),
      row(2, "l", 1, {}),
    ];
    const h = await compare(c, rows);
    expect(h.ok).toBe(true);
    expect(h.fires).toEqual(h.oracle);
    expect(h.violated).toBe(0n);
    // Control: the plumbing (hints, weights, challenges recomputed here) accepts the honest answers.
    const honestKeyed = ruleKeyedRows(c, padRuleRows(rows, N));
    expect(await accepts(rc, forgedRC(c, rows, honestKeyed, keyedLatestHints(honestKeyed)))).toBe(true);
    // Forge: the load reads 7 (never written) so the check at row 3 keys 7 and fires.
    const keyed = ruleKeyedRows(c, padRuleRows(rows, N)).map((k, i) => (i === 3 ? { ...k, key: 7n } : k));
    const honestPattern = keyedLatestHints(keyed);
    const forged = edit(honestPattern, "latest", 2, 7n);
    expect(await accepts(rc, forgedRC(c, rows, keyed, forged))).toBe(false);
    // Forge with the read of key 5 as never written (register 0: the sub-row idles; no fire either way), and
    // with latest 7 as a fresh intro of key 5.
    const fresh = edit(edit(edit(honestPattern, "seen", 2, 1n), "latest", 2, 7n), "intro", 2, 1n);
    expect(await accepts(rc, forgedRC(c, rows, keyed, fresh))).toBe(false);
    // The other way: state[9] never written (record 1 absent), honest fires; forge the load to read 5 (written).
    const rows2 = [
      row(0, "w", 0, { 0: 5n, 1: 9n }),
      row(1, "w", 0, { 0: 5n, 1: 9n }),
      row(2, "l", 0, { 0: 5n }),
      row(2, "l", 1, {}),
    ];
    const h2 = await compare(c, rows2);
    expect(h2.ok && h2.violated === 1n).toBe(true);
    const keyed2 = ruleKeyedRows(c, padRuleRows(rows2, N)).map((k, i) => (i === 3 ? { ...k, key: 5n } : k));
    const f2 = edit(keyedLatestHints(keyed2), "latest", 2, 5n);
    expect(await accepts(rc, forgedRC(c, rows2, keyed2, f2))).toBe(false);
  });

  it("B2 ifUnseen: a first write skipped by a forged seen = 1, accesses recertified without the write: refused", async () => {
    const c = compile({
      key: "f0",
      entries: [
        { tool: "a", write: { value: "f1", ifUnseen: true } },
        { tool: "b", check: { expect: "f1" } },
      ],
      fire: { seenDiffers: true },
      unknown: 0n,
    });
    // a writes 3 (first), a tries 4 (kept 3), b expects 4: differs → fires.
    const rows = [
      row(0, "a", 0, { 0: 5n, 1: 3n }),
      row(1, "a", 0, { 0: 5n, 1: 4n }),
      row(2, "b", 0, { 0: 5n, 1: 4n }),
    ];
    const h = await compare(c, rows);
    expect(h.ok && h.violated === 1n).toBe(true);
    expect(h.fires).toEqual(h.oracle);
    // Forge: row 0 answers seen (so it does not write), row 1 then writes 4 and row 2 sees 4: no fire.
    const keyed = ruleKeyedRows(c, padRuleRows(rows, N)).map((k, i) =>
      i === 0 ? { ...k, write: false, value: 0n } : i === 1 ? { ...k, write: true, value: 4n } : k,
    );
    const base = keyedLatestHints(keyed);
    for (const latest of [0n, 3n, 4n]) {
      const forged = edit(edit(base, "seen", 0, 1n), "latest", 0, latest);
      expect(await accepts(rc, forgedRC(c, rows, keyed, forged)), `latest ${latest}`).toBe(false);
    }
  });

  it("B3 a pair key equal to a fact key collides as in the oracle (one map): circuit = oracle", async () => {
    const pk = poseidon([9n, 2n]);
    const c = compile({
      key: "f0",
      entries: [
        { tool: "w", key: "f0", write: { value: "f1" } },
        { tool: "l", key: "f0", load: {} },
        { tool: "l", part: 1, key: { pair: "f2" }, check: {} },
      ],
      fire: { seen: true },
    });
    const rows = [
      row(0, "w", 0, { 0: 5n, 1: 9n }),
      row(1, "w", 0, { 0: pk, 1: 1n }), // a fact key equal to Poseidon(9, 2)
      row(2, "l", 0, { 0: 5n }),
      row(2, "l", 1, { 2: 2n }),
    ];
    const r = await compare(c, rows);
    expect(r.ok).toBe(true);
    expect(r.fires).toEqual(r.oracle);
    expect(r.violated).toBe(1n);
  });

  it("B4 register keys across records: the register is reset at each part 0 (register-in at a record boundary)", async () => {
    const c = compile(LOAD);
    // Record 2 loads 9; record 3 is a tool-l record whose primary row has no f0 (load of key 0: register 0),
    // its sub-row must idle, not reuse 9.
    const rows = [
      row(0, "w", 0, { 0: 5n, 1: 9n }),
      row(1, "l", 0, { 0: 5n }),
      row(1, "l", 1, {}),
      row(2, "l", 0, {}),
      row(2, "l", 1, {}),
    ];
    const r = await compare(c, rows);
    expect(r.ok).toBe(true);
    expect(r.fires).toEqual(r.oracle);
    // Forge registerIn of row 4 = 9 by answering the keyless load of row 3 with 9: refused (latest pinned 0).
    const keyed = ruleKeyedRows(c, padRuleRows(rows, N)).map((k, i) =>
      i === 4 ? { ...k, key: 9n, hasKey: true } : k,
    );
    const f = edit(edit(keyedLatestHints(keyed), "latest", 3, 9n), "seen", 3, 1n);
    expect(await accepts(rc, forgedRC(c, rows, keyed, f))).toBe(false);
  });

  it("B5 wildcard entries, tool-0 rows, part-8 rows (padding entries' part), ok-0 rows: circuit = oracle", async () => {
    const c = compile({
      key: "f0",
      entries: [
        { tool: "*", part: 1, key: "f0", write: { value: 1n } },
        { tool: "x", check: {} },
      ],
      fire: { seen: true },
    });
    const rows = [
      row(0, "", 0, { 0: 4n }),
      row(0, "", 1, { 0: 4n }), // tool 0 matched by "*"
      row(1, "x", 0, { 0: 4n }), // fires (4 written)
      row(2, "x", 0, { 0: 6n }),
      row(2, "x", 8, { 0: 6n }), // part 8: every padding entry matches (tool 0, part 8), columns summed
      row(3, "x", 0, { 0: 6n }),
      row(4, "y", 0, { 0: 7n }, false),
      row(4, "y", 1, { 0: 7n }, false),
      row(5, "x", 0, { 0: 7n }),
    ];
    const r = await compare(c, rows);
    expect(r.ok).toBe(true);
    expect(r.fires).toEqual(r.oracle);
  });

  it("B6 random rules and rows: the honest witness satisfies the r1cs and every row's fires is the oracle's", async () => {
    let state = 0x1234567n;
    const rnd = (n: number) => {
      state = (state * 6364136223846793005n + 1442695040888963407n) % (1n << 64n);
      return Number((state >> 33n) % BigInt(n));
    };
    const pick = <X>(xs: readonly X[]): X => xs[rnd(xs.length)]!;
    const tools = ["a", "bb", "ccc"];
    const facts = ["f0", "f1", "f2", "f3"];
    let tried = 0;
    let fired = 0;
    const mismatches: string[] = [];
    for (let iter = 0; iter < 400 && tried < 120; iter++) {
      const entries: RuleEntry[] = [];
      const used = new Set<string>();
      const ne = 1 + rnd(4);
      for (let e = 0; e < ne; e++) {
        const tool = pick([...tools, "*"]);
        const part = rnd(3);
        if (used.has(`${tool}#${part}`)) continue;
        used.add(`${tool}#${part}`);
        const entry: RuleEntry = { tool, part };
        const k = rnd(5);
        if (k === 1) entry.key = "register";
        else if (k === 2) entry.key = { pair: pick(facts) };
        else if (k === 3) entry.key = "always";
        else if (k === 4) entry.key = pick(facts);
        if (rnd(2)) {
          const ex = rnd(4);
          entry.check = {
            ...(rnd(3) === 0 ? { when: pick(facts) } : {}),
            ...(ex === 1
              ? { expect: pick(facts) }
              : ex === 2
                ? { expect: "register" }
                : ex === 3
                  ? { expect: 2n }
                  : {}),
          };
        }
        if (rnd(2))
          entry.write = {
            value: rnd(2) ? pick(facts) : BigInt(rnd(4)),
            ...(rnd(3) === 0 ? { when: pick(facts) } : {}),
            ...(rnd(2) ? { ifUnseen: true } : {}),
          };
        if (rnd(3) === 0) entry.load = rnd(2) ? { prefer: pick(facts) } : {};
        entries.push(entry);
      }
      const modes = ["seen", "seenEqual", "seenDiffers", "seenAbove", "none"] as const;
      const mode = pick(modes);
      const fire: Rule["fire"] = {
        ...(rnd(2) ? { unseen: true } : {}),
        ...(mode !== "none" ? { [mode]: true } : {}),
      };
      const lop = rnd(3);
      const rule: Rule = {
        key: pick([...facts, "always"]),
        entries,
        fire,
        unknown: BigInt(rnd(3)),
        ...(lop === 1
          ? { local: { fact: pick(facts), above: rnd(3) } }
          : lop === 2
            ? { local: { fact: pick(facts), notIn: [1n, 2n].slice(0, 1 + rnd(2)) } }
            : {}),
      };
      let c: CompiledRule;
      try {
        c = compile(rule);
      } catch {
        continue;
      }
      // Rows: records of 1..3 rows, facts in 0..3 (so keys and values collide), some not ok, some part 8.
      const rows: RuleRow[] = [];
      for (let seq = 0; rows.length < N - 3; seq++) {
        const tool = pick([...tools, ""]);
        const ok = rnd(6) !== 0;
        const nr = 1 + rnd(3);
        for (let j = 0; j < nr; j++) {
          const part = j === 0 ? 0 : rnd(8) === 0 ? 8 : 1 + rnd(2);
          rows.push({
            seq,
            tool: tool === "" ? 0n : T(tool),
            ok,
            part,
            facts: fr({ 0: BigInt(rnd(4)), 1: BigInt(rnd(4)), 2: BigInt(rnd(4)), 3: BigInt(rnd(4)) }),
          });
        }
      }
      const r = await compare(c, rows.slice(0, N));
      tried++;
      if (r.oracle.some(Boolean)) fired++;
      if (!r.ok || r.fires.some((x, i) => x !== r.oracle[i]))
        mismatches.push(
          `${JSON.stringify(rule, (_, v) => (typeof v === "bigint" ? `${v}n` : v))} ok=${r.ok}`,
        );
    }
    expect(mismatches).toEqual([]);
    expect(tried).toBeGreaterThan(60);
    expect(fired).toBeGreaterThan(10);
  }, 900_000);
});

// ---------------------------------------------------------------------------------------------------------
// Part C (oracle only, no circuit): key namespaces. SOUNDNESS.md says the maps sharing one keyed state are kept
// apart by prefixes ("user:", "profile:", ...) "or ids"; but an id key is stringToField(String(id)) with no
// prefix, so an id that is itself "user:<id>" IS that user's mention key. Circuit and oracle agree (same keys):
// this is a rule/profile issue, not a circuit one.

describe("C. airline user_id_from_user: an id-keyed write laundering a mention key (oracle)", () => {
  it("C1 a successful reservation call whose args.reservation_id is 'user:<id>' no longer makes <id> count as mentioned", () => {
    const file = join(
      import.meta.dirname,
      "..",
      "..",
      "fixtures",
      "tau",
      "airline",
      "user_id_from_user",
      "violated-id-only-from-agent.json",
    );
    const f = JSON.parse(readFileSync(file, "utf8")) as { records: Record<string, unknown>[] };
    const c = compileRule(TAU_RULES.tau_airline.user_id_from_user!, TAU_FACTS.tau_airline, "u");
    const verdict = (records: Record<string, unknown>[]) =>
      evaluateRule(c, tauRuleRows(importTauRecords(records).records, "tau_airline")).seq;
    expect(verdict(f.records)).not.toBe(null);
    const sid = f.records[0]!.session_id;
    // One more call before the violating one: get_reservation_details on a crafted id, a successful call
    // (captured_error false) whose result carries no reservation_id, so the profile keys it by args.
    const laundered = [
      ...f.records.slice(0, 7),
      {
        seq: 0,
        session_id: sid,
        tool: "tau.assistant",
        args: {},
        result: { text: "", calls: [2] },
        ts: 0,
        metadata: { benchmark_event: "assistant" },
      },
      {
        seq: 0,
        session_id: sid,
        tool: "get_reservation_details",
        args: { reservation_id: "user:mia_li_3668" },
        result: "not found",
        ts: 0,
        metadata: { benchmark_seq: 2, captured_error: false, tool_call_id: "call_0009" },
      },
      { ...f.records[7]!, result: { text: "", calls: [3] } },
      { ...f.records[8]!, metadata: { ...(f.records[8]!.metadata as object), benchmark_seq: 3 } },
      ...f.records.slice(9),
    ].map((r, i) => ({ ...r, seq: i + 1 }) as Record<string, unknown>);
    // Fixed after this review: every key names its map, so the crafted id is a reservation key and nothing else.
    expect(verdict(laundered)).not.toBe(null);
    // Control: the same call on an ordinary id leaves the violation in place.
    const control = laundered.map((r) =>
      r.tool === "get_reservation_details" &&
      (r.args as { reservation_id: string }).reservation_id.startsWith("user:")
        ? { ...r, args: { reservation_id: "XYZ123" } }
        : r,
    );
    expect(verdict(control)).not.toBe(null);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Part D: the segment circuit (aap7-segment-8, the spec of segment-rule.test.ts, cached). Its keyed argument is
// bound to finalRoot (keyed.finalRoot <== finalRoot), not to RecordRows' seedOut as the whole claim's is
// (RuleCheck.seed <== rows.seedOut). A record that is no executed call (here a blocked call) has a free rows
// digest, so the prover picks how many row slots it takes, and with that the row times (start + j + 1) of
// every later access in its segment: two layouts, same finalRoot, same records, both accepted.

describe("D. segments: row times are the prover's where a record's digest binds no rows", () => {
  const DEPTH = 3;
  const SIZE = 8;
  const SLOTS = checkpointSlots(SIZE);
  let seg: TestCircuit;
  beforeAll(async () => {
    seg = await compileAap7Segment8();
  }, 600_000);

  it("D1 a blocked call given 3 rows instead of its 1 empty row: refused (the later accesses would move to other times)", async () => {
    const f = predicateFixtures("AAP-7").find((x) => x.file === "aap-7/status-pending-then-cancel.json")!;
    const profile: EncodingProfile = { ...f.profile, tools: { ...f.profile.tools, note: {} } };
    const blocked = {
      kind: "call",
      seq: 0,
      ts: 0,
      tool: "note",
      args: {},
      result: null,
      blocked: true,
    } as unknown as TraceRecord;
    const records = [blocked, ...f.records].map(
      (r, seq) => ({ ...r, seq, ts: 1_700_000_000_000 + seq * 1000 }) as TraceRecord,
    );
    const theta = aap7Rule.parseTheta(f.theta);
    const spec = {
      records,
      profile,
      sessionSecret: 11n,
      checkpoints: [],
      predicate: aap7Rule,
      theta,
      context: 5n,
      depth: DEPTH,
      entrySlots: SLOTS,
    };
    const honest = segmentInputs(spec);
    expect(honest.inputs.length).toBe(1);
    for (const input of honest.inputs) expect(await accepts(seg, input)).toBe(true);
    // The prover's other layout: the blocked call's rows are three (its digest is its content, so its rows
    // digest is free); the order's read and the cancel move from row slots 1, 3 to 3, 5.
    const encoded = encodeTrace(records, profile, 11n);
    expect(encoded[0]!.observed).toBe(false);
    const extra = [
      { part: 0, facts: Array<bigint>(W).fill(0n) },
      { part: 2, facts: fr({ 0: 1n }) },
      { part: 5, facts: fr({ 3: 7n }) },
    ];
    const moved = encoded.map((r, i) =>
      i === 0 ? { ...r, rows: extra, obs: [tauRowsDigest(extra), 0n] } : r,
    );
    const leaves = encoded.map((r) => r.leaf);
    const finalRoot = commitmentRoot(leaves);
    const thetaInputs = aap7Rule.circuitInputs(theta);
    const other = aap7SegmentChain(moved, [0, records.length], SIZE, thetaInputs, finalRoot);
    const plans = planSegments({
      depth: DEPTH,
      leaves,
      entries: [],
      finalRoot,
      firstViolation: null,
      entrySlots: SLOTS,
      predicateStates: other.states,
    });
    const input: Record<string, unknown> = {
      ...honest.inputs[0]!,
      ...other.inputs[0]!,
      stateIn: String(plans[0]!.stateIn),
      stateOut: String(plans[0]!.stateOut),
      inViolated: plans[0]!.carryIn.violated ? "1" : "0",
    };
    expect(input.finalRoot).toBe(honest.inputs[0]!.finalRoot);
    expect(input.part).not.toEqual(honest.inputs[0]!.part);
    // Fixed after this review: a record whose digest binds no rows must have exactly one empty row.
    expect(await accepts(seg, input)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Part E: capacity. A whole claim's rows must fit its 2N row slots, and a segment chain's the 2·SIZE slots of each
// of its segments. The user controls how many mention sub-rows a turn makes (one per id-shaped token); a claim
// nobody can prove defaults to the user (docs/PROTOCOL.md), whatever the oracle says. Row pads
// (sdk/core/predicates/aap7/pads.ts) make a closed trace's rows at most twice its records, and the segments' row
// stream (circuits/gadgets/record_rows.circom RowStream) lets a record's rows cross a boundary: together, every
// closed trace fits the circuit its record count picks, whole (E2) or in segments (E1).

describe("E. capacity in segments: a user turn with many ids, its rows across a boundary", () => {
  it("E1 one user turn with 16 ids gives 17 rows, past a segment's 16 row slots: the padded session's chain of aap7_seg8 segments proves the oracle's verdict", async () => {
    const seg = await compileAap7Segment8();
    const f = predicateFixtures("AAP-7").find((x) => x.file === "aap-7/user-id-only-from-agent.json")!;
    const text = Array.from({ length: 16 }, (_, i) => `mei_kovacs_${8000 + i}`).join(" ");
    const turn = {
      kind: "call",
      seq: 0,
      ts: 1_700_000_000_000,
      tool: "tau.user",
      args: {},
      result: text,
    } as unknown as TraceRecord;
    expect(tauRows(turn, "tau_airline").length).toBe(17);
    const records = withRowPads(
      [turn, ...f.records].map(
        (r, seq) => ({ ...r, seq, ts: 1_700_000_000_000 + seq * 1000 }) as TraceRecord,
      ),
      f.profile,
    );
    const theta = aap7Rule.parseTheta(f.theta);
    const verdict = aap7Rule.evaluate(records, theta, f.profile);
    const { inputs } = segmentInputs({
      records,
      profile: f.profile,
      sessionSecret: 11n,
      checkpoints: [],
      predicate: aap7Rule,
      theta,
      context: 5n,
      depth: 3,
      entrySlots: checkpointSlots(8),
    });
    expect(inputs.length).toBe(Math.ceil(records.length / 8));
    // The turn's rows run past segment 0's 16 slots into segment 1.
    expect(inputs[1]!.runOpen).toBe("1");
    for (const input of inputs) expect(await accepts(seg, input)).toBe(true);
    expect(inputs.at(-1)!.stateOut).toBe(verdict.violated ? "2" : "1");
  });
});

describe("E. capacity, closed for whole claims by row pads: the escrow's pick by record count holds the padded trace", () => {
  const n16 = instancesOf("AAP-7").find((i) => i.name === "aap7_n16")!;
  let circuit: TestCircuit;
  // Setup builds aap7_n16 for test:full; compiled here (minutes) only where it has not.
  beforeAll(async () => {
    circuit = await compileInstance(n16.name);
  }, 600_000);

  it("E2 an 8-record τ³ airline fixture gives 19 rows: aap7_n8 cannot hold it; closed with 3 pads, aap7_n16 proves the oracle's verdict", async () => {
    const aap7 = predicateFixtures("AAP-7").find((x) => x.file === "aap-7/user-id-only-from-agent.json")!;
    const file = join(
      import.meta.dirname,
      "..",
      "..",
      "fixtures",
      "tau",
      "airline",
      "baggage_allowance",
      "satisfied-booking.json",
    );
    const raw = JSON.parse(readFileSync(file, "utf8")) as { records: unknown[] };
    const records = importTauRecords(raw.records).records;
    expect(records.length).toBe(8);
    expect(tauRuleRows(records, "tau_airline").length).toBe(19);
    const c = compileRule(TAU_RULES.tau_airline.user_id_from_user!, TAU_FACTS.tau_airline, "u");
    expect(evaluateRule(c, tauRuleRows(records, "tau_airline")).seq).toBe(null); // the oracle: satisfied
    const tools = Object.fromEntries(records.flatMap((r) => ("tool" in r ? [[r.tool, {}]] : [])));
    const profile: EncodingProfile = { ...aap7.profile, tools: { ...tools, ...aap7.profile.tools } };
    expect(() => aap7Rows(encodeTrace(records, profile, 11n), 8)).toThrow(/past the circuit's 16/);
    // Closed as the recorder closes it: 3 pads make 11 records, so the escrow picks the 16-record circuit.
    const closed = withRowPads(records, profile);
    expect(closed.length).toBe(11);
    const theta = aap7Rule.parseTheta({ domain: "tau_airline", rule: "user_id_from_user" });
    const { input } = claimInput({
      records: closed,
      profile,
      sessionSecret: 11n,
      checkpoints: [],
      predicate: aap7Rule,
      theta,
      context: 1n,
      shape: { depth: n16.params.depth, checkpoints: n16.params.checkpoints },
    });
    await expectVerdict(circuit, input, false);
  });
});
