// CommittedTrace (circuits/gadgets/trace.circom) at capacity 4: the rows past n must hold zero slots,
// which nothing else binds (their leaves are 0 whatever they hold). Edges (n = 0 and n = capacity),
// the exact cost of the invariant, every slot of every padding row forged, and the adversary's solver.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { leafHash } from "../../sdk/core/encoding.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import { play } from "../helpers/adversary.js";
import { compileTestCircuit, witnessFails, type TestCircuit } from "../helpers/circuit.js";
import { circuitsCopy, ZERO_ROWS } from "../helpers/circuits-copy.js";

const N = 4;
const S = 7;
const main = { template: "CommittedTrace", args: [2, 1], publicSignals: ["n", "finalRoot", "checkpointAcc"] };
const rows = Array.from({ length: N }, (_, i) =>
  Array.from({ length: S }, (_, k) => BigInt(100 * i + k + 1)),
);
const salts = rows.map((_, i) => BigInt(7 + i));

/** The input for the first n rows as records, the rest zero slots (salts as given). */
function input(n: number, padding: (row: bigint[], i: number) => bigint[] = () => Array(S).fill(0n)) {
  const slots = rows.map((r, i) => (i < n ? r : padding([...r], i)));
  const leaves = rows.slice(0, n).map((r, i) => leafHash(r, salts[i]!));
  return {
    n: String(n),
    finalRoot: String(commitmentRoot(leaves)),
    checkpointAcc: "0",
    slots: slots.map((r) => r.map(String)),
    salt: salts.map(String),
    cpN: ["1"],
    cpRoot: ["0"],
    cpActive: ["0"],
  };
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

  it("refuses a nonzero value in any slot of any padding row; the padding salt stays free", async () => {
    for (let i = 1; i < N; i++)
      for (let k = 0; k < S; k++) {
        const forged = input(1, (r, row) => r.map((_, j) => (row === i && j === k ? 5n : 0n)));
        expect(await witnessFails(c, forged), `row ${i} slot ${k}`).toBe(true);
      }
    const salted = { ...input(1), salt: ["7", "123", "456", "789"] };
    expect(c.firstUnsatisfied(await c.witness(salted))).toBe(-1);
  });

  it("the solver finds the padding free without the invariant, and refuses it with it", async () => {
    const copied = input(2, (r) => r); // rows 2 and 3 keep the records' slots: a prover's copy
    const without = await play(unpinned, { input: copied });
    expect(without.accepted, "the root alone does not bind rows past n").toBe(true);
    expect((await play(c, { input: copied })).accepted).toBe(false);
  });
});
