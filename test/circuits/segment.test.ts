// Segment chains (circuits/gadgets/segment.circom, through the AAP-3 segment circuit at 8 records a
// segment): sdk/core/segments.ts predicts every state the circuit accepts, across the frontier's
// shapes (one segment, a full group, a tree two levels high), and the chain refuses every forgery
// at a boundary: carried values that do not hash to stateIn, a segment out of place, a verdict it
// did not compute, entries that are not the trace's chain heads, a challenge chosen by the prover.
import { beforeAll, describe, expect, it } from "vitest";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { builtCircuit, type TestCircuit, accepts } from "../helpers/circuit.js";
import { SECRET, SIZE, inputs, payments, profile } from "../helpers/segment-trace.js";

/**
 * At 8 records a segment: 8 leaves (418 each) and zero rows, six Poseidon(16) levels of frontier, the two
 * state hashes over 105 values, the fold's 2 entries, the lookup and AAP-3's per-record checks.
 */
const COST = 20030;

let c: TestCircuit;
beforeAll(async () => {
  // The test group's own build (npm test's setup makes it): the r1cs and wasm the e2e proofs use.
  c = await builtCircuit("aap3_seg8");
  expect(c.name).toBe("aap3_seg8");
});
const ok = (input: Record<string, unknown>) => accepts(c, input);

describe("segment chains: the TS plan is what the circuit accepts", () => {
  it(`costs exactly ${COST} constraints at 8 records a segment`, () => {
    expect(c.constraints).toBe(COST);
  });
  for (const n of [1, 5, 8, 9, 16, 17, 20, 33]) {
    it(`accepts every segment of an honest ${n}-record chain`, async () => {
      const { inputs: all, plans } = inputs(payments(n), n >= 5 ? [5] : []);
      expect(plans.length).toBe(Math.ceil(n / SIZE));
      for (const input of all) expect(await ok(input)).toBe(true);
      expect(plans.at(-1)!.stateOut).toBe(1n);
    });
  }
});

const forged = (input: Record<string, unknown>, changes: Record<string, unknown>) => ({
  ...input,
  ...changes,
});

describe("segment chains: verdicts", () => {
  it("carries a violation in the first segment to a violated terminal state", async () => {
    const { inputs: all, plans, verdict } = inputs(payments(20, [3]));
    expect(verdict.violated).toBe(true);
    expect(plans.map((p) => p.carryOut.violated)).toEqual([true, true, true]);
    expect(plans.at(-1)!.stateOut).toBe(2n);
    for (const input of all) expect(await ok(input)).toBe(true);
  });

  it("proves a violation in the last segment, and refuses to call it satisfied", async () => {
    const { inputs: all, plans } = inputs(payments(20, [19]));
    expect(plans.map((p) => p.carryOut.violated)).toEqual([false, false, true]);
    for (const input of all) expect(await ok(input)).toBe(true);
    expect(await ok(forged(all[2]!, { stateOut: "1" }))).toBe(false);
  });

  it("refuses a satisfied chain that claims violated", async () => {
    const { inputs: all } = inputs(payments(20));
    expect(await ok(forged(all[2]!, { stateOut: "2" }))).toBe(false);
  });
});

