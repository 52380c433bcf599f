// snarkjs proves and verifies on a BN254 curve that it builds once and caches on globalThis, with a pool of
// worker threads. Left alone, those threads keep Node's event loop alive for ever: a script that proved or
// verified once would never exit unless it terminated the pool (releaseProver). Here the pool's threads are
// referenced only while a proof or a verification is running, so a finished script exits on its own, and a
// later call in the same process still finds the pool warm. One home for the prover and the user's verifier.
import * as snarkjs from "snarkjs";

/** A thread the event loop can be told to wait for, or not: Node's worker_threads.Worker. */
interface Referable {
  ref(): void;
  unref(): void;
}

let running = 0;

/** The worker threads under ffjavascript's web-worker wrappers (each keeps its Node Worker under a symbol). */
function curveThreads(): Referable[] {
  const curve = (globalThis as { curve_bn128?: { tm?: { workers?: object[] } } | null }).curve_bn128;
  const threads: Referable[] = [];
  for (const wrapper of curve?.tm?.workers ?? []) {
    for (const key of Object.getOwnPropertySymbols(wrapper)) {
      const inner = (wrapper as Record<symbol, unknown>)[key] as Partial<Referable> | undefined;
      if (typeof inner?.ref === "function" && typeof inner.unref === "function")
        threads.push(inner as Referable);
    }
  }
  return threads;
}

/**
 * Runs `work` (anything that uses snarkjs' cached curve) with the curve's threads holding the process open;
 * once no such work is left, they stop holding it. Calls may overlap.
 */
export async function withCurveThreads<T>(work: () => Promise<T>): Promise<T> {
  running++;
  for (const t of curveThreads()) t.ref();
  try {
    return await work();
  } finally {
    // A pool built during `work` is covered too: it is looked up again here.
    if (--running === 0) for (const t of curveThreads()) t.unref();
  }
}

/** snarkjs' Groth16 verification, holding the process open only while it runs. */
export function verifyGroth16(
  vkey: unknown,
  publicSignals: readonly (string | bigint)[],
  proof: unknown,
): Promise<boolean> {
  return withCurveThreads(() =>
    snarkjs.groth16.verify(vkey as never, publicSignals.map(String), proof as snarkjs.Groth16Proof),
  );
}
