// Rules over observations and session state (issue 37): one declarative form that both the TS oracle
// (evaluateRule, below) and the circuit (circuits/gadgets/rule.circom, RuleCheck) read, so an arm is a rule
// entry and its fixtures, never a hand-written template. docs/PREDICATES.md "Rules" has the semantics in
// words; sdk/core/rules/tau-arms.ts has the τ³-bench arms written in it.
//
// A record is a row: its tool, whether it ran successfully (ok: a call that was not blocked and has no error),
// and RULE_FACTS facts, field elements its domain profile derived from that record alone
// (sdk/core/rules/tau-facts.ts), 0 meaning absent. A rule names the rows it looks at by tool, in up to
// RULE_ENTRIES entries. Each entry may
//   check    the row, when its `when` fact is present: the check fires when the local test and the state test
//            both hold;
//   write    the session state, when its `when` fact is present: key → value (a fact, or a constant).
// The session state is one keyed map (circuits/gadgets/keyed_latest.circom): the rule's key is a fact, or the
// constant 1 for a flag or an event that has no key. A check reads the state before its own row's write.
// State test, on (seen, latest) for the row's key, seen = 0 when never written:
//   unseen        fires when never written (an earlier event is missing; "fail-closed" on missing evidence)
//   seen          fires when written (a lockout, a second use)
//   seenEqual     fires when written and latest = the entry's expect (a pending flag still set at the end)
//   seenDiffers   fires when written and latest ≠ expect, unless latest = `unknown` (evidence too thin:
//                 no check, "unsupported")
//   seenAbove     fires when written and latest > expect (counts + 1, both < 2^32), unless latest = `unknown`
// An entry's expect is a constant or one of the row's facts (the proposed count to compare with the stored one).
// `unseen` combines with one of the others; a rule with no state test fires on every checked row that the
// local test fires on (unseen and seen both set).
// Local test, on one fact of the row: none, `above` (a count + 1 fact above a bound, both < 2^32) or `notIn`
// (a hash not in a set of RULE_SET values; padding 0 is never a present fact).
// The verdict is the first row that fires. Rows that are not ok (blocked, errored) and rows of tools no entry
// names are not rows of the rule at all: no check, no state.
import { ThetaError } from "../errors.js";
import { stringToField } from "../hash.js";

/** Facts per row; a selector of RULE_FACTS means "the constant" (the key 1, a guard that always holds). */
export const RULE_FACTS = 10;
export const RULE_ENTRIES = 16;
export const RULE_SET = 2;
/** The bound of an `above` test, and every fact it reads, are below 2^32 (range-checked in the circuit). */
export const RULE_COUNT_BITS = 32;
export const CONSTANT = RULE_FACTS;
/** The code θ's vector starts with (the escrow's predicate id once rules are registered). */
export const RULE_PREDICATE_CODE = 7n;

/** A fact of the domain profile by name, or "always" (the constant: a guard that holds, the key 1). */
export type FactName = string;

export interface RuleEntry {
  tool: string;
  check?: { when?: FactName; expect?: bigint | FactName };
  write?: { when?: FactName; value: FactName | bigint };
}

export interface Rule {
  /** The state's key: a fact, or "always" for a single flag. */
  key: FactName;
  entries: RuleEntry[];
  local?: { fact: FactName; above: number } | { fact: FactName; notIn: bigint[] };
  fire: { unseen?: boolean; seen?: boolean; seenEqual?: boolean; seenDiffers?: boolean; seenAbove?: boolean };
  /** The latest value that means "stored without the field": seenDiffers makes no check on it. */
  unknown?: bigint;
}

/** A record as a rule reads it: its tool as the slot holds it (stringToField of the name). */
export interface RuleRow {
  seq: number;
  tool: bigint;
  ok: boolean;
  facts: bigint[];
}

/** A rule with its facts resolved to indices (the domain profile's layout): what θ and the circuit hold. */
export interface CompiledRule {
  keySel: number;
  fireUnseen: boolean;
  fireSeen: boolean;
  fireSeenEqual: boolean;
  fireSeenDiffers: boolean;
  fireSeenAbove: boolean;
  unknown: bigint;
  localSel: number;
  /** 0 none, 1 above, 2 notIn. */
  localOp: 0 | 1 | 2;
  localBound: bigint;
  localSet: bigint[];
  entries: {
    tool: bigint;
    toolName: string;
    check: boolean;
    checkWhen: number;
    expectSel: number;
    expect: bigint;
    write: boolean;
    writeWhen: number;
    valueSel: number;
    valueConst: bigint;
  }[];
}

