// Adversarial witness search: a dishonest prover's move is every main input (rows past n,
// hints and θ included) plus any internal hint signals (`<--`) it sets after seeing the
// witness so far, in-circuit challenges included. `play` turns a move into a full
// witness with the r1cs solver (test/helpers/witness-solver.ts) and judges it by the
// circuit's own constraints, so a move is accepted exactly when the r1cs accepts it.
import type { TestCircuit } from "./circuit.js";
import { solve } from "./witness-solver.js";

/** Reads a signal of the witness solved so far, by its sym name (without `main.`). */
export type Peek = (name: string) => bigint;

export interface Move {
  input: Record<string, unknown>;
  /** Internal signals (sym names) to set, given the witness solved without them. */
  override?: (peek: Peek) => Record<string, bigint>;
  /**
   * Main outputs (sym names) the solver derives instead of taking the honest witness's: a gadget tested as main
   * hands on its outputs where a whole circuit would go on computing with them.
   */
  derive?: readonly string[];
}

export interface Played {
  /** The r1cs accepts the witness the move leads to. */
  accepted: boolean;
  broken: number;
  outcome: bigint;
  witness: bigint[];
}

export async function play(c: TestCircuit, move: Move): Promise<Played> {
  const { witness: reference } = await c.lenientWitness(move.input);
  const derived = new Set((move.derive ?? []).map((name) => index(c, name)));
  const inputs = new Map<number, bigint>();
  for (let k = 1; k <= c.nInputs; k++) if (!derived.has(k)) inputs.set(k, reference[k]!);
  const hints = hintSignals(c);
  let result = solve(c.system, c.nVars, inputs, reference, hints);
  // Twice, so an override may depend on values that depend on another override.
  for (let round = 0; move.override && round < 2; round++) {
    const solved = result.witness;
    const fixed = new Map(inputs);
    for (const [name, value] of Object.entries(move.override((name) => solved[index(c, name)]!)))
      fixed.set(index(c, name), value);
    result = solve(c.system, c.nVars, fixed, reference, hints);
  }
  const outcome = c.signals.has("outcome") ? result.witness[index(c, "outcome")]! : -1n;
  return { accepted: result.broken === -1, broken: result.broken, outcome, witness: result.witness };
}

/** Num2Bits' bits, anonymous or named as the circuits name their range checks. */
export const BIT_NAMES = /(Num2Bits[^.]*|n2b|bits|[A-Za-z]*Bits\[\d+\])\.out\[\d+\]$/;

/**
 * The witness signals written with `<--` in circuits/ and circomlib: IsZero's and
 * DistinctRoots' inverses, Num2Bits' bits, CountOneHot's one-hot.
 */
const HINT_NAMES = new RegExp(`(^|\\.)inv(\\[\\d+\\])?$|${BIT_NAMES.source}|\\.bit\\[\\d+\\]$`);

function hintSignals(c: TestCircuit): number[] {
  return [...c.signals.entries()].filter(([name]) => HINT_NAMES.test(name)).map(([, i]) => i);
}

function index(c: TestCircuit, name: string): number {
  const i = c.signals.get(name);
  if (i === undefined) throw new Error(`no witness signal ${name} in ${c.name}`);
  return i;
}

/** Sym names of witness signals matching a pattern, in witness order. */
export function signalsLike(c: TestCircuit, pattern: RegExp): string[] {
  return [...c.signals.entries()]
    .filter(([name]) => pattern.test(name))
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name);
}
