// Gadget tests: witnesses at the edges, forged witnesses (edit an internal
// signal, expect an unsatisfied constraint), and exact constraint counts.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { hashVector, poseidon } from "../../sdk/core/hash.js";
import { leafHash } from "../../sdk/core/encoding.js";
import { commitmentRoot, zeroHash } from "../../sdk/core/merkle.js";
import {
  compileTestCircuit,
  forge,
  signalsMatching,
  signalValue,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";

const leafValues = (count: number, seed = 1n) =>
  Array.from({ length: count }, (_, i) => poseidon([seed, BigInt(i)]));
const signal = signalValue;
/** Poseidon(9) plus the activity gate: 15 more than v1's Poseidon(8) leaf (403). */
const LEAF_COST = 418;

describe("zero-subtree constants", () => {
  it("every zeroHash(l) in zeros.circom equals the TS tree's", () => {
    const text = readFileSync("circuits/gadgets/zeros.circom", "utf8");
    const found = [...text.matchAll(/level == (\d+)\) return (\d+);/g)].map(
      (m) => [Number(m[1]), BigInt(m[2])] as const,
    );
    expect(found).toHaveLength(7);
    for (const [level, value] of found) expect(value, `level ${level}`).toBe(zeroHash(level));
  });
});

describe("HashVector", () => {
  // One Poseidon(16) for the first 16 elements, then one Poseidon(1 + chunk) per further chunk of ≤ 15.
  const COST: Record<number, number> = { 1: 213, 16: 609, 17: 849, 31: 1218, 32: 1458 };
  // npm test: one chunk and the first chained length; test:full adds both chunk edges and 32.
  const lengths = process.env.ZKVAI_FULL === "1" ? [1, 16, 17, 31, 32] : [1, 17];
  for (const L of lengths) {
    it(`matches sdk hashVector at length ${L}, at ${COST[L]} constraints`, async () => {
      const c = await compileTestCircuit(`hashvector${L}`, {
        includes: ["circuits/gadgets/hash.circom"],
        template: "HashVector",
        args: [L],
      });
      const v = Array.from({ length: L }, (_, i) => BigInt(i * 7 + 3));
      const w = await c.witness({ in: v.map(String) });
      expect(signal(c, w, "out")).toBe(hashVector(v));
      expect(c.constraints).toBe(COST[L]);
      // Forged: the output, and for chained lengths the first chunk's hash, cannot be replaced.
      const out = signal(c, w, "out");
      expect(c.firstUnsatisfied(forge(c, w, "out", out + 1n))).toBeGreaterThanOrEqual(0);
      if (L > 16) {
        const link = signalsMatching(c, /^h\[0\]\.out$/);
        expect(link).toHaveLength(1);
        expect(c.firstUnsatisfied(forge(c, w, link[0], signal(c, w, link[0]) + 1n))).toBeGreaterThanOrEqual(
          0,
        );
      }
    });
  }
});

describe("RecordLeaf", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("leaf", {
      includes: ["circuits/gadgets/leaf.circom"],
      template: "RecordLeaf",
    });
  });
  const slots = [1n, 2n, 3n, 4n, 5n, 6n, 7n];

  const at = (active: string) => ({ slots: slots.map(String), digest: "9", prev: "11", active });

  it("costs Poseidon(9) plus the activity gate", () => expect(c.constraints).toBe(LEAF_COST));

  it("active: Poseidon(slots, digest, prev), as sdk leafHash; inactive: 0", async () => {
    const on = await c.witness(at("1"));
    expect(signal(c, on, "leaf")).toBe(poseidon([...slots, 9n, 11n]));
    expect(signal(c, on, "leaf")).toBe(leafHash(slots, 9n, 11n));
    expect(signal(c, await c.witness(at("0")), "leaf")).toBe(0n);
  });

  it("a forged leaf or Poseidon output breaks a constraint", async () => {
    const w = await c.witness(at("1"));
    expect(c.firstUnsatisfied(w)).toBe(-1);
    expect(c.firstUnsatisfied(forge(c, w, "leaf", 0n))).toBeGreaterThanOrEqual(0);
    expect(c.firstUnsatisfied(forge(c, w, "leaf", signal(c, w, "leaf") + 1n))).toBeGreaterThanOrEqual(0);
    expect(c.firstUnsatisfied(forge(c, w, "h.out", 5n))).toBeGreaterThanOrEqual(0);
  });
});