const fail = (message: string): never => {
  throw new ThetaError(message);
};

/** Resolves a rule's fact names against a domain's fact layout (RULE_FACTS names) and checks its shape. */
export function compileRule(rule: Rule, facts: readonly string[], name: string): CompiledRule {
  const index = (f: FactName, what: string) => {
    if (f === "always") return CONSTANT;
    const i = facts.indexOf(f);
    if (i < 0) fail(`rule ${name}: ${what} names fact "${f}", which the profile does not derive`);
    return i;
  };
  const { entries } = rule;
  if (entries.length === 0 || entries.length > RULE_ENTRIES)
    fail(`rule ${name}: 1..${RULE_ENTRIES} entries, got ${entries.length}`);
  if (new Set(entries.map((e) => e.tool)).size !== entries.length)
    fail(`rule ${name}: a tool is named by two entries`);
  if (!entries.some((e) => e.check)) fail(`rule ${name}: no entry checks anything`);
  const f = rule.fire;
  const seenModes = [f.seen, f.seenEqual, f.seenDiffers, f.seenAbove].filter(Boolean).length;
  if (seenModes > 1) fail(`rule ${name}: at most one of seen, seenEqual, seenDiffers, seenAbove`);
  if (!f.unseen && seenModes === 0) fail(`rule ${name}: no state test can fire`);
  let localOp: 0 | 1 | 2 = 0;
  let localSel = CONSTANT;
  let localBound = 0n;
  let localSet: bigint[] = Array<bigint>(RULE_SET).fill(0n);
  if (rule.local !== undefined) {
    localSel = index(rule.local.fact, "the local test");
    if ("above" in rule.local) {
      localOp = 1;
      if (!Number.isInteger(rule.local.above) || rule.local.above < 0 || rule.local.above >= 2 ** 32)
        fail(`rule ${name}: the bound must be an integer in [0, 2^32)`);
      localBound = BigInt(rule.local.above);
    } else {
      localOp = 2;
      const set = rule.local.notIn;
      if (set.length === 0 || set.length > RULE_SET || set.includes(0n))
        fail(`rule ${name}: notIn holds 1..${RULE_SET} nonzero values`);
      localSet = [...set, ...Array<bigint>(RULE_SET - set.length).fill(0n)];
    }
  }
  return {
    keySel: index(rule.key, "the key"),
    fireUnseen: f.unseen === true,
    fireSeen: f.seen === true,
    fireSeenEqual: f.seenEqual === true,
    fireSeenDiffers: f.seenDiffers === true,
    fireSeenAbove: f.seenAbove === true,
    unknown: rule.unknown ?? 0n,
    localSel,
    localOp,
    localBound,
    localSet,
    entries: entries.map((e) => ({
      tool: stringToField(e.tool),
      toolName: e.tool,
      check: e.check !== undefined,
      checkWhen: e.check ? index(e.check.when ?? "always", `${e.tool}'s check`) : CONSTANT,
      expectSel: typeof e.check?.expect === "string" ? index(e.check.expect, `${e.tool}'s expect`) : CONSTANT,
      expect: typeof e.check?.expect === "bigint" ? e.check.expect : 0n,
      write: e.write !== undefined,
      writeWhen: e.write ? index(e.write.when ?? "always", `${e.tool}'s write`) : CONSTANT,
      valueSel:
        e.write === undefined || typeof e.write.value === "bigint"
          ? CONSTANT
          : index(e.write.value, `${e.tool}'s value`),
      valueConst: typeof e.write?.value === "bigint" ? e.write.value : 0n,
    })),
  };
}

const bit = (b: boolean) => (b ? 1n : 0n);

