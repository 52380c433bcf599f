// CommittedTrace (circuits/gadgets/trace.circom) at capacity 4: the rows past n must hold zero slots,
// which nothing else binds (their leaves are 0 whatever they hold). Edges (n = 0 and n = capacity),
// the exact cost of the invariant, every slot of every padding row forged, and the adversary's solver.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { play } from "../helpers/adversary.js";
import { compileTestCircuit, witnessFails, type TestCircuit } from "../helpers/circuit.js";
import { circuitsCopy, ZERO_ROWS } from "../helpers/circuits-copy.js";
import { traceInput } from "../helpers/trace-input.js";

const N = 4;
const S = 7;
const main = {
  template: "CommittedTrace",
  args: [2, 1],
  publicSignals: ["n", "finalRoot", "checkpointAcc"],
  // The lean Poseidon: the same constraints (test/circuits/poseidon.test.ts), compiled about 4x faster.
  poseidon: "lean" as const,
};
/** The input for the first n rows as records, the rest zero slots (or what `padding` puts there). */
function input(n: number, padding: (row: bigint[], i: number) => bigint[] = (r) => r.map(() => 0n)) {
  const base = traceInput({ N, K: 1, n, entries: [] });
  const full = traceInput({ N, K: 1, n: N, entries: [] });
  const slots = full.slots.map((r, i) => (i < n ? r : padding(r.map(BigInt), i).map(String)));
  return { ...base, slots };
}

describe("CommittedTrace: rows past n", () => {
  let c: TestCircuit;
  let unpinned: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("committed-trace-4", {
      ...main,
      includes: ["circuits/gadgets/trace.circom"],
    });
    const copy = circuitsCopy("zero-rows-free", [ZERO_ROWS]);
    unpinned = await compileTestCircuit("committed-trace-4-unpinned", {
      ...main,
      includes: [join(copy, "circuits/gadgets/trace.circom")],
    });
  });

  it("costs exactly 7 constraints per row for the invariant", () => {
    expect(c.constraints - unpinned.constraints).toBe(S * N);
  });

  it("accepts zero padding rows at every n, including none (n = 4) and all (n = 0)", async () => {
    for (const n of [0, 1, 3, 4]) expect(c.firstUnsatisfied(await c.witness(input(n))), `n=${n}`).toBe(-1);
  });

  it("refuses a nonzero value in any slot of any padding row; the padding digest stays free", async () => {
    for (let i = 1; i < N; i++)
      for (let k = 0; k < S; k++) {
        const forged = input(1, (r, row) => r.map((_, j) => (row === i && j === k ? 5n : 0n)));
        expect(await witnessFails(c, forged), `row ${i} slot ${k}`).toBe(true);
      }
    const salted = { ...input(1), digest: ["7", "123", "456", "789"] };
    expect(c.firstUnsatisfied(await c.witness(salted))).toBe(-1);
  });

  it("the solver finds the padding free without the invariant, and refuses it with it", async () => {
    const copied = input(2, (r) => r); // rows 2 and 3 keep the records' slots: a prover's copy
    const without = await play(unpinned, { input: copied });
    expect(without.accepted, "the root alone does not bind rows past n").toBe(true);
    expect((await play(c, { input: copied })).accepted).toBe(false);
  });
});
