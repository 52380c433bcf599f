// Rules over observations and session state (issue 37): one declarative form that both the TS oracle
// (sdk/core/rules/rule-eval.ts evaluateRule) and the circuit (circuits/gadgets/rule.circom) read, so an arm is
// a rule entry and its fixtures, never a hand-written template. docs/PREDICATES.md "Rules" has the semantics
// in words; sdk/core/rules/tau-arms.ts has the τ³-bench arms written in it.
//
// A record gives one or more rows (its domain profile's, sdk/core/rules/tau-facts.ts): its primary row
// (part 0) and sub-rows (part 1, 2, …), one for each thing the record holds several of: a flight a search
// returned, a payment id a booking names, an id the user typed. Every row of a record has the record's tool
// and ok (a call that was not blocked and has no error), its part, and RULE_FACTS facts, field elements the
// profile derived from that record alone, 0 meaning absent. A rule names the rows it looks at by (tool, part)
// in up to RULE_ENTRIES entries; the tool "*" names every tool's rows of that part. Each entry may
//   check    the row, when its `when` fact is present: the check fires when the local test and the state test
//            both hold;
//   write    the session state, when its `when` fact is present: key → value (a fact, or a constant); with
//            ifUnseen only when the key was never written (the first one wins);
//   load     the record's register: the value it read (0 when never written), or its `prefer` fact when
//            that is present. Later rows of the same record may key by the register (`register`), by
//            Poseidon(register, fact) (`pair`: a second map whose key is the first map's answer), or expect
//            it; while the register is 0 such a row does nothing at all (no check, no write: the evidence is
//            too thin, "unsupported"). Each record's primary row starts with the register at 0.
// The session state is one keyed map (circuits/gadgets/keyed_latest.circom). An entry's key is a fact, the
// constant 1 ("always": a flag or an event that has no key), the register or a pair; by default the rule's
// own key. A row reads the state before its own write.
// State test, on (seen, latest) for the row's key, seen = 0 when never written:
//   unseen        fires when never written (an earlier event is missing; "fail-closed" on missing evidence)
//   seen          fires when written (a lockout, a second use)
//   seenEqual     fires when written and latest = the entry's expect (a pending flag still set at the end)
//   seenDiffers   fires when written and latest ≠ expect, unless latest = `unknown` (evidence too thin:
//                 no check, "unsupported")
//   seenAbove     fires when written and latest > expect (counts + 1, both < 2^32), unless latest = `unknown`
// An entry's expect is a constant, one of the row's facts (the proposed count to compare with the stored one)
// or the register. `unseen` combines with one of the others; a rule with no state test fires on every checked
// row that the local test fires on (unseen and seen both set).
// Local test, on one fact of the row: none, `above` (a count + 1 fact above a bound, both < 2^32) or `notIn`
// (a hash not in a set of RULE_SET values; padding 0 is never a present fact).
// The verdict is the record of the first row that fires. Rows that are not ok (blocked, errored) and rows no
// entry names are not rows of the rule at all: no check, no state, no register.
import { ThetaError } from "../errors.js";
import { stringToField } from "../hash.js";

/** Facts per row; a selector of RULE_FACTS means "the constant" (the key 1, a guard that always holds). */
export const RULE_FACTS = 12;
export const RULE_ENTRIES = 16;
export const RULE_SET = 2;
/** Parts a record's rows may have: its primary row (0) and RULE_PARTS - 1 kinds of sub-row. */
export const RULE_PARTS = 8;
/** The bound of an `above` test, and every fact it reads, are below 2^32 (range-checked in the circuit). */
export const RULE_COUNT_BITS = 32;
export const CONSTANT = RULE_FACTS;
/** The code θ's vector starts with (the escrow's predicate id once rules are registered). */
export const RULE_PREDICATE_CODE = 7n;
/** An entry's tool that names every tool (its rows of the entry's part); no tool's name hashes to 0. */
export const ANY_TOOL = "*";

