// circuits/gadgets/repeats.circom: occurrence counts of (tool, args) keys from the
// prover's labels (predicates/aap5/repeats.ts), against a TS model; labels that lie about a count
// (a key split in two, a count skipped, a wrong last bit, a count out of range) have
// no witness, and forged internal signals break a constraint.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { countBits } from "../../sdk/core/multiset.js";
import { certifyLabels, repeatHints, type RepeatRecord } from "../../sdk/core/predicates/aap5/repeats.js";
import {
  compileTestCircuit,
  forge,
  signalsMatching,
  signalValue,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";

const signal = signalValue;
const SEED = 0x5eedn;

/** TS model of RepeatHits: occurrence number of each live record's (tool, args), and the hits. */
function model(records: readonly RepeatRecord[], bound: bigint) {
  const seen = new Map<string, bigint>();
  return records.map((r) => {
    if (!r.live) return 0n;
    const key = `${r.tool}:${r.args}`;
    const k = (seen.get(key) ?? 0n) + 1n;
    seen.set(key, k);
    return k === bound ? 1n : 0n;
  });
}

const rows = (live: number[], tool: bigint[], args: bigint[]): RepeatRecord[] =>
  live.map((l, i) => ({ live: l === 1, tool: tool[i]!, args: args[i]! }));

type Labels = { count: bigint[]; last: bigint[]; weight: bigint[] };

function input(records: readonly RepeatRecord[], bound: bigint, labels: Labels = repeatHints(records, SEED)) {
  return {
    live: records.map((r) => (r.live ? "1" : "0")),
    tool: records.map((r) => String(r.tool)),
    args: records.map((r) => String(r.args)),
    bound: String(bound),
    seed: String(SEED),
    count: labels.count.map(String),
    last: labels.last.map(String),
    weight: labels.weight.map(String),
  };
}

describe("RepeatHits (6 records)", () => {
  const N = 6;
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("repeat-hits", {
      includes: ["circuits/gadgets/repeats.circom"],
      template: "RepeatHits",
      args: [N],
      publicSignals: ["live", "tool", "args", "bound", "seed"],
    });
  });
  const hits = async (records: RepeatRecord[], bound: bigint, labels?: Labels) => {
    const w = await c.witness(input(records, bound, labels));
    return { w, hit: Array.from({ length: N }, (_, i) => signal(c, w, `hit[${i}]`)) };
  };
  // Key (7, 1) at 0, 4 and 5; record 1 is not live (e.g. a blocked call) though its key matches.
  const tool = [7n, 7n, 7n, 8n, 7n, 7n];
  const args = [1n, 1n, 2n, 1n, 1n, 1n];
  const records = rows([1, 0, 1, 1, 1, 1], tool, args);

  it("costs (B + 19)·N + 1 and two hashes, of 1 + 1 and 1 + N inputs", () => {
    // B = 3 for counts 1..6; HashVector(2) is Poseidon(2) (240), HashVector(7) Poseidon(7) (381).
    expect(countBits(N)).toBe(3);
    expect(c.constraints).toBe((3 + 20) * N + 1 + 240 + 381);
  });

  it("hits the (L+1)-th occurrence; bound 0 never hits; non-live records neither count nor hit", async () => {
    expect((await hits(records, 0n)).hit).toEqual([0n, 0n, 0n, 0n, 0n, 0n]);
    expect((await hits(records, 1n)).hit).toEqual([1n, 0n, 1n, 1n, 0n, 0n]);
    expect((await hits(records, 2n)).hit).toEqual([0n, 0n, 0n, 0n, 1n, 0n]);
    expect((await hits(records, 3n)).hit).toEqual([0n, 0n, 0n, 0n, 0n, 1n]);
    expect((await hits(records, 4n)).hit).toEqual([0n, 0n, 0n, 0n, 0n, 0n]);
    // Nothing live; and every record one key.
    expect((await hits(rows([0, 0, 0, 0, 0, 0], tool, args), 1n)).hit).toEqual(Array(N).fill(0n));
    const same = rows([1, 1, 1, 1, 1, 1], Array(N).fill(9n), Array(N).fill(0n));
    expect((await hits(same, 6n)).hit).toEqual([0n, 0n, 0n, 0n, 0n, 1n]);
    expect((await hits(same, 7n)).hit).toEqual(Array(N).fill(0n));
  });

  it("agrees with the TS model on 100 random sets of records", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.constantFrom(7n, 8n), fc.constantFrom(1n, 2n)), {
          minLength: N,
          maxLength: N,
        }),
        fc.bigInt({ min: 0n, max: 7n }),
        async (rs, bound) => {
          const recs = rows(
            rs.map((r) => r[0]),
            rs.map((r) => r[1]),
            rs.map((r) => r[2]),
          );
          expect((await hits(recs, bound)).hit).toEqual(model(recs, bound));
        },
      ),
      { numRuns: 100 },
    );
  });

  it("accepts the labels of a key in any order: only whether the (L+1)-th exists is read", async () => {
    const honest = repeatHints(records, SEED);
    // Key (7, 1) labelled 3, 1, 2 at records 0, 4, 5 instead of 1, 2, 3; its last is record 0.
    const count = [3n, 1n, 1n, 1n, 1n, 2n];
    const last = [1n, 0n, 1n, 1n, 0n, 0n];
    expect(honest.count).toEqual([1n, 1n, 1n, 1n, 2n, 3n]);
    // The honest certificate does not carry over: it answers other challenges.
    expect(await witnessFails(c, input(records, 3n, { ...honest, count, last }))).toBe(true);
    const certified = certifyLabels(records, { count, last }, SEED);
    expect((await hits(records, 3n, certified)).hit).toEqual([1n, 0n, 0n, 0n, 0n, 0n]);
  });

  it("refuses labels that lie: a key split in two, a skipped count, a wrong last bit, count 0 or > 2^B", async () => {
    // Each is certified as well as it can be (sdk/core/multiset.ts throws where no certificate exists).
    const lies: [string, bigint[], bigint[]][] = [
      ["split: (7,1) labelled 1, 1, 2", [1n, 1n, 1n, 1n, 1n, 2n], [1n, 0n, 1n, 1n, 0n, 1n]],
      ["skipped: (7,1) labelled 1, 2, 4", [1n, 1n, 1n, 1n, 2n, 4n], [0n, 0n, 1n, 1n, 0n, 1n]],
      ["two lasts for (7,1)", [1n, 1n, 1n, 1n, 2n, 3n], [0n, 0n, 1n, 1n, 1n, 1n]],
      ["no last for (8,1)", [1n, 1n, 1n, 1n, 2n, 3n], [0n, 0n, 1n, 0n, 0n, 1n]],
      ["last on a record that is not live", [1n, 1n, 1n, 1n, 2n, 3n], [0n, 1n, 1n, 1n, 0n, 1n]],
      ["count 0", [0n, 1n, 1n, 1n, 1n, 2n], [0n, 0n, 1n, 1n, 0n, 1n]],
      ["count 2^B + 1 on a record that is not live", [1n, 9n, 1n, 1n, 2n, 3n], [0n, 0n, 1n, 1n, 0n, 1n]],
    ];
    for (const [what, count, last] of lies) {
      let labels: Labels;
      try {
        labels = certifyLabels(records, { count, last }, SEED);
      } catch {
        // No certificate exists (a repeated first key): try the honest one for the other labels.
        labels = { ...repeatHints(records, SEED), count, last };
      }
      expect(await witnessFails(c, input(records, 3n, labels)), what).toBe(true);
    }
  });

  it("a forged challenge, fingerprint, first bit, inverse, product or hit breaks a constraint", async () => {
    const { w } = await hits(records, 3n);
    expect(c.firstUnsatisfied(w)).toBe(-1);
    const targets = [
      "beta",
      "betaSquared",
      "zeta",
      ...signalsMatching(c, /^(key|entry|first|hit)\[(0|3|4)\]$/),
      ...signalsMatching(c, /^labelled$/),
      ...signalsMatching(c, /^stepsAndLasts\.(acc|term)\[(2|8)\]$/),
      ...signalsMatching(c, /\.inv\[(0|2|3)\]$/),
      ...signalsMatching(c, /^atBound\[(4|5)\]\.out$/),
    ];
    expect(targets.length).toBeGreaterThanOrEqual(20);
    for (const name of targets) {
      const value = signal(c, w, name);
      expect(c.firstUnsatisfied(forge(c, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
    }
  });
});
