// The product and remainder trees behind DistinctRoots' weights (sdk/core/field-poly.ts) against the definition
// f'(u_k) = ∏_(j≠k) (u_k − u_j), computed directly, at sizes on both sides of every switch between the
// quadratic methods and the NTT ones (64 coefficients, 32 roots a leaf, 1,024 roots in all).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIELD_MODULUS as P } from "../../sdk/core/hash.js";
import { derivativeAtRoots, polyMul } from "../../sdk/core/field-poly.js";

function byDefinition(u: readonly bigint[]): bigint[] {
  const r = u.map((v) => ((v % P) + P) % P);
  return r.map((uk, k) => r.reduce((d, uj, j) => (j === k ? d : (d * (uk - uj + P)) % P), 1n));
}

function schoolbook(a: readonly bigint[], b: readonly bigint[]): bigint[] {
  const out = Array<bigint>(a.length + b.length - 1).fill(0n);
  a.forEach((x, i) => b.forEach((y, j) => (out[i + j] = (out[i + j]! + x * y) % P)));
  return out;
}

// A fixed pseudo-random stream, so a failure reproduces.
function values(count: number, seed: bigint): bigint[] {
  let x = seed;
  return Array.from({ length: count }, () => (x = (x * 0x9e3779b97f4a7c15n + 0x632be59bd9b4e019n) % P));
}

describe("polyMul", () => {
  it("equals the schoolbook product, through the NTT too, and truncates when asked", () => {
    for (const [m, k] of [
      [1, 1],
      [63, 64],
      [64, 64],
      [65, 200],
      [300, 129],
    ] as const) {
      const a = values(m, BigInt(m));
      const b = values(k, BigInt(k) + 7n);
      expect(polyMul(a, b)).toEqual(schoolbook(a, b));
      expect(polyMul(a, b, 10)).toEqual(schoolbook(a, b).slice(0, 10));
    }
    expect(polyMul([], [1n])).toEqual([]);
  });
});

describe("derivativeAtRoots", () => {
  it("equals the definition at sizes across every switch (0 … 1,100 roots)", () => {
    for (const k of [0, 1, 33, 1023, 1024, 1100])
      expect(derivativeAtRoots(values(k, BigInt(k) + 1n))).toEqual(byDefinition(values(k, BigInt(k) + 1n)));
  });

  it("equals the definition on random sets, negative and unreduced values included, both ways", () => {
    const value = fc.bigInt({ min: -P, max: 2n * P });
    fc.assert(
      fc.property(
        fc.oneof(fc.array(value, { maxLength: 40 }), fc.array(value, { minLength: 1024, maxLength: 1040 })),
        (u) => {
          expect(derivativeAtRoots(u)).toEqual(byDefinition(u));
        },
      ),
      { numRuns: 8 },
    );
  });

  it("is 0 exactly at a repeated root, equal modulo the field included, at every size", () => {
    for (const k of [2, 40, 1030]) {
      const u = values(k, 99n);
      u[k - 1] = u[0]! + P;
      const d = derivativeAtRoots(u);
      expect(d[0]).toBe(0n);
      expect(d[k - 1]).toBe(0n);
      expect(d.filter((x) => x === 0n)).toHaveLength(2);
    }
  });
});