describe("PrefixMask (capacity 8)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("mask", {
      includes: ["circuits/gadgets/merkle.circom"],
      template: "PrefixMask",
      args: [3],
      publicSignals: ["n"],
    });
  });

  // N+1 booleanity checks and the index check; the sum check telescopes away under --O2.
  it("costs one constraint per position, plus one", () => expect(c.constraints).toBe(10));

  it("marks exactly the first n positions, n = 0..8", async () => {
    for (let n = 0; n <= 8; n++) {
      const w = await c.witness({ n: String(n) });
      const active = Array.from({ length: 8 }, (_, i) => signal(c, w, `active[${i}]`));
      expect(active).toEqual(Array.from({ length: 8 }, (_, i) => (i < n ? 1n : 0n)));
    }
  });

  it("refuses n = 9 and n = -1", async () => {
    expect(await witnessFails(c, { n: "9" })).toBe(true);
    expect(await witnessFails(c, { n: "-1" })).toBe(true);
  });

  it("a forged one-hot or mask breaks a constraint", async () => {
    const w = await c.witness({ n: "3" });
    // --O2 keeps the mask as wires and rewrites the one-hot e[i] as active[i-1] - active[i].
    expect(c.firstUnsatisfied(w)).toBe(-1);
    expect(c.firstUnsatisfied(forge(c, w, "active[3]", 1n))).toBeGreaterThanOrEqual(0);
    expect(c.firstUnsatisfied(forge(c, w, "active[6]", 1n))).toBeGreaterThanOrEqual(0);
    expect(c.firstUnsatisfied(forge(c, w, "active[2]", 2n))).toBeGreaterThanOrEqual(0);
    expect(c.firstUnsatisfied(forge(c, w, "active[0]", 0n))).toBeGreaterThanOrEqual(0);
  });
});

// A tree over free leaves and its commitment for n.
const TREE_HARNESS = `
template TreeHarness(D) {
    signal input leaves[1 << D];
    signal input n;
    signal output root;
    component tree = MerkleTree(D);
    tree.leaves <== leaves;
    root <== CommitmentRoot(D)(n, tree.nodes);
}`;

// Capacity 8: one partial node (8 of 16 children); 16: one full node; 64: two levels and a
// partial top node. Costs: 609 per Poseidon(16), plus the level selector.
const TREE_COST: Record<number, number> = { 3: 596, 4: 623, 6: 3030 };
// Every size up to 33, then the edges of the last groups (a witness costs ~0.1 s).
const sizesUpTo = (N: number) =>
  [...new Set([...Array(Math.min(N, 33) + 1).keys(), 47, 48, 49, 62, 63, 64])].filter((n) => n <= N);
// Capacity 64 (a third tree level, 17 s of compile) in test:full; npm test keeps two levels at 8 and 16.
for (const D of process.env.ZKVAI_FULL === "1" ? [3, 4, 6] : [3, 4]) {
  const N = 1 << D;
  describe(`MerkleTree, CommitmentRoot (capacity ${N})`, () => {
    let c: TestCircuit;
    beforeAll(async () => {
      c = await compileTestCircuit(`tree${D}`, {
        includes: ["circuits/gadgets/merkle.circom"],
        body: TREE_HARNESS,
        template: "TreeHarness",
        args: [D],
        publicSignals: ["n"],
      });
    });
    const all = leafValues(N);
    const input = (n: number) => ({ leaves: all.map((v, i) => String(i < n ? v : 0n)), n: String(n) });

    it(`has a fixed cost of ${TREE_COST[D]}`, () => expect(c.constraints).toBe(TREE_COST[D]));

    it(`commits n in 0..${N} records as the TS commitment does`, async () => {
      for (const n of sizesUpTo(N)) {
        const w = await c.witness(input(n));
        expect(signal(c, w, "root"), `n=${n}`).toBe(commitmentRoot(all.slice(0, n)));
      }
    });

    it(`refuses n > ${N} (the level selector's range check)`, async () => {
      expect(await witnessFails(c, input(N + 1))).toBe(true);
    });

    it("a forged tree node or level selector breaks a constraint", async () => {
      const w = await c.witness(input(N - 3));
      expect(c.firstUnsatisfied(w)).toBe(-1);
      const internal = [
        "root",
        ...signalsMatching(c, /^tree\.nodes\[\d+\]$/).filter((_, i) => i % 7 === 0),
        ...signalsMatching(c, /\.(sel|b|term)\[\d+\]$/),
      ];
      expect(internal.length).toBeGreaterThan(5);
      for (const name of internal) {
        const value = signal(c, w, name);
        expect(c.firstUnsatisfied(forge(c, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
      }
    });
  });
}