/** The rule's θ part, in the order the circuit hashes it (RuleTheta in circuits/gadgets/rule.circom). */
export function ruleThetaVector(c: CompiledRule): bigint[] {
  const pad = RULE_ENTRIES - c.entries.length;
  const column = (pick: (e: CompiledRule["entries"][number]) => bigint, padding = 0n) => [
    ...c.entries.map(pick),
    ...Array<bigint>(pad).fill(padding),
  ];
  return [
    BigInt(c.keySel),
    bit(c.fireUnseen),
    bit(c.fireSeen),
    bit(c.fireSeenEqual),
    bit(c.fireSeenDiffers),
    bit(c.fireSeenAbove),
    c.unknown,
    BigInt(c.localSel),
    BigInt(c.localOp),
    c.localBound,
    ...c.localSet,
    ...column((e) => e.tool),
    ...column((e) => bit(e.check)),
    ...column((e) => BigInt(e.checkWhen), BigInt(CONSTANT)),
    ...column((e) => BigInt(e.expectSel), BigInt(CONSTANT)),
    ...column((e) => e.expect),
    ...column((e) => bit(e.write)),
    ...column((e) => BigInt(e.writeWhen), BigInt(CONSTANT)),
    ...column((e) => BigInt(e.valueSel), BigInt(CONSTANT)),
    ...column((e) => e.valueConst),
  ];
}

/** The selected fact: facts[sel], or the constant (1, or `constant` for a written value). */
const select = (facts: readonly bigint[], sel: number, constant = 1n) =>
  sel === CONSTANT ? constant : facts[sel]!;

/** What a row does under the rule: whether it is checked, its state access, and its local test. */
export interface RuleStep {
  checked: boolean;
  hasKey: boolean;
  key: bigint;
  write: boolean;
  value: bigint;
  expect: bigint;
  localFires: boolean;
}

export function ruleStep(c: CompiledRule, row: RuleRow): RuleStep {
  const none = {
    checked: false,
    hasKey: false,
    key: 0n,
    write: false,
    value: 0n,
    expect: 0n,
    localFires: false,
  };
  const entry = c.entries.find((e) => e.tool === row.tool);
  if (!row.ok || entry === undefined) return none;
  const checked = entry.check && select(row.facts, entry.checkWhen) !== 0n;
  const writes = entry.write && select(row.facts, entry.writeWhen) !== 0n;
  const key = select(row.facts, c.keySel);
  const hasKey = (checked || writes) && key !== 0n;
  const local = select(row.facts, c.localSel);
  const localFires =
    c.localOp === 0 ? true : c.localOp === 1 ? local > c.localBound : !c.localSet.includes(local);
  return {
    checked,
    hasKey,
    key: hasKey ? key : 0n,
    write: writes && hasKey,
    value: writes && hasKey ? select(row.facts, entry.valueSel, entry.valueConst) : 0n,
    expect: select(row.facts, entry.expectSel, entry.expect),
    localFires,
  };
}

/** Whether a checked row's state test fires, given what its key held before it. */
export function stateFires(c: CompiledRule, seen: boolean, latest: bigint, expect: bigint): boolean {
  if (!seen) return c.fireUnseen;
  if (c.fireSeen) return true;
  if (c.fireSeenEqual) return latest === expect;
  if (c.fireSeenDiffers) return latest !== expect && latest !== c.unknown;
  if (c.fireSeenAbove) return latest !== c.unknown && latest > expect;
  return false;
}

/** Why a row fired, in words (the verdict's reason). */
function whyFired(c: CompiledRule, seen: boolean): string {
  const local =
    c.localOp === 1 ? "its count is over the bound" : c.localOp === 2 ? "its value is not allowed" : "";
  const state = !seen
    ? c.fireSeen
      ? ""
      : "nothing earlier in the session allows it"
    : c.fireSeen
      ? c.fireUnseen
        ? ""
        : "an earlier call already used it"
      : c.fireSeenEqual
        ? "an earlier event is still pending"
        : c.fireSeenDiffers
          ? "the stored value is not the one it requires"
          : "it proposes less than the stored value";
  return [local, state].filter((x) => x.length > 0).join(", and ") || "the rule fires";
}

/** The oracle: the first row that fires (its seq, tool and why), or none. */
export function evaluateRule(
  c: CompiledRule,
  rows: readonly RuleRow[],
): { seq: number | null; tool?: bigint; why?: string } {
  const state = new Map<bigint, bigint>();
  for (const row of rows) {
    const step = ruleStep(c, row);
    const held = step.hasKey ? state.get(step.key) : undefined;
    if (step.checked && step.localFires && stateFires(c, held !== undefined, held ?? 0n, step.expect))
      return { seq: row.seq, tool: row.tool, why: whyFired(c, held !== undefined) };
    if (step.write) state.set(step.key, step.value);
  }
  return { seq: null };
}