/** A fact of the domain profile by name, or "always" (the constant: a guard that holds, the key 1). */
export type FactName = string;
/** Where an entry's key comes from: a fact, "always", the record's register, or Poseidon(register, fact). */
export type KeySource = FactName | "register" | { pair: FactName };

export interface RuleEntry {
  tool: string;
  /** The row's part: 0 (default) the record's primary row, 1… its sub-rows of that kind. */
  part?: number;
  key?: KeySource;
  check?: { when?: FactName; expect?: bigint | FactName | "register" };
  write?: { when?: FactName; value: FactName | bigint; ifUnseen?: boolean };
  load?: { prefer?: FactName };
}

export interface Rule {
  /** The state's key by default: a fact, or "always" for a single flag. */
  key: FactName;
  entries: RuleEntry[];
  local?: { fact: FactName; above: number } | { fact: FactName; notIn: bigint[] };
  fire: { unseen?: boolean; seen?: boolean; seenEqual?: boolean; seenDiffers?: boolean; seenAbove?: boolean };
  /** The latest value that means "stored without the field": seenDiffers makes no check on it. */
  unknown?: bigint;
}

/** A row as a rule reads it: its record's seq and tool (stringToField of the name), its part and facts. */
export interface RuleRow {
  seq: number;
  tool: bigint;
  ok: boolean;
  part: number;
  facts: bigint[];
}

/** How an entry's key is formed (θ's keyOp): a selected fact or the constant, the register, or a pair. */
export const KEY_OP = { select: 0, register: 1, pair: 2 } as const;
export type KeyOp = (typeof KEY_OP)[keyof typeof KEY_OP];

/** A rule with its facts resolved to indices (the domain profile's layout): what θ and the circuit hold. */
export interface CompiledRule {
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
  entries: CompiledEntry[];
}

export interface CompiledEntry {
  /** stringToField(tool), or 0 for ANY_TOOL. */
  tool: bigint;
  toolName: string;
  part: number;
  check: boolean;
  checkWhen: number;
  expectSel: number;
  expect: bigint;
  expectRegister: boolean;
  write: boolean;
  writeWhen: number;
  valueSel: number;
  valueConst: bigint;
  writeIfUnseen: boolean;
  keyOp: KeyOp;
  /** The fact a key is (select) or pairs with the register (pair); CONSTANT for the key 1. */
  keySel: number;
  load: boolean;
  preferSel: number;
}

const fail = (message: string): never => {
  throw new ThetaError(message);
};

/** A domain's fact layout: RULE_FACTS slots, each holding one name, or several ("a|b") that no row holds together. */
export function factIndex(layout: readonly string[], fact: FactName): number {
  return layout.findIndex((slot) => slot.split("|").includes(fact));
}

