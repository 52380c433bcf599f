// The rule oracle (sdk/core/rules/rule.ts has the form and its semantics in words): each row's step, the
// state test, and the verdict, the first row that fires. circuits/gadgets/rule.circom is the proof face and
// test/rules/ keeps the two equal.
import { poseidon } from "../hash.js";
import { CONSTANT, KEY_OP, type CompiledEntry, type CompiledRule, type RuleRow } from "./rule.js";

/** The selected fact: facts[sel], or the constant (1, or `constant` for a written value). */
const select = (facts: readonly bigint[], sel: number, constant = 1n) =>
  sel === CONSTANT ? constant : facts[sel]!;

/** The entry a row matches: its (tool, part), or "*" of its part. */
export function entryOf(c: CompiledRule, row: RuleRow): CompiledEntry | undefined {
  return c.entries.find((e) => e.part === row.part && (e.tool === 0n || e.tool === row.tool));
}

/** Whether an entry reads the register (its key or its expect), and so does nothing while it is 0. */
export const readsRegister = (e: CompiledEntry) => e.keyOp !== KEY_OP.select || e.expectRegister;

/** What a row does under the rule, given its record's register: its state access, check and register. */
export interface RuleStep {
  /** A row of the rule: ok, named by an entry, and not waiting on an empty register. */
  live: boolean;
  checked: boolean;
  hasKey: boolean;
  key: bigint;
  /** Writes unless the key was already written (ifUnseen): the state decides (writeFor). */
  writes: boolean;
  ifUnseen: boolean;
  value: bigint;
  expect: bigint;
  localFires: boolean;
  load: boolean;
  prefer: bigint;
}

const NONE: RuleStep = {
  live: false,
  checked: false,
  hasKey: false,
  key: 0n,
  writes: false,
  ifUnseen: false,
  value: 0n,
  expect: 0n,
  localFires: false,
  load: false,
  prefer: 0n,
};

export function ruleStep(c: CompiledRule, row: RuleRow, register: bigint): RuleStep {
  const entry = entryOf(c, row);
  if (!row.ok || entry === undefined || (readsRegister(entry) && register === 0n)) return NONE;
  const checked = entry.check && select(row.facts, entry.checkWhen) !== 0n;
  const writes = entry.write && select(row.facts, entry.writeWhen) !== 0n;
  const key =
    entry.keyOp === KEY_OP.register
      ? register
      : entry.keyOp === KEY_OP.pair
        ? poseidon([register, select(row.facts, entry.keySel)])
        : select(row.facts, entry.keySel);
  const hasKey = (checked || writes || entry.load) && key !== 0n;
  const local = select(row.facts, c.localSel);
  const localFires =
    c.localOp === 0 ? true : c.localOp === 1 ? local > c.localBound : !c.localSet.includes(local);
  return {
    live: true,
    checked,
    hasKey,
    key: hasKey ? key : 0n,
    writes: writes && hasKey,
    ifUnseen: entry.writeIfUnseen,
    value: writes && hasKey ? select(row.facts, entry.valueSel, entry.valueConst) : 0n,
    expect: entry.expectRegister ? register : select(row.facts, entry.expectSel, entry.expect),
    localFires,
    load: entry.load,
    prefer: select(row.facts, entry.preferSel, 0n),
  };
}

/** Whether the step writes, given whether its key was written before. */
export const writesNow = (step: RuleStep, seen: boolean) => step.writes && !(step.ifUnseen && seen);

/** The register after the step: unchanged unless it loads (its prefer fact, else what it read, else 0). */
export function registerAfter(step: RuleStep, register: bigint, seen: boolean, latest: bigint): bigint {
  if (!step.load) return register;
  if (step.prefer !== 0n) return step.prefer;
  return seen ? latest : 0n;
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

/** One row's access as the keyed state sees it, and its answer: what the circuit's witness is made of. */
export interface RuleTrace {
  step: RuleStep;
  /** The register before the row (after a part 0's reset), and after it. */
  register: bigint;
  registerOut: bigint;
  seen: boolean;
  latest: bigint;
  write: boolean;
  fires: boolean;
}

/** Every row's step and answer, in order, over the whole run (the oracle stops at the first fire). */
export function traceRule(c: CompiledRule, rows: readonly RuleRow[]): RuleTrace[] {
  const state = new Map<bigint, bigint>();
  let register = 0n;
  return rows.map((row) => {
    if (row.part === 0) register = 0n;
    const step = ruleStep(c, row, register);
    const held = step.hasKey ? state.get(step.key) : undefined;
    const seen = held !== undefined;
    const latest = held ?? 0n;
    const fires = step.checked && step.localFires && stateFires(c, seen, latest, step.expect);
    const write = writesNow(step, seen);
    if (write) state.set(step.key, step.value);
    const before = register;
    register = registerAfter(step, register, seen, latest);
    return { step, register: before, registerOut: register, seen, latest, write, fires };
  });
}

/** The oracle: the first row that fires (its record's seq, tool and why), or none. */
export function evaluateRule(
  c: CompiledRule,
  rows: readonly RuleRow[],
): { seq: number | null; tool?: bigint; why?: string } {
  const traced = traceRule(c, rows);
  const first = traced.findIndex((t) => t.fires);
  if (first < 0) return { seq: null };
  const row = rows[first]!;
  return { seq: row.seq, tool: row.tool, why: whyFired(c, traced[first]!.seen) };
}
