// What each row of an encoded trace is to AAP-7's circuits (whole claim and segments): its tool (the slot), whether
// it is an executed call that returned (kind CALL, status OK: the circuits' `ok`), and its domain facts, which its
// digest binds (sdk/core/observations.ts recordFacts). Rows past the trace are no rows of the rule.
import { KIND, SLOT, type EncodedRecord } from "../../encoding.js";
import { STATUS } from "../../observations.js";
import { RULE_FACTS, type RuleRow } from "../../rules/rule.js";

export function aap7Rows(records: readonly EncodedRecord[], count: number): RuleRow[] {
  return Array.from({ length: count }, (_, i) => {
    const r = records[i];
    if (r === undefined) return { seq: i, tool: 0n, ok: false, facts: Array<bigint>(RULE_FACTS).fill(0n) };
    return {
      seq: r.seq,
      tool: r.slots[SLOT.tool]!,
      ok: r.slots[SLOT.kind] === KIND.call && r.status === STATUS.ok,
      facts: r.facts ?? Array<bigint>(RULE_FACTS).fill(0n),
    };
  });
}