/** Resolves a rule's fact names against a domain's fact layout (RULE_FACTS slots) and checks its shape. */
export function compileRule(rule: Rule, facts: readonly string[], name: string): CompiledRule {
  const index = (f: FactName, what: string) => {
    if (f === "always") return CONSTANT;
    const i = factIndex(facts, f);
    if (i < 0) fail(`rule ${name}: ${what} names fact "${f}", which the profile does not derive`);
    return i;
  };
  const { entries } = rule;
  if (entries.length === 0 || entries.length > RULE_ENTRIES)
    fail(`rule ${name}: 1..${RULE_ENTRIES} entries, got ${entries.length}`);
  const parts = entries.map((e) => e.part ?? 0);
  if (parts.some((p) => !Number.isInteger(p) || p < 0 || p >= RULE_PARTS))
    fail(`rule ${name}: a part is an integer in [0, ${RULE_PARTS})`);
  const named = entries.map((e, i) => `${e.tool}#${parts[i]}`);
  if (new Set(named).size !== entries.length) fail(`rule ${name}: a (tool, part) is named by two entries`);
  // A row matches at most one entry: "*" for a part leaves no other entry of that part.
  for (const [i, e] of entries.entries())
    if (e.tool === ANY_TOOL && parts.some((p, j) => j !== i && p === parts[i]))
      fail(
        `rule ${name}: "*" names every tool's part ${parts[i]} rows, so no other entry may name that part`,
      );
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
  const compileKey = (key: KeySource, what: string): { keyOp: KeyOp; keySel: number } =>
    key === "register"
      ? { keyOp: KEY_OP.register, keySel: CONSTANT }
      : typeof key === "object"
        ? { keyOp: KEY_OP.pair, keySel: index(key.pair, what) }
        : { keyOp: KEY_OP.select, keySel: index(key, what) };
  return {
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
    entries: entries.map((e, i) => {
      const where = `${named[i]}`;
      const expect = e.check?.expect;
      return {
        tool: e.tool === ANY_TOOL ? 0n : stringToField(e.tool),
        toolName: e.tool,
        part: parts[i]!,
        check: e.check !== undefined,
        checkWhen: e.check ? index(e.check.when ?? "always", `${where}'s check`) : CONSTANT,
        expectSel:
          typeof expect === "string" && expect !== "register" ? index(expect, `${where}'s expect`) : CONSTANT,
        expect: typeof expect === "bigint" ? expect : 0n,
        expectRegister: expect === "register",
        write: e.write !== undefined,
        writeWhen: e.write ? index(e.write.when ?? "always", `${where}'s write`) : CONSTANT,
        valueSel:
          e.write === undefined || typeof e.write.value === "bigint"
            ? CONSTANT
            : index(e.write.value, `${where}'s value`),
        valueConst: typeof e.write?.value === "bigint" ? e.write.value : 0n,
        writeIfUnseen: e.write?.ifUnseen === true,
        ...compileKey(e.key ?? rule.key, `${where}'s key`),
        load: e.load !== undefined,
        preferSel: e.load?.prefer === undefined ? CONSTANT : index(e.load.prefer, `${where}'s prefer`),
      };
    }),
  };
}

const bit = (b: boolean) => (b ? 1n : 0n);

/** The entry table's columns, in θ's order (RuleTheta in circuits/gadgets/rule.circom). */
export const ENTRY_COLUMNS: readonly ((e: CompiledEntry) => bigint)[] = [
  (e) => BigInt(e.part),
  (e) => bit(e.check),
  (e) => BigInt(e.checkWhen),
  (e) => BigInt(e.expectSel),
  (e) => e.expect,
  (e) => bit(e.expectRegister),
  (e) => bit(e.write),
  (e) => BigInt(e.writeWhen),
  (e) => BigInt(e.valueSel),
  (e) => e.valueConst,
  (e) => bit(e.writeIfUnseen),
  (e) => BigInt(e.keyOp),
  (e) => BigInt(e.keySel),
  (e) => bit(e.load),
  (e) => BigInt(e.preferSel),
];
/** What a padding entry holds in each column: no part of any row it could match does anything. */
const PADDING: CompiledEntry = {
  tool: 0n,
  toolName: "",
  part: RULE_PARTS,
  check: false,
  checkWhen: CONSTANT,
  expectSel: CONSTANT,
  expect: 0n,
  expectRegister: false,
  write: false,
  writeWhen: CONSTANT,
  valueSel: CONSTANT,
  valueConst: 0n,
  writeIfUnseen: false,
  keyOp: KEY_OP.select,
  keySel: CONSTANT,
  load: false,
  preferSel: CONSTANT,
};

/** The rule's θ part, in the order the circuit hashes it (RuleTheta in circuits/gadgets/rule.circom). */
export function ruleThetaVector(c: CompiledRule): bigint[] {
  const table = [...c.entries, ...Array<CompiledEntry>(RULE_ENTRIES - c.entries.length).fill(PADDING)];
  return [
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
    ...table.map((e) => e.tool),
    ...ENTRY_COLUMNS.flatMap((column) => table.map(column)),
  ];
}