describe("segment chains: forgeries at a boundary", () => {
  const honest = () => inputs(payments(20), [5]);

  it("refuses carried values that do not hash to stateIn", async () => {
    const { inputs: all } = honest();
    const middle = all[1]!;
    for (const field of ["inHead", "inAcc", "inSum", "inChain", "alpha", "beta", "inViolated"]) {
      const value = field === "inViolated" ? "1" : String(BigInt(middle[field] as string) + 1n);
      expect(await ok(forged(middle, { [field]: value })), field).toBe(false);
    }
    const pending = (middle.inPending as string[][]).map((g) => [...g]);
    pending[0]![3] = "7";
    expect(await ok(forged(middle, { inPending: pending }))).toBe(false);
  });

  it("lets a rehashed forgery pass alone, but no segment before it outputs that state", async () => {
    const { inputs: all, plans } = honest();
    // The provider hides segment 0's entries: it carries acc = 0 into segment 1, rehashing both states.
    const { foldCheckpoint, hashVector } = await import("../../sdk/core/hash.js");
    const { stateVector } = await import("../../sdk/core/segments.js");
    const stateIn = String(hashVector(stateVector({ ...plans[1]!.carryIn, acc: 0n })));
    const accOut = plans[1]!.entries.reduce((a, e) => foldCheckpoint(a, e.n, e.root), 0n);
    const stateOut = String(hashVector(stateVector({ ...plans[1]!.carryOut, acc: accOut })));
    expect(await ok(forged(all[1]!, { inAcc: "0", stateIn, stateOut }))).toBe(true);
    // ... but segment 0 computes its stateOut, so it cannot end in that state: the link breaks.
    expect(await ok(forged(all[0]!, { stateOut: stateIn }))).toBe(false);
  });

  it("refuses a segment out of its place: skipped, reordered or duplicated", async () => {
    const { inputs: all } = honest();
    expect(await ok(forged(all[2]!, { index: "1" }))).toBe(false);
    expect(await ok(forged(all[1]!, { index: "2" }))).toBe(false);
    expect(await ok(forged(all[0]!, { index: "1" }))).toBe(false);
    // A first segment must start from nothing.
    expect(await ok(forged(all[1]!, { index: "0" }))).toBe(false);
    // Only the first segment starts from 0: a later one claiming stateIn = 0 has no witness.
    expect(await ok(forged(all[1]!, { stateIn: "0" }))).toBe(false);
    // Past the trace: segment 3 of 20 records does not exist.
    expect(await ok(forged(all[2]!, { index: "3" }))).toBe(false);
  });

  it("binds every segment to its claim: another session's context or root does not open the digest", async () => {
    const { inputs: all } = honest();
    for (const field of ["context", "finalRoot", "n", "checkpointAcc", "paramsHash", "claimDigest"]) {
      const value = String(BigInt(all[0]![field] as string) + 1n);
      expect(await ok(forged(all[0]!, { [field]: value })), field).toBe(false);
    }
  });

  it("refuses an entry that is not the chain head it claims, with the challenge rederived", async () => {
    const records = payments(5);
    const { inputs: all, plans } = inputs(records, [5]);
    const leaves = encodeTrace(records, profile, SECRET).map((r) => r.leaf);
    const { foldCheckpoint, hashVector, poseidon } = await import("../../sdk/core/hash.js");
    const input = all[0]!;
    // Entry (5, head of 4 records): the escrow's acc for it, and the challenge over that acc.
    const acc = foldCheckpoint(0n, 5, leaves[3]!);
    const alpha = hashVector([5n, BigInt(input.finalRoot as string), acc, plans[0]!.carryOut.chain]);
    const cpHead = [...(input.cpHead as string[])];
    cpHead[0] = String(leaves[3]!);
    const lie = forged(input, {
      cpHead,
      checkpointAcc: String(acc),
      alpha: String(alpha),
      beta: String(poseidon([alpha])),
    });
    expect(await ok(lie)).toBe(false);
    // The same edits with the true head pass: only the head was wrong.
    const acc5 = foldCheckpoint(0n, 5, leaves[4]!);
    expect(String(acc5)).toBe(input.checkpointAcc);
  });

  it("refuses an entry past n (the truncation attack) even with a hit on a zero row", async () => {
    const records = payments(6);
    const { inputs: all } = inputs(records);
    const input = all[0]!;
    const hits = (input.cpHits as string[][]).map((h) => [...h]);
    hits[6] = ["1", "0"]; // row 6 is past n = 6: its leaf is 0
    expect(await ok(forged(input, { cpHits: hits }))).toBe(false);
  });
});
