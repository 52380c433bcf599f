// The rule circuit's private inputs (circuits/gadgets/rule.circom, RuleRows and RuleCheck): θ's columns, and
// the keyed-latest-value hints for the rule's state over the rows. Rows that are not ok (not live, not an
// executed call that returned) make no access, so they are no rows of the rule.
import type { CircuitInput } from "../inputs.js";
import { keyedLatestChain, keyedLatestHints, type KeyedRow } from "../keyed-latest.js";
import { countBits } from "../multiset.js";
import { RULE_ENTRIES, RULE_FACTS, ruleThetaVector, type CompiledRule, type RuleRow } from "./rule.js";
import { traceRule } from "./rule-eval.js";

const strings = (xs: readonly bigint[]) => xs.map(String);

/** Entry columns after the tool and the part (circuits/gadgets/rule.circom RULE_ENTRY_COLUMNS). */
export const RULE_ENTRY_COLUMNS = 14;

/** θ's part of the input, in RuleRows' names, from the vector it is hashed as (one order, ruleThetaVector). */
export function ruleThetaInputs(c: CompiledRule): CircuitInput {
  const v = ruleThetaVector(c);
  const [
    fireUnseen,
    fireSeen,
    fireSeenEqual,
    fireSeenDiffers,
    fireSeenAbove,
    unknown,
    localSel,
    localOp,
    localBound,
  ] = v;
  const set = v.slice(9, 9 + c.localSet.length);
  const table = v.slice(9 + c.localSet.length);
  const column = (k: number) => strings(table.slice(k * RULE_ENTRIES, (k + 1) * RULE_ENTRIES));
  return {
    fireUnseen: [String(fireUnseen)],
    fireSeen: [String(fireSeen)],
    fireSeenEqual: [String(fireSeenEqual)],
    fireSeenDiffers: [String(fireSeenDiffers)],
    fireSeenAbove: [String(fireSeenAbove)],
    unknown: [String(unknown)],
    localSel: [String(localSel)],
    localOp: [String(localOp)],
    localBound: [String(localBound)],
    localSet: strings(set),
    entryTool: column(0),
    entryPart: column(1),
    entryColumns: Array.from({ length: RULE_ENTRY_COLUMNS }, (_, k) => column(2 + k)),
  };
}

/** The state accesses the rule makes, one per row (the keyed-latest-value gadget's rows). */
export function ruleKeyedRows(c: CompiledRule, rows: readonly RuleRow[]): KeyedRow[] {
  return traceRule(c, rows).map(({ step, write }) => ({
    key: step.key,
    hasKey: step.hasKey,
    write,
    value: write ? step.value : 0n,
  }));
}

/** The keyed state's hints for the rule over these rows (all of the circuit's row slots), drawn at `seed`. */
export function ruleHintInputs(c: CompiledRule, rows: readonly RuleRow[], seed: bigint): CircuitInput {
  const keyed = ruleKeyedRows(c, rows);
  const hints = keyedLatestHints(keyed);
  const chain = keyedLatestChain(keyed, rows.length, seed, countBits(rows.length), hints);
  return {
    seen: strings(hints.seen),
    latest: strings(hints.latest),
    age: strings(hints.age),
    intro: strings(hints.intro),
    finalValue: strings(hints.finalValue),
    finalSeen: strings(hints.finalSeen),
    finalTime: strings(hints.finalTime),
    weight: strings(chain.weight),
    beta: String(chain.beta),
    zeta: String(chain.zeta),
  };
}

/** Rows padded to `capacity` with rows no rule reads (not ok, part 0, no facts). */
export function padRuleRows(rows: readonly RuleRow[], capacity: number): RuleRow[] {
  if (rows.length > capacity) throw new RangeError(`${rows.length} rows exceed the circuit's ${capacity}`);
  const none = { seq: -1, tool: 0n, ok: false, part: 0, facts: Array<bigint>(RULE_FACTS).fill(0n) };
  return [...rows, ...Array.from({ length: capacity - rows.length }, () => none)];
}

/** Every private input of RuleCheck but the seed, over `rows` padded to `capacity` (the gadget's own tests). */
export function ruleCircuitInputs(
  c: CompiledRule,
  rows: readonly RuleRow[],
  capacity: number,
  seed: bigint,
): CircuitInput {
  const padded = padRuleRows(rows, capacity);
  return {
    ok: padded.map((r) => (r.ok ? "1" : "0")),
    tool: padded.map((r) => String(r.tool)),
    part: padded.map((r) => String(r.part)),
    facts: padded.map((r) => strings(r.facts)),
    ...ruleThetaInputs(c),
    ...ruleHintInputs(c, padded, seed),
  };
}
