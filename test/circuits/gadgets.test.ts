// Gadget tests: witnesses at the edges, forged witnesses (edit an internal
// signal, expect an unsatisfied constraint), and exact constraint counts.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { hashVector, poseidon } from "../../sdk/hash.js";
import { commitmentRoot, prefixCommitment, zeroHash } from "../../sdk/merkle.js";
import {
  compileTestCircuit,
  forge,
  signalsMatching,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";

const leafValues = (count: number, seed = 1n) =>
  Array.from({ length: count }, (_, i) => poseidon([seed, BigInt(i)]));
const signal = (c: TestCircuit, w: bigint[], name: string) => w[c.signals.get(name)!];

describe("zero-subtree constants", () => {
  it("every zeroHash(l) in zeros.circom equals the TS tree's", () => {
    const text = readFileSync("circuits/gadgets/zeros.circom", "utf8");
    const found = [...text.matchAll(/level == (\d+)\) return (\d+);/g)].map(
      (m) => [Number(m[1]), BigInt(m[2])] as const,
    );
    expect(found).toHaveLength(25);
    for (const [level, value] of found) expect(value, `level ${level}`).toBe(zeroHash(level));
  });
});

describe("HashVector", () => {
  // One Poseidon(16) for the first 16 elements, then one Poseidon(1 + chunk) per further chunk of ≤ 15.
  const COST: Record<number, number> = { 1: 213, 16: 609, 17: 849, 31: 1218, 32: 1458 };
  for (const L of [1, 16, 17, 31, 32]) {
    it(`matches sdk hashVector at length ${L}, at ${COST[L]} constraints`, async () => {
      const c = await compileTestCircuit(
        `hashvector${L}`,
        ["circuits/gadgets/hash.circom"],
        `component main = HashVector(${L});`,
      );
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
    c = await compileTestCircuit("leaf", ["circuits/gadgets/leaf.circom"], "component main = RecordLeaf();");
  });
  const slots = [1n, 2n, 3n, 4n, 5n, 6n, 7n];

  it("costs Poseidon(8) plus the activity gate", () => expect(c.constraints).toBe(403));

  it("active: Poseidon(slots, salt); inactive: 0", async () => {
    const on = await c.witness({ slots: slots.map(String), salt: "9", active: "1" });
    expect(signal(c, on, "leaf")).toBe(poseidon([...slots, 9n]));
    const off = await c.witness({ slots: slots.map(String), salt: "9", active: "0" });
    expect(signal(c, off, "leaf")).toBe(0n);
  });

  it("a forged leaf or Poseidon output breaks a constraint", async () => {
    const w = await c.witness({ slots: slots.map(String), salt: "9", active: "1" });
    expect(c.firstUnsatisfied(w)).toBe(-1);
    expect(c.firstUnsatisfied(forge(c, w, "leaf", 0n))).toBeGreaterThanOrEqual(0);
    expect(c.firstUnsatisfied(forge(c, w, "leaf", signal(c, w, "leaf") + 1n))).toBeGreaterThanOrEqual(0);
    expect(c.firstUnsatisfied(forge(c, w, "h.out", 5n))).toBeGreaterThanOrEqual(0);
  });
});

describe("PrefixMask (capacity 8)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit(
      "mask",
      ["circuits/gadgets/merkle.circom"],
      "component main {public [n]} = PrefixMask(3);",
    );
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

// A tree over free leaves, its commitment for n and one prefix commitment for k.
const TREE_HARNESS = `
template TreeHarness(D) {
    signal input leaves[1 << D];
    signal input n;
    signal input k;
    signal output root;
    signal output prefix;
    component tree = MerkleTree(D);
    tree.leaves <== leaves;
    root <== CommitmentRoot(D)(n, tree.nodes);
    prefix <== PrefixCommitment(D)(k, tree.nodes);
}
component main {public [n, k]} = TreeHarness(3);`;

describe("MerkleTree, CommitmentRoot, PrefixCommitment (capacity 8)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("tree", ["circuits/gadgets/merkle.circom"], TREE_HARNESS);
  });
  const all = leafValues(8);
  const input = (n: number, k: number) => ({
    leaves: all.map((v, i) => String(i < n ? v : 0n)),
    n: String(n),
    k: String(k),
  });

  it("has a fixed cost", () => expect(c.constraints).toBe(2437));

  it("commits n = 0..8 records as the TS commitment does", async () => {
    for (let n = 0; n <= 8; n++) {
      const w = await c.witness(input(n, Math.max(n, 1)));
      expect(signal(c, w, "root"), `n=${n}`).toBe(commitmentRoot(all.slice(0, n)));
    }
  });

  it("computes every prefix commitment k = 1..n of a full trace, powers of two included", async () => {
    for (let k = 1; k <= 8; k++) {
      const w = await c.witness(input(8, k));
      expect(signal(c, w, "prefix"), `k=${k}`).toBe(prefixCommitment(all, k));
    }
  });

  it("refuses k >= 16 (range check before use)", async () => {
    expect(await witnessFails(c, input(8, 16))).toBe(true);
  });

  it("a forged tree node, sibling or level selector breaks a constraint", async () => {
    const w = await c.witness(input(8, 5));
    expect(c.firstUnsatisfied(w)).toBe(-1);
    const internal = [
      "root",
      "prefix",
      ...signalsMatching(c, /\.nodes\[(8|12|14)\]$/),
      ...signalsMatching(c, /\.(sibling|cur|sel|val|right|b|term)\[\d\]$/),
    ];
    expect(internal.length).toBeGreaterThan(25);
    for (const name of internal) {
      const value = signal(c, w, name);
      expect(c.firstUnsatisfied(forge(c, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
    }
  });
});
