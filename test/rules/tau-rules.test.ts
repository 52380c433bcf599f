// The τ³-bench arms written as rules (sdk/core/rules/tau-arms.ts), judged three ways on every fixture of
// fixtures/tau/ for an arm that has a rule, and on the dev runs: the rule oracle (sdk/core/rules/rule.ts)
// gives the reference's verdict and seq, and the rule circuit (circuits/gadgets/rule.circom, RuleCheck) gives
// the oracle's verdict, from one rule entry.
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { importTauRecords } from "../../sdk/core/import-tau.js";
import { compileRule, evaluateRule, RULE_ENTRIES, RULE_FACTS, RULE_SET } from "../../sdk/core/rules/rule.js";
import { ruleCircuitInputs } from "../../sdk/core/rules/rule-witness.js";
import { TAU_RULES } from "../../sdk/core/rules/tau-arms.js";
import { TAU_FACTS, tauRuleRows, type TauDomain } from "../../sdk/core/rules/tau-facts.js";
import { compileTestCircuit, signalValue, type TestCircuit } from "../helpers/circuit.js";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURES = join(ROOT, "fixtures", "tau");
const DEV = join(ROOT, "fixtures", "vai-tau");
const CAPACITY = 16;
const SEED = 0x72756c65n;

interface Fixture {
  promise_id: string;
  records: unknown[];
  expected: { violated: boolean; seq: number | null };
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith(".json") ? [join(dir, d.name)] : [],
  );
}
const jsonl = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as unknown);

const ruleOf = (promiseId: string) => {
  const [domain, arm] = promiseId.split("/") as [TauDomain, string];
  const rule = Object.hasOwn(TAU_RULES[domain], arm) ? TAU_RULES[domain][arm] : undefined;
  return rule === undefined
    ? undefined
    : { domain, compiled: compileRule(rule, TAU_FACTS[domain], promiseId) };
};

/** Every case with a rule: the fixtures, then the dev pairs, each with the reference's verdict. */
const cases = [
  ...files(FIXTURES).map((file) => {
    const f = JSON.parse(readFileSync(file, "utf8")) as Fixture;
    return {
      name: relative(FIXTURES, file),
      promiseId: f.promise_id,
      records: f.records,
      expected: f.expected,
    };
  }),
  ...jsonl(readFileSync(join(DEV, "expected.jsonl"), "utf8")).map((x) => {
    const pair = x as { case_id: string; promise_id: string; violated: boolean; seq: number | null };
    return {
      name: `dev ${pair.case_id.slice(0, 13)} ${pair.promise_id}`,
      promiseId: pair.promise_id,
      records: jsonl(readFileSync(join(DEV, "runs", `${pair.case_id}.jsonl`), "utf8")),
      expected: { violated: pair.violated, seq: pair.seq },
    };
  }),
].filter((c) => ruleOf(c.promiseId) !== undefined);

function judge(c: (typeof cases)[number]) {
  const { domain, compiled } = ruleOf(c.promiseId)!;
  const trace = importTauRecords(c.records);
  const rows = tauRuleRows(trace.records, domain);
  const { seq } = evaluateRule(compiled, rows);
  return { compiled, rows, violated: seq !== null, seq: seq === null ? null : trace.vaiSeq[seq]! };
}

describe("τ³ rules: the oracle gives the reference's verdict and seq", () => {
  it("covers the arms that have rules", () => {
    expect(new Set(cases.map((c) => c.promiseId)).size).toBe(
      Object.keys(TAU_RULES.tau_retail).length + Object.keys(TAU_RULES.tau_airline).length,
    );
  });
  for (const c of cases) {
    it(c.name, () => {
      const { violated, seq } = judge(c);
      expect({ violated, seq }).toEqual({ violated: c.expected.violated, seq: c.expected.seq });
    });
  }
});

describe("τ³ rules: the circuit gives the oracle's verdict", () => {
  let circuit: TestCircuit;
  beforeAll(async () => {
    circuit = await compileTestCircuit("rule-check", {
      includes: ["circuits/gadgets/rule.circom"],
      template: "RuleCheck",
      args: [CAPACITY, RULE_ENTRIES, RULE_FACTS, RULE_SET],
      poseidon: "lean",
      publicSignals: [],
    });
  }, 600_000);

  for (const c of cases) {
    it(c.name, async () => {
      const { compiled, rows, violated } = judge(c);
      const input = { ...ruleCircuitInputs(compiled, rows, CAPACITY, SEED), seed: String(SEED) };
      const w = await circuit.witness(input);
      expect(circuit.firstUnsatisfied(w)).toBe(-1);
      expect(signalValue(circuit, w, "violated")).toBe(violated ? 1n : 0n);
    });
  }
});
