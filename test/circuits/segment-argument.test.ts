// circuits/gadgets/segment_argument.circom on their own: DistinctRootsFrom, the distinctness certificate
// continued over segments, and SessionArgumentClose, the last segment's checks of the session-wide argument
// that AAP-1's authorization chains and AAP-5's repeat labels share (docs/SOUNDNESS.md "Segment chains",
// points 6 and 7). Both are attacked inside the segment circuits too (test/circuits/segment-authorization.test.ts,
// test/circuits/segment-limits.test.ts); here each gadget's edges, forged signals and solved hints are checked on
// its own r1cs, against the TS mirrors (sdk/core/multiset.ts, sdk/core/hash.ts).
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS, hashVector } from "../../sdk/core/hash.js";
import {
  addDistinctRoot,
  fieldInverse,
  partialFractionWeights,
  type DistinctRootsRun,
} from "../../sdk/core/multiset.js";
import {
  compileTestCircuit,
  forge,
  signalsMatching,
  signalValue,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";
import { play } from "../helpers/adversary.js";

const P = FIELD_MODULUS;
const signal = signalValue;
const strings = (xs: readonly bigint[]) => xs.map(String);
const mod = (x: bigint) => ((x % P) + P) % P;
const ZETA = 0x2bd0f3a1c9e4n;
const N = 4;

describe("DistinctRootsFrom (4 rows a segment)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("distinct-roots-from", {
      includes: ["circuits/gadgets/segment_argument.circom"],
      template: "DistinctRootsFrom",
      args: [N],
      publicSignals: ["first", "key", "weight", "zeta", "rootsIn", "fractionsIn", "firstsIn"],
    });
  });

  interface Segment {
    first: number[];
    key: bigint[];
    weight: bigint[];
  }
  const input = (s: Segment, run: DistinctRootsRun, zeta = ZETA) => ({
    first: s.first.map(String),
    key: strings(s.key),
    weight: strings(s.weight),
    zeta: String(zeta),
    rootsIn: String(run.roots),
    fractionsIn: String(run.fractions),
    firstsIn: String(run.firsts),
  });
  const START: DistinctRootsRun = { roots: 1n, fractions: 0n, firsts: 0n };
  /** The gadget's running certificate out of one segment. */
  const runOut = (w: bigint[]): DistinctRootsRun => ({
    roots: signal(c, w, "rootsOut"),
    fractions: signal(c, w, "fractionsOut"),
    firsts: signal(c, w, "firstsOut"),
  });
  /** The TS mirror: the first rows join the run, as addDistinctRoot adds each. */
  const mirror = (s: Segment, run: DistinctRootsRun, zeta = ZETA) =>
    s.first.reduce((r, f, i) => (f ? addDistinctRoot(r, s.key[i]!, s.weight[i]!, zeta) : r), run);
  /** Runs segments one after another, each carrying the last's output, as a segment chain does. */
  const chain = async (segments: readonly Segment[], zeta = ZETA) => {
    let run = START;
    for (const s of segments) {
      const w = await c.witness(input(s, run, zeta));
      expect(c.firstUnsatisfied(w)).toBe(-1);
      run = runOut(w);
    }
    return run;
  };
  /** Session-wide weights for the first rows of every segment, in order (sdk/core/multiset.ts). */
  const sessionWeights = (segments: readonly Segment[]): Segment[] => {
    const keys = segments.flatMap((s) => s.key.filter((_, i) => s.first[i]));
    const weights = partialFractionWeights(keys);
    let k = 0;
    return segments.map((s) => ({ ...s, weight: s.first.map((f) => (f ? weights[k++]! : 0n)) }));
  };

  it("costs 5N + 1 constraints: per row the pinned inverse, its zero off first rows and the term; the selected product; the carried product", () =>
    // 3 a row, SelectedProduct 2N − 1, rootsIn · roots 1, and the two carried sums (linear, kept: they are main's
    // outputs), less one: --O2 folds the last row's term into the carried sum of fractions.
    expect(c.constraints).toBe(3 * N + (2 * N - 1) + 1 + 2 - 1));

  it("continues the run like the TS mirror: none, one, all first rows, at keys 0 and −1, from a run already started", async () => {
    const key = [3n, 0n, P - 1n, 11n];
    const from: DistinctRootsRun = { roots: 77n, fractions: 5n, firsts: 9n };
    for (const first of [
      [0, 0, 0, 0],
      [0, 1, 0, 0],
      [1, 0, 1, 1],
      [1, 1, 1, 1],
    ]) {
      const s = { first, key, weight: [13n, 17n, P - 19n, 23n] };
      const w = await c.witness(input(s, from));
      expect(c.firstUnsatisfied(w), String(first)).toBe(-1);
      expect(runOut(w), String(first)).toEqual(mirror(s, from));
    }
    // No first row: the run passes through unchanged.
    const idle = await c.witness(input({ first: [0, 0, 0, 0], key, weight: [1n, 2n, 3n, 4n] }, from));
    expect(runOut(idle)).toEqual(from);
  });

  it("a session's distinct first-row keys, split over three segments with the session's weights, certify: roots · fractions = 1", async () => {
    const segments = sessionWeights([
      { first: [1, 0, 1, 0], key: [5n, 5n, 8n, 99n], weight: [] },
      { first: [0, 0, 0, 0], key: [5n, 8n, 8n, 8n], weight: [] },
      { first: [0, 1, 1, 1], key: [8n, 13n, 0n, P - 1n], weight: [] },
    ]);
    const run = await chain(segments);
    expect(run.firsts).toBe(5n);
    expect(mod(run.roots * run.fractions)).toBe(1n);
  });

  it("a key first in two segments (a label split across a boundary) certifies with no weights tried", async () => {
    // 7 is a first row in segment 0 and again in segment 1; each segment alone has distinct keys.
    const first = [1, 1, 0, 0];
    const shape = [
      { first, key: [7n, 9n, 0n, 0n] },
      { first, key: [7n, 11n, 0n, 0n] },
    ];
    expect(() => partialFractionWeights([7n, 9n, 7n, 11n])).toThrow(/equal/);
    const honestFor = (keys: bigint[]) => partialFractionWeights(keys);
    const tries: bigint[][] = [
      // Each segment certified as if it were the session.
      [...honestFor([7n, 9n]), ...honestFor([7n, 11n])],
      // The session's weights for the three distinct keys, the duplicate's split in halves.
      (() => {
        const [w7, w9, w11] = honestFor([7n, 9n, 11n]) as [bigint, bigint, bigint];
        const half = mod(w7 * fieldInverse(2n));
        return [half, w9, half, w11];
      })(),
      // Weights for a session whose second 7 were an 8.
      honestFor([7n, 9n, 8n, 11n]),
      [1n, 1n, 1n, 1n],
    ];
    for (const weights of tries) {
      const segments = shape.map((s, j) => ({
        ...s,
        weight: [weights[2 * j]!, weights[2 * j + 1]!, 0n, 0n],
      }));
      const run = await chain(segments);
      expect(mod(run.roots * run.fractions)).not.toBe(1n);
    }
  });

  it("a forged inverse, term or carried output breaks a constraint", async () => {
    const s = { first: [1, 0, 1, 1], key: [3n, 5n, 8n, 13n], weight: [2n, 4n, 6n, 8n] };
    const w = await c.witness(input(s, { roots: 3n, fractions: 4n, firsts: 1n }));
    // Every inverse and term but the last row's term, folded into fractionsOut's constraint by --O2.
    const names = signalsMatching(c, /^((inv|term)\[\d\]|rootsOut|fractionsOut|firstsOut)$/);
    expect(names.length).toBe(2 * N + 3 - 1);
    for (const name of names) {
      const v = signal(c, w, name);
      expect(c.firstUnsatisfied(forge(c, w, name, v + 1n)), name).toBeGreaterThanOrEqual(0);
    }
  });

  it("pins inv to 0 off the first rows, even where key = zeta: a dishonest prover cannot solve it to balance a duplicate", async () => {
    // Two first rows of key 7 (no certificate exists), and an unselected row whose key is zeta, so a nonzero
    // inv there would still satisfy inv · (zeta − key) = first = 0. The prover picks that inv after seeing
    // zeta: the one that makes the run certify, 1 − Σ over the 7s, solved through its weight 1.
    const s = { first: [1, 1, 0, 0], key: [7n, 7n, ZETA, 1n], weight: [1n, 1n, 1n, 0n] };
    const d = fieldInverse(ZETA - 7n);
    const roots = mod((ZETA - 7n) * (ZETA - 7n));
    const wanted = mod(fieldInverse(roots) - 2n * d); // fractions = 1 / roots
    const honest = runOut(await c.witness(input(s, START)));
    expect(mod(honest.roots * honest.fractions)).not.toBe(1n);
    const forged = await play(c, {
      input: input(s, START),
      derive: ["rootsOut", "fractionsOut", "firstsOut"],
      override: () => ({ "inv[2]": wanted }),
    });
    // The solver finds the certifying run, and the build's r1cs refuses it: inv · (1 − first) = 0.
    expect(mod(signal(c, forged.witness, "fractionsOut") * roots)).toBe(1n);
    expect(forged.accepted).toBe(false);
  });

  it("has no witness where a first row's key is zeta", async () => {
    const s = { first: [0, 1, 0, 0], key: [ZETA, ZETA, 1n, 2n], weight: [0n, 1n, 0n, 0n] };
    expect(await witnessFails(c, input(s, START))).toBe(true);
    // The same key on rows that are not first is no gap at all.
    const w = await c.witness(input({ ...s, first: [0, 0, 1, 0], weight: [0n, 0n, 1n, 0n] }, START));
    expect(c.firstUnsatisfied(w)).toBe(-1);
  });
});

