// CheckpointFold + CheckpointHeads (circuits/gadgets/checkpoints.circom) inside CommittedTrace at
// capacity 8 with 3 entry slots: every entry folded into the public accumulator must be the chain
// head of a prefix of the proven trace. Honest shapes (duplicates, n = capacity, no entries), every
// forgery a dishonest provider would try (a rewritten record, a head past n, a wrong position, hits
// chosen after the challenge, inverses solved for the sum), and the teeth check of the pin that
// keeps hits off the rows past n.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import { play } from "../helpers/adversary.js";
import { compileTestCircuit, signalsMatching, witnessFails, type TestCircuit } from "../helpers/circuit.js";
import { circuitsCopy, HITS_PAST_N } from "../helpers/circuits-copy.js";
import { chainedLeaves, traceInput, traceRows } from "../helpers/trace-input.js";

const D = 3;
const N = 1 << D;
const K = 3;
const main = {
  template: "CommittedTrace",
  args: [D, K],
  publicSignals: ["n", "finalRoot", "checkpointAcc"],
  // The lean Poseidon: the same constraints (test/circuits/poseidon.test.ts), compiled about 4x faster.
  poseidon: "lean" as const,
};
const { rows, digests } = traceRows(N);
const leaves = chainedLeaves(rows, digests, N);
const head = (n: number) => leaves[n - 1]!;
/**
 * At capacity 8 with 3 entries: PrefixMask 10, 8 leaves 8·418, the tree and root 596, the zero rows
 * 8·7; the remaining 1,344 are the checkpoints: the fold's 3 Poseidon(3), the seed and β hashes, and
 * 5 constraints per row and 3 per entry of the lookup.
 */
const COST = 5350;

describe("CheckpointHeads: every folded entry is a chain head of the proven trace", () => {
  let c: TestCircuit;
  let unpinned: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("checkpoint-heads-8", {
      ...main,
      includes: ["circuits/gadgets/trace.circom"],
    });
    const copy = circuitsCopy("hits-past-n", [HITS_PAST_N]);
    unpinned = await compileTestCircuit("checkpoint-heads-8-unpinned", {
      ...main,
      includes: [join(copy, "circuits/gadgets/trace.circom")],
    });
  });
  const ok = async (input: Record<string, unknown>) => c.firstUnsatisfied(await c.witness(input)) === -1;

  it(`costs exactly ${COST} constraints, one per row of them the pin on hits past n`, () => {
    expect(c.constraints).toBe(COST);
    expect(c.constraints - unpinned.constraints).toBe(N);
  });

  it("accepts honest entries: none, one, the full trace, and a prefix named twice", async () => {
    expect(await ok(traceInput({ N, K, n: 5, entries: [] }))).toBe(true);
    expect(await ok(traceInput({ N, K, n: 5, entries: [{ n: 3, head: head(3) }] }))).toBe(true);
    expect(
      await ok(
        traceInput({
          N,
          K,
          n: N,
          entries: [
            { n: 1, head: head(1) },
            { n: N, head: head(N) },
          ],
        }),
      ),
    ).toBe(true);
    // A provider checkpoint and the user's spare receipt for the same prefix: row 2 is hit twice.
    const twice = [
      { n: 3, head: head(3) },
      { n: 5, head: head(5) },
      { n: 3, head: head(3) },
    ];
    expect(await ok(traceInput({ N, K, n: 5, entries: twice }))).toBe(true);
  });

  it("refuses a trace whose record changed after a checkpoint covered it", async () => {
    const committed = [{ n: 4, head: head(4) }];
    const edited = rows.map((r) => [...r]);
    edited[1]![2] = 999n; // record 1's args: the leaves from 1 on change, so head(4) is no row any more
    expect(await witnessFails(c, traceInput({ N, K, n: 6, entries: committed, rows: edited }))).toBe(true);
    const redigested = [...digests];
    redigested[2] = 12345n; // record 2's result (its digest) rewritten
    expect(await witnessFails(c, traceInput({ N, K, n: 6, entries: committed, digests: redigested }))).toBe(
      true,
    );
  });

  it("refuses a closing short of an entry (truncation), with any hits on any row", async () => {
    // The entry names 6 records; the trace proven holds 4.
    const entries = [{ n: 6, head: head(6) }];
    expect(await witnessFails(c, traceInput({ N, K, n: 4, entries }))).toBe(true);
    for (let row = 0; row < N; row++) {
      const hits = Array<number>(N).fill(0);
      hits[row] = 1;
      expect(await witnessFails(c, traceInput({ N, K, n: 4, entries, hits })), `hit row ${row}`).toBe(true);
    }
  });

  it("refuses an entry at the wrong position, or a head-0 entry past n (the padding rows' leaf)", async () => {
    expect(await witnessFails(c, traceInput({ N, K, n: 6, entries: [{ n: 4, head: head(3) }] }))).toBe(true);
    const padding = [{ n: 7, head: 0n }];
    const hits = Array<number>(N).fill(0);
    hits[6] = 1;
    expect(await witnessFails(c, traceInput({ N, K, n: 4, entries: padding, hits }))).toBe(true);
  });

  it("the solver passes a head-0 entry past n without the pin, and the build refuses it", async () => {
    const hits = Array<number>(N).fill(0);
    hits[6] = 1;
    const move = { input: traceInput({ N, K, n: 4, entries: [{ n: 7, head: 0n }], hits }) };
    expect((await play(unpinned, move)).accepted, "a hit on a padding row matches head 0").toBe(true);
    expect((await play(c, move)).accepted).toBe(false);
  });

  it("no hits chosen after the challenge, and no inverse solved for the sum, pass a rewritten trace", async () => {
    const edited = rows.map((r) => [...r]);
    edited[0]![4] = 77n;
    const committed = [
      { n: 2, head: head(2) },
      { n: 5, head: head(5) },
    ];
    // Every multiplicity pattern on the first three rows (4^3 = 64; a witness costs ~40 ms).
    let tried = 0;
    for (let pattern = 0; pattern < 4 ** 3; pattern++) {
      const hits = Array.from({ length: N }, (_, i) => (i < 3 ? (pattern >> (2 * i)) & 3 : 0));
      const input = traceInput({ N, K, n: 5, entries: committed, rows: edited, hits });
      const { witness } = await c.lenientWitness(input);
      if (c.firstUnsatisfied(witness) === -1) throw new Error(`pattern ${pattern} passes`);
      tried++;
    }
    expect(tried).toBe(64);
    // After the challenge: solve one row's inverse so the two sums agree. The sum then holds, and
    // that row's inverse constraint breaks instead.
    const hits = [0, 1, 0, 0, 1, 0, 0, 0];
    const input = traceInput({ N, K, n: 5, entries: committed, rows: edited, hits });
    const invs = signalsMatching(c, /^heads\.row\[\d+\]\.inv$/);
    expect(invs).toHaveLength(N);
    const played = await play(c, {
      input,
      override: (peek) => {
        const mod = (x: bigint) => ((x % FIELD_MODULUS) + FIELD_MODULUS) % FIELD_MODULUS;
        let entrySum = 0n;
        for (let k = 0; k < K; k++) entrySum += peek(`heads.entry[${k}].out`);
        let others = 0n;
        for (let i = 0; i < N; i++) if (i !== 1) others += BigInt(hits[i]!) * peek(`heads.row[${i}].inv`);
        return { "heads.row[1].inv": mod(entrySum - others) };
      },
    });
    expect(played.accepted).toBe(false);
  });
});
