// circuits/gadgets/repeats.circom: exact pair equality, running occurrence counts
// and the (L+1)-th-occurrence hit, against a TS model, with forged witnesses.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compileTestCircuit, forge, signalsMatching, type TestCircuit } from "../helpers/circuit.js";

const signal = (c: TestCircuit, w: bigint[], name: string) => w[c.signals.get(name)!];

describe("PairEqual", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit(
      "pair-equal",
      ["circuits/gadgets/repeats.circom"],
      "component main {public [a, b]} = PairEqual();",
    );
  });
  const eq = async (a: bigint[], b: bigint[]) => {
    const w = await c.witness({ a: a.map(String), b: b.map(String) });
    return { w, eq: signal(c, w, "eq") };
  };

  it("costs 4 constraints", () => expect(c.constraints).toBe(4));

  it("is 1 exactly when both coordinates agree", async () => {
    expect((await eq([5n, 7n], [5n, 7n])).eq).toBe(1n);
    expect((await eq([0n, 0n], [0n, 0n])).eq).toBe(1n);
    expect((await eq([5n, 7n], [6n, 7n])).eq).toBe(0n);
    expect((await eq([5n, 7n], [5n, 8n])).eq).toBe(0n);
    expect((await eq([5n, 7n], [7n, 5n])).eq).toBe(0n);
    expect((await eq([1n, 0n], [0n, 1n])).eq).toBe(0n);
  });

  it("a forged eq or product breaks a constraint in every case", async () => {
    for (const [a, b] of [
      [
        [5n, 7n],
        [5n, 7n],
      ],
      [
        [5n, 7n],
        [6n, 7n],
      ],
      [
        [5n, 7n],
        [5n, 8n],
      ],
      [
        [1n, 2n],
        [3n, 4n],
      ],
    ]) {
      const { w, eq: value } = await eq(a, b);
      expect(c.firstUnsatisfied(w)).toBe(-1);
      expect(c.firstUnsatisfied(forge(c, w, "eq", 1n - value)), `${a} ${b}`).toBeGreaterThanOrEqual(0);
      expect(c.firstUnsatisfied(forge(c, w, "eq", value + 2n)), `${a} ${b}`).toBeGreaterThanOrEqual(0);
      const t = signal(c, w, "t");
      expect(c.firstUnsatisfied(forge(c, w, "t", t + 1n)), `${a} ${b}`).toBeGreaterThanOrEqual(0);
    }
  });
});

/** TS model of RepeatHits: occurrence number of each live record's (tool, args), and the hits. */
function model(live: number[], tool: bigint[], args: bigint[], bound: bigint) {
  const seen = new Map<string, bigint>();
  return live.map((l, i) => {
    if (!l) return 0n;
    const key = `${tool[i]}:${args[i]}`;
    const k = (seen.get(key) ?? 0n) + 1n;
    seen.set(key, k);
    return k === bound ? 1n : 0n;
  });
}

describe("RepeatCounts and RepeatHits (6 records)", () => {
  const N = 6;
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit(
      "repeat-hits",
      ["circuits/gadgets/repeats.circom"],
      `component main {public [live, tool, args, bound]} = RepeatHits(${N});`,
    );
  });
  const input = (live: number[], tool: bigint[], args: bigint[], bound: bigint) => ({
    live: live.map(String),
    tool: tool.map(String),
    args: args.map(String),
    bound: String(bound),
  });
  const hits = async (live: number[], tool: bigint[], args: bigint[], bound: bigint) => {
    const w = await c.witness(input(live, tool, args, bound));
    return { w, hit: Array.from({ length: N }, (_, i) => signal(c, w, `hit[${i}]`)) };
  };

  it("costs N keys, 4 per pair and 3 per hit", () =>
    expect(c.constraints).toBe(N + 4 * ((N * (N - 1)) / 2) + 3 * N));

  it("hits the (L+1)-th occurrence; bound 0 never hits; non-live records neither count nor hit", async () => {
    const tool = [7n, 7n, 7n, 8n, 7n, 7n];
    const args = [1n, 1n, 2n, 1n, 1n, 1n];
    // live: record 1 is not a call (e.g. blocked), so key (7,1) occurs at 0, 4, 5.
    const live = [1, 0, 1, 1, 1, 1];
    expect((await hits(live, tool, args, 0n)).hit).toEqual([0n, 0n, 0n, 0n, 0n, 0n]);
    expect((await hits(live, tool, args, 1n)).hit).toEqual([1n, 0n, 1n, 1n, 0n, 0n]);
    expect((await hits(live, tool, args, 2n)).hit).toEqual([0n, 0n, 0n, 0n, 1n, 0n]);
    expect((await hits(live, tool, args, 3n)).hit).toEqual([0n, 0n, 0n, 0n, 0n, 1n]);
    expect((await hits(live, tool, args, 4n)).hit).toEqual([0n, 0n, 0n, 0n, 0n, 0n]);
    // A non-live record whose args match a live one's, and whose tool slot is 0.
    expect(
      (await hits([1, 0, 0, 0, 0, 0], [7n, 0n, 0n, 0n, 0n, 0n], [1n, 1n, 1n, 1n, 1n, 1n], 2n)).hit,
    ).toEqual(Array(N).fill(0n));
  });

  it("agrees with the TS model on 150 random sets of records", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.constantFrom(7n, 8n), fc.constantFrom(1n, 2n)), {
          minLength: N,
          maxLength: N,
        }),
        fc.bigInt({ min: 0n, max: 7n }),
        async (rows, bound) => {
          const live = rows.map((r) => r[0]);
          const tool = rows.map((r) => r[1]);
          const args = rows.map((r) => r[2]);
          expect((await hits(live, tool, args, bound)).hit).toEqual(model(live, tool, args, bound));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("a forged key, pair verdict, count or hit breaks a constraint", async () => {
    const tool = [7n, 7n, 8n, 7n, 7n, 7n];
    const args = [1n, 1n, 1n, 2n, 1n, 1n];
    const { w } = await hits([1, 1, 1, 1, 1, 0], tool, args, 3n);
    expect(c.firstUnsatisfied(w)).toBe(-1);
    const targets = [
      ...signalsMatching(c, /^counts\.key\[(1|5)\]$/),
      ...signalsMatching(c, /^counts\.same\[(0|3|9)\]\.eq$/),
      ...signalsMatching(c, /^counts\.same\[(0|3|9)\]\.t$/),
      ...signalsMatching(c, /^atBound\[(3|4)\]\.out$/),
      ...signalsMatching(c, /^hit\[\d\]$/),
    ];
    expect(targets.length).toBeGreaterThanOrEqual(14);
    for (const name of targets) {
      const value = signal(c, w, name);
      expect(c.firstUnsatisfied(forge(c, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
      expect(c.firstUnsatisfied(forge(c, w, name, 1n - value)), name).toBeGreaterThanOrEqual(0);
    }
  });
});
