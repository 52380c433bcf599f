// AAP-7 rules over observations and session state (issue 37): a τ³-bench arm written as a rule
// (sdk/core/rules/tau-arms.ts), judged on a trace whose profile derives the arm's domain facts.
//
// Semantics (the oracle the circuit is tested against): sdk/core/rules/rule-eval.ts evaluateRule over the rows
// sdk/core/rules/tau-rows.ts gives (each record's primary row and sub-rows: its tool, whether it ran and
// returned, the row's part and domain facts); the verdict is the record of the first row at which the rule
// fires. docs/PREDICATES.md "AAP-7 rules" says it in words.
// θ: {domain, rule}; its vector is the rule's data (ruleThetaVector), so the escrow binds exactly the rule the
// promise names, entries, tests and constants included, and the domain, which names the fact layout.
// Circuit: circuits/main/aap7_rule.circom (RecordRows and RuleCheck, circuits/gadgets/), its θ hash in
// circuits/predicates/aap7_rule.circom.
import { RULE_ENTRIES, RULE_FACTS, RULE_SET, compileRule, ruleThetaVector } from "../../rules/rule.js";
import { evaluateRule } from "../../rules/rule-eval.js";
import { ruleHintInputs, ruleThetaInputs } from "../../rules/rule-witness.js";
import { TAU_RULES } from "../../rules/tau-arms.js";
import { TAU_DOMAINS, TAU_FACTS, type TauDomain } from "../../rules/tau-facts.js";
import { tauRuleRows } from "../../rules/tau-rows.js";
import { checkThetaJson } from "../theta-common.js";
import { onlyKeys } from "../theta-amounts.js";
import { ThetaError, type PredicateDefinition } from "../types.js";
import { aap7Samples } from "./samples.js";
import { aap7Segment } from "./segment.js";
import { aap7Rows, rowsInputs, rowsSeed } from "./rows.js";
import type { Aap7Theta } from "./theta.js";

const CAPS = { entries: RULE_ENTRIES, facts: RULE_FACTS, set: RULE_SET };
/** The θ vector's code for each domain (circuits/predicates/aap7_rule.circom `domain`). */
export const DOMAIN_CODE: Record<TauDomain, bigint> = { tau_retail: 1n, tau_airline: 2n };

function fail(message: string): never {
  throw new ThetaError(message);
}

/** θ's rule, compiled against its domain's fact layout. */
export const aap7Compiled = (theta: Aap7Theta) =>
  compileRule(TAU_RULES[theta.domain][theta.rule]!, TAU_FACTS[theta.domain], `${theta.domain}/${theta.rule}`);

export const aap7Rule: PredicateDefinition<Aap7Theta, "AAP-7"> = {
  id: "AAP-7",
  code: 7,
  caps: CAPS,
  samples: aap7Samples,
  segment: aap7Segment,
  readsObservations: true,

  parseTheta(x) {
    checkThetaJson(x, "AAP-7");
    if (typeof x !== "object" || x === null || Array.isArray(x)) fail("AAP-7 θ must be an object");
    const t = x as Record<string, unknown>;
    onlyKeys(t, ["domain", "rule"], "AAP-7 θ");
    const domain = t.domain;
    if (!TAU_DOMAINS.includes(domain as TauDomain))
      fail(`AAP-7 θ: domain must be one of ${TAU_DOMAINS.join(", ")}, got ${JSON.stringify(domain)}`);
    const rules = TAU_RULES[domain as TauDomain];
    if (typeof t.rule !== "string" || !Object.hasOwn(rules, t.rule))
      fail(
        `AAP-7 θ: ${domain} has no rule ${JSON.stringify(t.rule)} (rules: ${Object.keys(rules).join(", ")}; docs/PREDICATES.md "τ³-bench rule arms")`,
      );
    return { domain: domain as TauDomain, rule: t.rule as string };
  },

  factsOf: (theta) => theta.domain,

  checkProfile(theta, profile) {
    if (profile.facts !== theta.domain)
      fail(
        `AAP-7: the rule reads the ${theta.domain} facts, but the profile derives ${profile.facts === undefined ? "none" : `the ${profile.facts} facts`}; set its "facts" to "${theta.domain}"`,
      );
  },

  thetaVector(theta) {
    return [
      7n,
      BigInt(RULE_ENTRIES),
      BigInt(RULE_FACTS),
      BigInt(RULE_SET),
      DOMAIN_CODE[theta.domain],
      ...ruleThetaVector(aap7Compiled(theta)),
    ];
  },

  evaluate(records, theta) {
    const { seq, why } = evaluateRule(aap7Compiled(theta), tauRuleRows(records, theta.domain));
    if (seq === null) return { violated: false, seq: null, reason: "" };
    const record = records.find((r) => r.seq === seq);
    const tool = record !== undefined && "tool" in record ? record.tool : "?";
    return { violated: true, seq, reason: `${theta.domain}/${theta.rule}: ${tool} at record ${seq}: ${why}` };
  },

  circuitInputs(theta) {
    return { domain: [String(DOMAIN_CODE[theta.domain])], ...ruleThetaInputs(aap7Compiled(theta)) };
  },

  witnessHints(trace, theta) {
    const capacity = trace.slots.length;
    const rows = aap7Rows(trace.records, capacity);
    return {
      status: Array.from({ length: capacity }, (_, i) => String(trace.records[i]?.status ?? 0n)),
      // A record the circuit does not read as observed passes its whole digest through RecordDigest.
      content: Array.from({ length: capacity }, (_, i) => {
        const r = trace.records[i];
        return String(r === undefined ? 0n : r.observed ? r.content : r.digest);
      }),
      ...rowsInputs(rows),
      ...ruleHintInputs(aap7Compiled(theta), rows.rows, rowsSeed(trace.finalRoot, rows)),
    };
  },
};

export type { Aap7Theta } from "./theta.js";
