// sdk/core/multiset.ts: the prover's side of the multiset gadgets.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import { countBits, packLabels, partialFractionWeights } from "../../sdk/core/multiset.js";

const P = FIELD_MODULUS;
const field = fc.bigInt({ min: 0n, max: P - 1n });
const inverse = (x: bigint) => {
  let [r, e, b] = [1n, P - 2n, x % P];
  for (; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
};
/** f(x)·Σ w_k/(x − u_k) at a point x that is no u_k. */
const certificateAt = (u: bigint[], w: bigint[], x: bigint) => {
  const f = u.reduce((acc, uk) => (acc * (x - uk + P)) % P, 1n);
  const sum = u.reduce((acc, uk, k) => (acc + w[k]! * inverse(x - uk + P)) % P, 0n);
  return (f * sum) % P;
};

describe("multiset helpers", () => {
  it("countBits: the least B with 2^B >= n", () => {
    expect([1, 2, 3, 4, 5, 6, 8, 9, 1024, 1025].map(countBits)).toEqual([0, 1, 2, 2, 3, 3, 3, 4, 10, 11]);
  });

  it("packLabels: floor(250 / width) labels per element, lowest first", () => {
    expect(packLabels([1n, 2n, 3n], 125)).toEqual([1n + (2n << 125n), 3n]);
    const packs = packLabels(
      Array.from({ length: 21 }, (_, i) => BigInt(i)),
      12,
    );
    expect(packs).toHaveLength(2); // 20 per element
    expect(packs[1]).toBe(20n);
    expect(packs[0]! < 1n << 250n).toBe(true);
  });

  it("partial-fraction weights certify distinct values: f(x)·Σ w_k/(x − u_k) = 1 anywhere", () => {
    expect(partialFractionWeights([])).toEqual([]);
    expect(partialFractionWeights([5n])).toEqual([1n]);
    fc.assert(
      fc.property(fc.uniqueArray(field, { minLength: 1, maxLength: 10 }), field, (u, x) => {
        fc.pre(!u.includes(x));
        expect(certificateAt(u, partialFractionWeights(u), x)).toBe(1n);
      }),
      { numRuns: 50 },
    );
  });

  it("refuses equal values (also equal modulo the field): no weights exist", () => {
    expect(() => partialFractionWeights([5n, 5n])).toThrow(/equal/);
    expect(() => partialFractionWeights([1n, 2n, 3n, 2n])).toThrow(/equal/);
    expect(() => partialFractionWeights([1n, P + 1n])).toThrow(/equal/);
  });

  it("certifies 1,024 distinct values, as the largest circuits need", () => {
    const u = Array.from({ length: 1024 }, (_, i) => (BigInt(i + 1) * 0x9e3779b97f4a7c15n) % P);
    expect(certificateAt(u, partialFractionWeights(u), 0xdeadbeefn)).toBe(1n);
  });
});
