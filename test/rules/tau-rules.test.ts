// The τ³-bench arms written as rules (sdk/core/rules/tau-arms.ts), judged three ways on every fixture of
// fixtures/tau/ for an arm that has a rule, and on the dev runs: the rule oracle (sdk/core/rules/rule.ts)
// gives the reference's verdict and seq, and AAP-7's whole-claim circuit (circuits/main/aap7_rule.circom on
// RuleCheck) gives the oracle's verdict, from one rule entry. test/rules/rule-review.test.ts attacks the gadget.
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { importTauRecords } from "../../sdk/core/import-tau.js";
import { compileRule } from "../../sdk/core/rules/rule.js";
import { evaluateRule } from "../../sdk/core/rules/rule-eval.js";
import { aap7Rule } from "../../sdk/core/predicates/aap7/definition.js";
import { TAU_RULES } from "../../sdk/core/rules/tau-arms.js";
import { TAU_FACTS, type TauDomain } from "../../sdk/core/rules/tau-facts.js";
import { tauRuleRows } from "../../sdk/core/rules/tau-rows.js";
import { expectVerdict, type TestCircuit } from "../helpers/circuit.js";
import { aap7Input, tauProfile } from "../helpers/aap7.js";
import { compileInstance } from "../helpers/instance.js";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURES = join(ROOT, "fixtures", "tau");
const DEV = join(ROOT, "fixtures", "vai-tau");

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

describe.skipIf(process.env.ZKVAI_FULL !== "1")(
  "τ³ rules: AAP-7's circuit gives the oracle's verdict",
  () => {
    // Each case as the AAP-7 promise of its arm, its run committed under the domain's fact profile, through the
    // whole-claim circuit (commitment, facts bound in each digest, θ hashed, RuleCheck): the verdict the escrow
    // would settle, and no witness for the other. Every case, in test:full (whose replay also settles the dev pairs).
    let circuit: TestCircuit;
    beforeAll(async () => {
      circuit = await compileInstance("aap7_n16");
    }, 600_000);

    // test:full only: npm test runs AAP-7's fixtures through this circuit (test/predicates/fixtures.test.ts) and a
    // random differential (test/predicates/aap7-rules.test.ts).
    const circuitCases = process.env.ZKVAI_FULL === "1" ? cases : [];
    for (const c of circuitCases) {
      it(c.name, async () => {
        const { violated } = judge(c);
        const [domain, rule] = c.promiseId.split("/") as [TauDomain, string];
        const { records } = importTauRecords(c.records);
        const profile = tauProfile(domain, records);
        const theta = aap7Rule.parseTheta({ domain, rule });
        expect(aap7Rule.evaluate(records, theta, profile).violated).toBe(violated);
        const input = aap7Input(records, theta, profile, "aap7_n16", 37n);
        const w = await expectVerdict(circuit, input, violated);
        expect(circuit.firstUnsatisfied(w)).toBe(-1);
      });
    }
  },
);
