// Admission of proofs against the watcher's memory budget, and the estimate it admits them by.
import { describe, expect, it } from "vitest";
import {
  MemoryBudget,
  PROOF_MEMORY_BASE_BYTES,
  proofMemoryEstimate,
  proofMemoryEstimateOfZkey,
} from "../../prover/memory-budget.js";
import { circuitArtifacts } from "../../sdk/manifest/manifest.js";

const MiB = 2 ** 20;
const flush = () => new Promise((r) => setImmediate(r));

describe("MemoryBudget", () => {
  it("admits while the sum fits, in arrival order, and always one when idle", async () => {
    const budget = new MemoryBudget(100);
    const admitted: string[] = [];
    const take = (name: string, bytes: number) =>
      budget.acquire(bytes).then((release) => (admitted.push(name), release));

    const a = take("a", 60);
    const b = take("b", 30);
    const c = take("c", 60); // does not fit next to a + b
    const d = take("d", 5); // would fit, but must not overtake c
    await flush();
    expect(admitted).toEqual(["a", "b"]);
    expect(budget.inUse).toEqual({ bytes: 90, running: 2, waiting: 2 });

    (await a)();
    await flush();
    expect(admitted).toEqual(["a", "b", "c", "d"]);
    expect(budget.inUse.bytes).toBe(95);

    const releaseB = await b;
    releaseB();
    releaseB(); // a second release gives nothing back twice
    (await c)();
    (await d)();
    expect(budget.inUse).toEqual({ bytes: 0, running: 0, waiting: 0 });

    // Larger than the whole budget: admitted alone rather than never.
    const huge = await budget.acquire(1_000);
    const after = take("after", 1);
    await flush();
    expect(admitted).not.toContain("after");
    huge();
    await after;
    expect(admitted).toContain("after");
  });

  it("drops a waiter whose signal aborts, and lets the next one in", async () => {
    const budget = new MemoryBudget(10);
    const first = await budget.acquire(8);
    const stop = new AbortController();
    const aborted = budget.acquire(8, stop.signal);
    const next = budget.acquire(1);
    stop.abort(new Error("shutting down"));
    await expect(aborted).rejects.toThrow("shutting down");
    await next; // admitted once the aborted waiter left the head of the line
    first();
    await expect(budget.acquire(1, stop.signal)).rejects.toThrow("shutting down");
  });

  it("refuses a non-positive budget", () => {
    expect(() => new MemoryBudget(0)).toThrow(RangeError);
  });
});

describe("proof memory estimate", () => {
  it("is 8 × zkey + 96 MiB, read from the zkey the manifest names", () => {
    expect(proofMemoryEstimate(10 * MiB)).toBe(PROOF_MEMORY_BASE_BYTES + 80 * MiB);
    const estimate = proofMemoryEstimateOfZkey(circuitArtifacts("aap4_n8").zkey);
    // aap4_n8's zkey is about 10 MiB; its measured peak was 134 MiB over the idle process.
    expect(estimate).toBeGreaterThan(134 * MiB);
    expect(estimate).toBeLessThan(400 * MiB);
  });
});
