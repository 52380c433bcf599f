// circuits/gadgets/grounding.circom: strict grounding of queried values by equal ground values of
// strictly earlier records, from the prover's hints (predicates/aap6/grounding.ts), against the TS
// model; a claim of either verdict on an input of the other has no witness, whatever the hints, and
// witnesses forged after the challenge break a constraint of the compiled r1cs.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import { countBits } from "../../sdk/core/multiset.js";
import {
  certifyGrounding,
  groundingAcc,
  groundingBeta,
  groundingHints,
  groundingLabels,
  groundingSums,
  groundingVerdict,
  groundingZ,
  type GroundingElement,
  type GroundingHints,
  type GroundingLabels,
} from "../../sdk/core/predicates/aap6/grounding.js";
import { play, type Move } from "../helpers/adversary.js";
import {
  accepts,
  compileTestCircuit,
  forge,
  signalValue,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";
import { evaluate } from "../helpers/witness-solver.js";

const P = FIELD_MODULUS;
const mod = (x: bigint) => ((x % P) + P) % P;
const SEED = 0x6a0dn;
const N = 6;
const O = 2;
const M = N * O;

/**
 * A trace of N records of O values each, one string per record: "g7" a ground 7, "q7" a query 7,
 * "gq7" both, "7" a value that is neither, "." no value. Missing records and values are empty.
 */
function trace(...records: string[][]): GroundingElement[] {
  return Array.from({ length: M }, (_, e) => {
    const token = records[Math.floor(e / O)]?.[e % O] ?? ".";
    if (token === ".") return { value: 0n, ground: false, query: false };
    const [, flags, value] = /^([gq]*)(\d+)$/.exec(token)!;
    return { value: BigInt(value!), ground: flags!.includes("g"), query: flags!.includes("q") };
  });
}

function input(elements: readonly GroundingElement[], hints: GroundingHints) {
  return {
    value: elements.map((el) => String(el.value)),
    ground: elements.map((el) => (el.ground ? "1" : "0")),
    query: elements.map((el) => (el.query ? "1" : "0")),
    seed: String(SEED),
    pick: hints.pick.map(String),
    gap: hints.gap.map(String),
    mult: hints.mult.map(String),
    accInv: String(hints.accInv),
  };
}

const rec = (e: number) => Math.floor(e / O);
const zeros = () => Array<bigint>(M).fill(0n);

/**
 * The satisfied-mode labels a liar would give `elements` when query `target` is pointed at record
 * rec(target) − 1 − targetGap: every other query at its earliest ground where it has one, and each
 * pointer that lands on a table row counted on the first such row. The target's pointer lands on none.
 */
function pointedLabels(
  elements: readonly GroundingElement[],
  target: number,
  targetGap: bigint,
): GroundingLabels {
  const gap = zeros();
  const mult = zeros();
  elements.forEach((el, e) => {
    if (!el.query) return;
    let j = BigInt(rec(e) - 1) - targetGap;
    if (e !== target) {
      const g = elements.findIndex((x, k) => x.ground && x.value === el.value && rec(k) < rec(e));
      j = g < 0 ? BigInt(rec(e) - 1) : BigInt(rec(g));
    }
    gap[e] = BigInt(rec(e) - 1) - j;
    const row = elements.findIndex((x, k) => x.ground && x.value === el.value && BigInt(rec(k)) === j);
    if (row >= 0) mult[row]! += 1n;
  });
  return { pick: zeros(), gap, mult };
}

describe("StrictGrounding (6 records of 2 values)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("strict-grounding", {
      includes: ["circuits/gadgets/grounding.circom"],
      template: "StrictGrounding",
      args: [N, O],
      publicSignals: ["value", "ground", "query", "seed"],
    });
  });
  const verdict = async (elements: GroundingElement[], hints = groundingHints(elements, O, SEED)) =>
    signalValue(c, await c.witness(input(elements, hints)), "violated");
  /** The r1cs's judgement of a move: the solver completes the witness from the constraints alone. */
  const judged = (move: Move) => play(c, { derive: ["violated"], ...move });

  it("costs (10 + D + Bm)·M + N + 1 + HashVector(2) + Poseidon(1)", () => {
    // D = countBits(N) = 3 bits of gap, Bm = countBits(M) = 4 of mult: 7-bit labels, 12 to one pack.
    expect([countBits(N), countBits(M)]).toEqual([3, 4]);
    // HashVector(2) is Poseidon(2) (240), Poseidon(1) 213.
    expect(c.constraints).toBe((10 + 3 + 4) * M + N + 1 + 240 + 213);
  });

  // [name, trace, the model's first violating element]
  const cases: [string, GroundingElement[], number | null][] = [
    ["nothing observed", trace(), null],
    ["grounded by an earlier record", trace(["g7"], [], ["q7"]), null],
    ["a ground in the query's own record does not count", trace([], ["g7", "q7"]), 3],
    ["the same value as ground and query of one record", trace(["gq7"]), 0],
    ["a query at record 0", trace(["q7", "g7"], ["q7"]), 0],
    ["grounded only later", trace(["g5"], ["q7"], ["g7"], ["q7"]), 2],
    ["two queries of one value, one ground", trace(["g7", "g5"], [], ["q7"], ["q7", "q5"]), null],
    ["a value that is neither grounds nothing", trace(["7"], ["q7"]), 2],
    ["a list: every element grounded", trace(["g1", "g2"], ["q2", "q1"]), null],
    ["a list: one element ungrounded", trace(["g1", "g2"], ["q2", "q3"]), 3],
    ["the first violation counts", trace(["g1"], ["q1"], ["q4"], ["q5"]), 4],
    ["the same ground twice in a record", trace(["g8", "g8"], ["g8"], ["q8", "q8"]), null],
    ["last record, earliest ground", trace(["g9"], [], [], [], [], [".", "q9"]), null],
  ];

  it("agrees with the model on hand-made cases", async () => {
    for (const [what, elements, expected] of cases) {
      expect(groundingVerdict(elements, O), what).toBe(expected);
      expect(await verdict(elements), what).toBe(expected === null ? 0n : 1n);
    }
  });

  it("points each query at its earliest ground, and counts the pointers on that row", () => {
    const { gap, mult } = groundingLabels(trace(["g7", "g5"], [], ["q7"], ["q7", "q5"]), O);
    expect(gap).toEqual([0n, 0n, 0n, 0n, 1n, 0n, 2n, 2n, 0n, 0n, 0n, 0n]);
    expect(mult).toEqual([2n, 1n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n]);
    // A violation may name any ungrounded query, not only the first.
    const violated = trace(["g1"], ["q2"], ["q3"]);
    expect(groundingLabels(violated, O, { pick: 4 }).pick[4]).toBe(1n);
    expect(() => groundingLabels(violated, O, { pick: 0 })).toThrow(/not an ungrounded query/);
  });

  it("agrees with the model on 60 random traces, and refuses the other verdict's lie", async () => {
    const element = fc.record({
      value: fc.constantFrom(1n, 2n, 3n),
      ground: fc.boolean(),
      query: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(element, { minLength: M, maxLength: M }), async (elements) => {
        const first = groundingVerdict(elements, O);
        expect(await verdict(elements)).toBe(first === null ? 0n : 1n);
        if (first !== null) {
          // Satisfied claimed: the ungrounded query points at the record before it.
          const lie = certifyGrounding(elements, O, pointedLabels(elements, first, 0n), SEED);
          expect(await witnessFails(c, input(elements, lie))).toBe(true);
        } else {
          // Violated claimed on each query in turn.
          for (let q = 0; q < M; q++) {
            if (!elements[q]!.query) continue;
            const pick = zeros();
            pick[q] = 1n;
            const lie = certifyGrounding(elements, O, { pick, gap: zeros(), mult: zeros() }, SEED);
            expect(await witnessFails(c, input(elements, { ...lie, accInv: 1n }))).toBe(true);
          }
        }
      }),
      { numRuns: 60, seed: 20_261_204 },
    );
  });

  it("(a) claiming satisfied on a violated trace fails for every gap of the ungrounded query", async () => {
    // Query 7 at record 3 is grounded only in its own record and later; 5 is grounded properly.
    const elements = trace(["g5", "7"], ["g1"], ["q5"], ["q7", "g7"], ["g7"]);
    expect(groundingVerdict(elements, O)).toBe(6);
    const rows = elements.flatMap((el, g) => (el.ground ? [g] : []));
    let tried = 0;
    for (let gap = 0n; gap < 1n << BigInt(countBits(N)); gap++) {
      // Honest pointers elsewhere; the target's own row, if any, carries the count, or the liar
      // moves it onto any one ground row (the same-record and later 7s included).
      const base = pointedLabels(elements, 6, gap);
      for (const extra of [-1, ...rows]) {
        const mult = [...base.mult];
        if (extra >= 0) mult[extra]! += 1n;
        const lie = certifyGrounding(elements, O, { ...base, mult }, SEED);
        const sums = groundingSums(elements, O, lie, lie.beta, lie.z);
        expect(sums.queries).not.toBe(sums.grounds);
        expect(await accepts(c, input(elements, lie)), `gap ${gap}, extra ${extra}`).toBe(false);
        tried++;
      }
    }
    expect(tried).toBe(8 * (1 + rows.length));
    // The r1cs itself, with everything but the inputs solved from the constraints: refused too.
    for (const gap of [0n, 2n, 7n]) {
      const lie = certifyGrounding(elements, O, pointedLabels(elements, 6, gap), SEED);
      expect((await judged({ input: input(elements, lie) })).accepted).toBe(false);
    }
    // A gap past D bits (a wrapped j that could reach a later record) is refused by its range check.
    const wrapped = pointedLabels(elements, 6, 0n);
    wrapped.gap[6] = P - 1n; // j = rec + 0: the query's own record
    wrapped.mult[7] = 1n;
    expect(await accepts(c, input(elements, certifyGrounding(elements, O, wrapped, SEED)))).toBe(false);
  });

  it("(b) claiming violated on a satisfied trace fails with every pick", async () => {
    const elements = trace(["g7", "g5"], ["q7"], ["g5", "q5"], ["q7", "q5"], ["3"]);
    expect(groundingVerdict(elements, O)).toBe(null);
    for (let q = 0; q < M; q++) {
      const pick = zeros();
      pick[q] = 1n;
      const lie = certifyGrounding(elements, O, { pick, gap: zeros(), mult: zeros() }, SEED);
      if (elements[q]!.query) expect(groundingAcc(elements, O, pick), `acc at ${q}`).toBe(0n);
      for (const accInv of [lie.accInv, 1n, 12345n]) {
        const move = { input: input(elements, { ...lie, accInv }) };
        expect(await accepts(c, move.input), `pick ${q}`).toBe(false);
        expect((await judged(move)).accepted, `pick ${q}, solved`).toBe(false);
      }
    }
  });

  it("(b) two picks (b = 2) are refused, whatever accInv", async () => {
    const elements = trace(["g7", "g5"], ["q7"], ["g5", "q5"], ["q7", "q5"], ["3"]);
    const queries = elements.flatMap((el, e) => (el.query ? [e] : []));
    for (const [q1, q2] of queries.flatMap((a, i) => queries.slice(i + 1).map((b) => [a, b] as const))) {
      const pick = zeros();
      pick[q1] = 1n;
      pick[q2] = 1n;
      for (const accInv of [0n, 1n, (P + 1n) / 2n]) {
        const move = { input: input(elements, { ...groundingHints(elements, O, SEED), pick, accInv }) };
        expect(await accepts(c, move.input), `picks ${q1}, ${q2}`).toBe(false);
        expect((await judged(move)).accepted, `picks ${q1}, ${q2}, solved`).toBe(false);
      }
    }
  });

  it("(c) hints solved after the challenge balance the identity only at a challenge the hash refuses", async () => {
    const elements = trace(["g5", "g2"], ["q5"], ["q7"]);
    expect(groundingVerdict(elements, O)).toBe(4);
    // The liar points the ungrounded 7 at record 0 and reads the challenges of those labels.
    const first = certifyGrounding(elements, O, pointedLabels(elements, 4, 1n), SEED);
    const before = groundingSums(elements, O, first, first.beta, first.z);
    expect(before.queries).not.toBe(before.grounds);
    // It then solves the ground 2's multiplicity (row 1) so that the sums agree at that (beta, z).
    const g = 1;
    const print = mod(elements[g]!.value + first.beta * BigInt(rec(g)));
    const mult = [...first.mult];
    mult[g] = mod(mult[g]! + (before.queries - before.grounds) * mod(first.z - print));
    const solved = groundingSums(elements, O, { gap: first.gap, mult }, first.beta, first.z);
    expect(solved.queries).toBe(solved.grounds);
    // But mult is hashed into beta: the new labels draw new challenges, where the sums disagree.
    const beta = groundingBeta({ gap: first.gap, mult }, N, SEED);
    expect(beta).not.toBe(first.beta);
    const after = groundingSums(elements, O, { gap: first.gap, mult }, beta, groundingZ(beta));
    expect(after.queries).not.toBe(after.grounds);
    const forgedInput = input(elements, { ...first, mult });
    expect(await witnessFails(c, forgedInput)).toBe(true);
    // Keeping the old challenges in the witness balances the identity but breaks the hash.
    const played = await judged({ input: forgedInput, override: () => ({ beta: first.beta, z: first.z }) });
    expect(played.accepted).toBe(false);
    const broken = brokenConstraints(played.witness);
    // The lookup's constraints all hold at the old challenges; a round of beta's Poseidon does not.
    // (The range checks of mult[1], and of the bits the lenient witness left unset after it, break too.)
    const lookup = /^(z|queryPrint|queryInv|groundInv|share)\[?/;
    expect(broken.filter((k) => readsLike(c, k, lookup))).toEqual([]);
    expect(broken.some((k) => readsOnly(c, k, /^betaHash\./))).toBe(true);
  });

  it("(d) an unselected element's inverse set to balance the sums is refused", async () => {
    // 7 at record 2 is ungrounded; element 1 is no query and element 2 no ground.
    const elements = trace(["g5", "9"], ["3", "q5"], ["q7"]);
    expect(groundingVerdict(elements, O)).toBe(4);
    const labels = pointedLabels(elements, 4, 0n);
    labels.mult[2] = 1n; // a count on the non-ground row, hashed before the challenge
    const lie = certifyGrounding(elements, O, labels, SEED);
    const { queries, grounds } = groundingSums(elements, O, lie, lie.beta, lie.z);
    const identity = constraintReading(c, ["share[0]", "share[11]", "queryInv[0]"]);
    const forged: [string, string, bigint][] = [
      // The query sum lowered through a non-query's inverse, or the ground sum raised through a
      // non-ground row's inverse (its mult is 1, so share = inverse).
      ["queryInv[1]", "query[1]", mod(grounds - queries)],
      ["groundInv[2]", "ground[2]", mod(queries - grounds)],
    ];
    for (const [name, selector, value] of forged) {
      const played = await judged({ input: input(elements, lie), override: () => ({ [name]: value }) });
      expect(played.accepted, name).toBe(false);
      // The identity holds; the pin inv·(1 − sel) = 0 of the forged inverse breaks. (The solver
      // meets the other, inv·(z − print) = sel = 0, by moving the print, whose own constraint breaks.)
      const broken = brokenConstraints(played.witness);
      expect(broken, name).not.toContain(identity);
      expect(broken, name).toContain(pinOf(c, name, selector));
    }
  });

  it("(e) a count on a non-ground row has no effect: it neither grounds a query nor spoils a proof", async () => {
    // The 7 of record 0 is observed but is no ground (e.g. a failed read): query 7 is ungrounded.
    const violated = trace(["7", "g5"], ["q7", "q5"]);
    expect(groundingVerdict(violated, O)).toBe(2);
    const lie = pointedLabels(violated, 2, 0n); // points 7 at record 0
    lie.mult[0] = 1n; // and counts it on the non-ground 7
    const certified = certifyGrounding(violated, O, lie, SEED);
    expect(await accepts(c, input(violated, certified))).toBe(false);
    expect((await judged({ input: input(violated, certified) })).accepted).toBe(false);
    // On a satisfied trace an extra count on a non-ground row changes nothing.
    const satisfied = trace(["7", "g5"], ["q5"]);
    const labels = groundingLabels(satisfied, O);
    labels.mult[0] = 3n;
    expect(await verdict(satisfied, certifyGrounding(satisfied, O, labels, SEED))).toBe(0n);
  });

  it("a forged challenge, print, inverse, share, product or verdict breaks a constraint", async () => {
    const satisfied = trace(["g7", "g5"], ["q7"], ["q5"]);
    const violated = trace(["g7", "g5"], ["q7"], ["q6"]);
    for (const elements of [satisfied, violated]) {
      const w = await c.witness(input(elements, groundingHints(elements, O, SEED)));
      expect(c.firstUnsatisfied(w)).toBe(-1);
      const targets = [
        "beta",
        "z",
        "violated",
        "accInv",
        ...["queryPrint", "queryInv", "groundInv", "share"].flatMap((s) => [`${s}[0]`, `${s}[2]`, `${s}[4]`]),
        ...["pickedValue[4]", "term[1]", "before[3]", "lead[1]"],
      ];
      for (const name of targets) {
        const value = signalValue(c, w, name);
        // accInv is free when nothing is picked (acc = 0): the only hint that is.
        if (name === "accInv" && elements === satisfied) continue;
        expect(c.firstUnsatisfied(forge(c, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
      }
    }
  });

  /** Every constraint the witness breaks. */
  function brokenConstraints(w: bigint[]): number[] {
    return c.system.flatMap(([a, b, s], k) =>
      mod(evaluate(a, w) * evaluate(b, w) - evaluate(s, w)) === 0n ? [] : [k],
    );
  }
});

/** Whether constraint k reads the named signal. */
function reads(c: TestCircuit, k: number, name: string): boolean {
  const idx = c.signals.get(name)!;
  return c.system[k]!.some((lc) => lc.has(idx));
}

function readsLike(c: TestCircuit, k: number, pattern: RegExp): boolean {
  const wanted = new Set([...c.signals].filter(([n]) => pattern.test(n)).map(([, i]) => i));
  return c.system[k]!.some((lc) => [...lc.keys()].some((i) => wanted.has(i)));
}

/** The one constraint that reads all the named signals. */
function constraintReading(c: TestCircuit, names: string[]): number {
  const found = c.system.flatMap((_, k) => (names.every((n) => reads(c, k, n)) ? [k] : []));
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** Whether constraint k reads only signals matching the pattern (and the constant). */
function readsOnly(c: TestCircuit, k: number, pattern: RegExp): boolean {
  const names = new Map([...c.signals].map(([n, i]) => [i, n]));
  return c.system[k]!.every((lc) => [...lc.keys()].every((i) => i === 0 || pattern.test(names.get(i) ?? "")));
}

/** The pin inv·(1 − sel) = 0: the one constraint reading the inverse and its selector but not z. */
function pinOf(c: TestCircuit, inverse: string, selector: string): number {
  const found = c.system.flatMap((_, k) =>
    reads(c, k, inverse) && reads(c, k, selector) && !reads(c, k, "z") ? [k] : [],
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}
