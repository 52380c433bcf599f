// circuits/gadgets/multiset.circom: the selected product and the partial-fraction
// distinctness certificate, at their edges and against forged witnesses.
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import { partialFractionWeights } from "../../sdk/core/multiset.js";
import {
  compileTestCircuit,
  forge,
  signalsMatching,
  signalValue,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";
import { solve } from "../helpers/witness-solver.js";

const P = FIELD_MODULUS;
const signal = signalValue;
const strings = (xs: readonly bigint[]) => xs.map(String);
const N = 4;

describe("SelectedProduct (4 entries)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("selected-product", {
      includes: ["circuits/gadgets/multiset.circom"],
      template: "SelectedProduct",
      args: [N],
      publicSignals: ["sel", "f", "z"],
    });
  });

  it("costs 2N - 1 constraints", () => expect(c.constraints).toBe(2 * N - 1));

  it("multiplies z - f over the selected entries only; none selected is 1", async () => {
    const f = [3n, 5n, 7n, 11n];
    const at = async (sel: number[], z: bigint) => {
      const w = await c.witness({ sel: sel.map(String), f: strings(f), z: String(z) });
      return signal(c, w, "out");
    };
    expect(await at([0, 0, 0, 0], 100n)).toBe(1n);
    expect(await at([1, 1, 1, 1], 100n)).toBe(97n * 95n * 93n * 89n);
    expect(await at([0, 1, 0, 1], 100n)).toBe(95n * 89n);
    expect(await at([1, 0, 0, 0], 3n)).toBe(0n);
    expect(await at([1, 0, 0, 0], 2n)).toBe(P - 1n);
  });

  it("a forged term or running product breaks a constraint", async () => {
    const w = await c.witness({ sel: ["1", "0", "1", "1"], f: ["3", "5", "7", "11"], z: "100" });
    // --O2 keeps the signals that carry a product: N terms and N - 1 running products (the last is out).
    const names = signalsMatching(c, /^((acc|term)\[\d\]|out)$/);
    expect(names.length).toBeGreaterThanOrEqual(2 * N - 1);
    for (const name of names) {
      const v = signal(c, w, name);
      expect(c.firstUnsatisfied(forge(c, w, name, v + 1n)), name).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("DistinctRoots (4 entries)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("distinct-roots", {
      includes: ["circuits/gadgets/multiset.circom"],
      template: "DistinctRoots",
      args: [N],
      publicSignals: ["sel", "u", "w", "z"],
    });
  });
  const Z = 0x1234567890abcdefn;
  /** The honest weights (sdk/core/multiset.ts) at the selected entries, `other` elsewhere. */
  const weights = (sel: number[], u: bigint[], other = 0n) => {
    const w = partialFractionWeights(u.filter((_, i) => sel[i]));
    let k = 0;
    return sel.map((s) => (s ? w[k++]! : other));
  };
  const input = (sel: number[], u: bigint[], w: bigint[], z = Z) => ({
    sel: sel.map(String),
    u: strings(u),
    w: strings(w),
    z: String(z),
  });

  it("costs 5N + 2 constraints", () => expect(c.constraints).toBe(5 * N + 2));

  it("accepts distinct selected values with their weights: none, one, all four, and 0 and -1", async () => {
    const u = [3n, 5n, 0n, P - 1n];
    for (const sel of [
      [0, 0, 0, 0],
      [1, 0, 0, 0],
      [0, 0, 1, 1],
      [1, 1, 1, 1],
    ]) {
      const w = await c.witness(input(sel, u, weights(sel, u)));
      expect(c.firstUnsatisfied(w), String(sel)).toBe(-1);
    }
  });

  it("ignores unselected duplicates, and whatever weight an unselected entry carries", async () => {
    const u = [7n, 7n, 7n, 9n];
    const sel = [1, 0, 0, 1];
    const w = await c.witness(input(sel, u, weights(sel, u, 12345n)));
    expect(c.firstUnsatisfied(w)).toBe(-1);
  });

  it("refuses a selected duplicate with any weights tried", async () => {
    const u = [7n, 9n, 7n, 11n];
    const sel = [1, 1, 1, 0];
    expect(() => partialFractionWeights([7n, 9n, 7n])).toThrow(/equal/);
    const honestFor79 = partialFractionWeights([7n, 9n]);
    const tries = [
      [honestFor79[0]!, honestFor79[1]!, 0n, 0n],
      [honestFor79[0]! / 2n, honestFor79[1]!, honestFor79[0]! / 2n, 0n],
      partialFractionWeights([7n, 9n, 8n, 11n]),
      [1n, 1n, 1n, 1n],
    ];
    for (const w of tries) expect(await witnessFails(c, input(sel, u, w))).toBe(true);
  });

  it("weights edited at any selected entry, or a forged inverse, term or empty flag, break a constraint", async () => {
    const u = [3n, 5n, 8n, 13n];
    const sel = [1, 1, 0, 1];
    const honest = weights(sel, u);
    for (const k of [0, 1, 3]) {
      const edited = honest.map((x, i) => (i === k ? x + 1n : x));
      expect(await witnessFails(c, input(sel, u, edited)), `w[${k}]`).toBe(true);
    }
    const w = await c.witness(input(sel, u, honest));
    for (const name of signalsMatching(c, /^((inv|term)\[\d\]|empty)$/)) {
      const v = signal(c, w, name);
      expect(c.firstUnsatisfied(forge(c, w, name, v + 1n)), name).toBeGreaterThanOrEqual(0);
    }
    // Nothing selected: only the empty flag lets 0 = 0 stand.
    const none = await c.witness(input([0, 0, 0, 0], u, [0n, 0n, 0n, 0n]));
    expect(c.firstUnsatisfied(none)).toBe(-1);
    expect(c.firstUnsatisfied(forge(c, none, "empty", 0n))).toBeGreaterThanOrEqual(0);
  });

  it("pins inv to 0 on an unselected row even where u = z: its term cannot balance a duplicate", async () => {
    // The soundness review's exploit, on the gadget alone: two selected 7s (a duplicate), an
    // unselected row whose u is z, and that row's inv solved for after z is known.
    const u = [7n, 7n, Z, 1n];
    const sel = [1, 1, 0, 0];
    const w = [1n, 1n, 1n, 0n];
    const inv = (x: bigint) => {
      let [r, b, e] = [1n, ((x % P) + P) % P, P - 2n];
      for (; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
      return r;
    };
    const d = inv(Z - 7n);
    const solved = (((d * d - 2n * d) % P) + P) % P; // 1/f - Σ w/(z - u) over the two 7s
    const reference = await c.lenientWitness(input(sel, u, w));
    const fixed = new Map<number, bigint>();
    for (let k = 1; k <= c.nInputs; k++) fixed.set(k, reference.witness[k]!);
    fixed.set(c.signals.get("inv[2]")!, solved);
    expect(solve(c.system, c.nVars, fixed, reference.witness).broken).toBeGreaterThanOrEqual(0);
    // Without the override the same input fails too: the duplicate has no certificate.
    expect(await witnessFails(c, input(sel, u, w))).toBe(true);
  });

  it("has no witness when z equals a selected value", async () => {
    const u = [3n, 5n, 8n, 13n];
    const sel = [1, 1, 1, 1];
    expect(await witnessFails(c, input(sel, u, weights(sel, u), 8n))).toBe(true);
  });
});
