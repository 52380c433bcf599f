// The rule circuit's private inputs (circuits/gadgets/rule.circom, RuleCheck): θ's columns, the rows padded to
// the circuit's capacity, and the keyed-latest-value hints for the rule's state. Rows past the trace are not
// ok and have no facts, so they are no rows of the rule.
import type { CircuitInput } from "../inputs.js";
import { keyedLatestChain, keyedLatestHints, type KeyedRow } from "../keyed-latest.js";
import { countBits } from "../multiset.js";
import {
  RULE_ENTRIES,
  RULE_FACTS,
  ruleStep,
  ruleThetaVector,
  type CompiledRule,
  type RuleRow,
} from "./rule.js";

const strings = (xs: readonly bigint[]) => xs.map(String);

/** θ's part of the input, in RuleCheck's names, from the vector it is hashed as (one order, ruleThetaVector). */
export function ruleThetaInputs(c: CompiledRule): CircuitInput {
  const v = ruleThetaVector(c);
  const [
    keySel,
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
  const set = v.slice(10, 10 + c.localSet.length);
  const table = v.slice(10 + c.localSet.length);
  const column = (k: number) => strings(table.slice(k * RULE_ENTRIES, (k + 1) * RULE_ENTRIES));
  return {
    keySel: [String(keySel)],
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
    entryColumns: [1, 2, 3, 4, 5, 6, 7, 8].map(column),
  };
}

/** The state accesses the rule makes, one per row of the capacity (the keyed-latest-value gadget's rows). */
export function ruleKeyedRows(c: CompiledRule, rows: readonly RuleRow[], capacity: number): KeyedRow[] {
  return Array.from({ length: capacity }, (_, i) => {
    const row = rows[i];
    if (row === undefined) return { key: 0n, hasKey: false, write: false, value: 0n };
    const step = ruleStep(c, row);
    return { key: step.key, hasKey: step.hasKey, write: step.write, value: step.value };
  });
}

/** The keyed state's hints for the rule over these rows (capacity of them), drawn at `seed`. */
export function ruleHintInputs(
  c: CompiledRule,
  rows: readonly RuleRow[],
  capacity: number,
  seed: bigint,
): CircuitInput {
  if (rows.length > capacity) throw new RangeError(`${rows.length} rows exceed the circuit's ${capacity}`);
  const keyed = ruleKeyedRows(c, rows, capacity);
  const hints = keyedLatestHints(keyed);
  const chain = keyedLatestChain(keyed, capacity, seed, countBits(capacity), hints);
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

/** Every private input of RuleCheck but the seed: rows, θ and the state's hints, drawn at `seed`. */
export function ruleCircuitInputs(
  c: CompiledRule,
  rows: readonly RuleRow[],
  capacity: number,
  seed: bigint,
): CircuitInput {
  const padded = Array.from({ length: capacity }, (_, i) => rows[i]);
  return {
    ok: padded.map((r) => (r?.ok ? "1" : "0")),
    tool: padded.map((r) => String(r?.tool ?? 0n)),
    facts: padded.map((r) => strings(r?.facts ?? Array<bigint>(RULE_FACTS).fill(0n))),
    ...ruleThetaInputs(c),
    ...ruleHintInputs(c, rows, capacity, seed),
  };
}