describe("SessionArgumentClose", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("session-argument-close", {
      includes: ["circuits/gadgets/segment_argument.circom"],
      template: "SessionArgumentClose",
    });
  });

  const FINAL_ROOT = 0x51a7n;
  const PACK_CHAIN = 0x9ac4n;
  const WEIGHT_CHAIN = 0x3e16n;
  const beta = hashVector([FINAL_ROOT, PACK_CHAIN]);
  const zeta = hashVector([beta, WEIGHT_CHAIN]);
  const roots = 0x1234567n;
  /** An honest last segment: the challenges the hashes of what they test, the identity and the certificate hold. */
  const honest = {
    isLast: 1n,
    finalRoot: FINAL_ROOT,
    beta,
    zeta,
    packChain: PACK_CHAIN,
    weightChain: WEIGHT_CHAIN,
    left: 0x77n,
    right: 0x77n,
    roots,
    fractions: fieldInverse(roots),
    firsts: 3n,
  };
  type Close = typeof honest;
  const input = (o: Partial<Close> = {}) =>
    Object.fromEntries(Object.entries({ ...honest, ...o }).map(([k, v]) => [k, String(v)]));

  // Each check by its line, so a test shows that the one it targets is the only assert that fails.
  const source = readFileSync("circuits/gadgets/segment_argument.circom", "utf8").split("\n");
  const lineOf = (code: string) => {
    const at = source.findIndex((line) => line.includes(code));
    expect(at, code).toBeGreaterThanOrEqual(0);
    return at + 1;
  };
  const refusedOnlyAt = async (o: Partial<Close>, code: string) => {
    expect((await c.lenientWitness(input(o))).failedAsserts, code).toBe(1);
    await expect(c.witness(input(o))).rejects.toThrow(
      new RegExp(`Error in template SessionArgumentClose\\S* line: ${lineOf(code)}\\b`),
    );
  };

  it("costs two HashVector(2), IsZero and five checks", async () => {
    const hash2 = await compileTestCircuit("hashvector2", {
      includes: ["circuits/gadgets/hash.circom"],
      template: "HashVector",
      args: [2],
    });
    // Two hashes, four isLast-gated checks and the certificate's product, and IsZero's two.
    expect(c.constraints).toBe(2 * hash2.constraints + 4 + 1 + 2);
  });

  it("accepts an honest close, and an empty one (no first row: no fractions, so roots · fractions = 0)", async () => {
    expect(c.firstUnsatisfied(await c.witness(input()))).toBe(-1);
    const empty = await c.witness(input({ firsts: 0n, roots: 1n, fractions: 0n }));
    expect(c.firstUnsatisfied(empty)).toBe(-1);
    expect(signal(c, empty, "empty")).toBe(1n);
    // Empty asks for roots · fractions = 0 instead of 1: an empty session's certificate is the one with no
    // terms, and no first rows cannot stand in for a certificate that fails.
    await refusedOnlyAt({ firsts: 0n, roots: 5n, fractions: 9n }, "certified - 1 + empty");
  });

  it("checks nothing in a segment that is not the last", async () => {
    const w = await c.witness(
      input({ isLast: 0n, beta: 1n, zeta: 2n, left: 3n, right: 4n, roots: 5n, fractions: 6n, firsts: 7n }),
    );
    expect(c.firstUnsatisfied(w)).toBe(-1);
  });

  it("in the last segment, each check alone refuses its forgery", async () => {
    // A beta or zeta the prover picks instead of the hash of what it tests.
    await refusedOnlyAt({ beta: beta + 1n, zeta: hashVector([beta + 1n, WEIGHT_CHAIN]) }, "beta - betaSeed");
    await refusedOnlyAt({ zeta: zeta + 1n }, "zeta - zetaSeed");
    // The challenges of another final root or of other labels or weights.
    await refusedOnlyAt({ finalRoot: FINAL_ROOT + 1n }, "beta - betaSeed");
    await refusedOnlyAt({ packChain: PACK_CHAIN + 1n }, "beta - betaSeed");
    await refusedOnlyAt({ weightChain: WEIGHT_CHAIN + 1n }, "zeta - zetaSeed");
    // The two sides of the multiset identity apart.
    await refusedOnlyAt({ right: honest.left + 1n }, "left - right");
    // First rows without a certificate.
    await refusedOnlyAt({ fractions: honest.fractions + 1n }, "certified - 1 + empty");
    await refusedOnlyAt({ roots: 0n, fractions: 0n }, "certified - 1 + empty");
  });

  it("IsZero's inverse hint cannot be solved to call a session with first rows empty", async () => {
    // The prover wants empty = 1 while firsts = 3 and the certificate fails; it picks IsZero's `<--` inverse
    // after seeing every input, and the solver derives the rest from the build's r1cs.
    const bad = input({ fractions: 0n });
    expect((await c.lenientWitness(bad)).failedAsserts).toBe(1);
    const hints = signalsMatching(c, /\.inv$/);
    expect(hints).toHaveLength(1);
    for (const inv of [0n, 1n, fieldInverse(3n), P - 1n, 0xdeadbeefn]) {
      const forged = await play(c, { input: bad, override: () => ({ [hints[0]!]: inv }) });
      expect(forged.accepted, `inv ${inv}`).toBe(false);
    }
    // The empty flag forged directly breaks IsZero too.
    const w = await c.witness(input());
    expect(signal(c, w, "empty")).toBe(0n);
    expect(c.firstUnsatisfied(forge(c, w, "empty", 1n))).toBeGreaterThanOrEqual(0);
  });
});
