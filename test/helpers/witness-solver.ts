// A witness solver over an r1cs, for adversarial witness search: given the values an
// adversary fixes (the main inputs and any internal hint signals it overrides), it
// computes every other signal from the constraints themselves, not from the circuit's
// own witness code. A constraint A·B = C with one unknown signal s that enters it
// linearly pins s; signals that no constraint pins that way (bit decompositions,
// one-hots, and hints nothing constrains) take the value of a reference witness,
// which the caller computes with the circuit's own hint code. The result is then
// checked against every constraint: a satisfying result is a witness the build's
// r1cs accepts, whatever produced it.
import { FIELD_MODULUS } from "../../sdk/core/hash.js";

const P = FIELD_MODULUS;

export type LinearCombination = Map<number, bigint>;
export type Constraint = [LinearCombination, LinearCombination, LinearCombination];

const mod = (x: bigint) => ((x % P) + P) % P;

function inverse(x: bigint): bigint {
  let [a, b, u, v] = [mod(x), P, 1n, 0n];
  while (a !== 0n) {
    const q = b / a;
    [a, b] = [b - q * a, a];
    [u, v] = [v - q * u, u];
  }
  if (b !== 1n) throw new RangeError("no inverse of 0");
  return mod(v);
}

/** The value of a linear combination over a full witness. */
export function evaluate(lc: LinearCombination, w: readonly bigint[]): bigint {
  let s = 0n;
  for (const [k, c] of lc) s += c * w[k]!;
  return mod(s);
}

/** Index of the first constraint the witness breaks, or -1. */
export function firstBroken(constraints: readonly Constraint[], w: readonly bigint[]): number {
  return constraints.findIndex(([a, b, c]) => mod(evaluate(a, w) * evaluate(b, w) - evaluate(c, w)) !== 0n);
}

const structures = new WeakMap<readonly Constraint[], { members: number[][]; uses: number[][] }>();

/** Which signals each constraint reads, and which constraints read each signal: once per system. */
function structureOf(constraints: readonly Constraint[], nVars: number) {
  let found = structures.get(constraints);
  if (!found) {
    const members = constraints.map(([a, b, c]) => [...new Set([...a.keys(), ...b.keys(), ...c.keys()])]);
    const uses: number[][] = Array.from({ length: nVars }, () => []);
    members.forEach((m, ci) => m.forEach((s) => uses[s]!.push(ci)));
    found = { members, uses };
    structures.set(constraints, found);
  }
  return found;
}

export interface SolveResult {
  witness: bigint[];
  /** Signals pinned by a constraint, and those taken from the reference. */
  solved: number;
  fromReference: number;
  /** Index of the first broken constraint, -1 when the witness satisfies the r1cs. */
  broken: number;
}

/**
 * Solves the r1cs for every signal not in `fixed`. `fixed` maps witness indices to the
 * adversary's values (index 0, the constant 1, is fixed implicitly); `reference` supplies
 * the signals no constraint pins, the `hints` (signals written with `<--`) first.
 */
export function solve(
  constraints: readonly Constraint[],
  nVars: number,
  fixed: ReadonlyMap<number, bigint>,
  reference: readonly bigint[],
  hints: Iterable<number> = [],
): SolveResult {
  const w = Array<bigint>(nVars).fill(0n);
  const known = new Uint8Array(nVars);
  w[0] = 1n;
  known[0] = 1;
  for (const [k, v] of fixed) {
    w[k] = mod(v);
    known[k] = 1;
  }
  // Per constraint, its distinct signals and how many are still unknown.
  const { members, uses } = structureOf(constraints, nVars);
  const unknown = new Int32Array(constraints.length);
  members.forEach((m, ci) => {
    for (const s of m) if (!known[s]) unknown[ci]!++;
  });
  let solved = 0;
  let fromReference = 0;
  const queue: number[] = [];
  const quadratic: number[] = [];
  const hintList = [...hints].sort((x, y) => x - y);
  let nextHint = 0;
  members.forEach((_, ci) => unknown[ci] === 1 && queue.push(ci));
  const learn = (s: number, v: bigint) => {
    w[s] = v;
    known[s] = 1;
    for (const ci of uses[s]!) if (--unknown[ci]! === 1) queue.push(ci);
  };
  // s enters A·B = C as (a s + A0)(b s + B0) = c s + C0; linear in s unless a·b != 0.
  const trySolve = (ci: number): boolean => {
    const s = members[ci]!.find((x) => !known[x]);
    if (s === undefined) return false;
    const [A, B, C] = constraints[ci]!;
    const part = (lc: LinearCombination): [bigint, bigint] => {
      let rest = 0n;
      for (const [k, c] of lc) if (k !== s) rest += c * w[k]!;
      return [lc.get(s) ?? 0n, mod(rest)];
    };
    const [a, a0] = part(A);
    const [b, b0] = part(B);
    const [c, c0] = part(C);
    const k = mod(a * b0 + b * a0 - c);
    if (mod(a * b) !== 0n) {
      quadratic.push(s);
      return false;
    }
    if (k === 0n) return false;
    learn(s, mod(-(a0 * b0 - c0) * inverse(k)));
    solved++;
    return true;
  };
  let next = 1;
  for (;;) {
    while (queue.length) {
      const ci = queue.pop()!;
      if (unknown[ci] === 1) trySolve(ci);
    }
    // Stuck: the reference's value goes first to a signal that some constraint holds
    // quadratically (a bit, a one-hot entry), then to a hint signal (`<--`, which no
    // constraint may pin, e.g. IsZero's inverse of 0), then to the lowest unknown signal.
    quadratic.sort((x, y) => y - x);
    while (quadratic.length && known[quadratic[quadratic.length - 1]!]) quadratic.pop();
    while (nextHint < hintList.length && known[hintList[nextHint]!]) nextHint++;
    let s = quadratic.pop() ?? hintList[nextHint];
    if (s === undefined) {
      while (next < nVars && known[next]) next++;
      if (next >= nVars) break;
      s = next;
    }
    learn(s, mod(reference[s] ?? 0n));
    fromReference++;
  }
  return { witness: w, solved, fromReference, broken: firstBroken(constraints, w) };
}
