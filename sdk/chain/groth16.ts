// snarkjs proves and verifies on a BN254 curve that it builds once and caches on globalThis, with a pool of
// worker threads. Left alone, those threads keep Node's event loop alive for ever: a script that proved or
// verified once would never exit unless it terminated the pool (releaseProver). Here every proof and
// verification runs through withCurveThreads, and once none has run for IDLE_RELEASE_MS the pool is
// terminated, so a finished script exits on its own; the next proof builds it again (about half a second).
//
// Why terminate rather than unref the threads: an unreferenced pool lets Node exit in the middle of any
// snarkjs call that does not come through here (the process's other snarkjs users share the cached curve),
// silently, with exit code 0. A terminated pool fails safe: a later direct call builds a new, referenced one.
// One home for the prover and the user's verifier.
import * as snarkjs from "snarkjs";

/** How long the pool may sit idle before it is terminated: longer than the gaps inside one claim's work. */
export const IDLE_RELEASE_MS = 2_000;

interface CachedCurve {
  terminate(): Promise<void>;
  /** ffjavascript's thread manager: `working[i]` while thread i runs a task (any caller's). */
  tm?: { working?: boolean[] };
}

const cachedCurve = () => (globalThis as { curve_bn128?: CachedCurve | null }).curve_bn128 ?? undefined;

let running = 0;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function releaseWhenIdle(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    const curve = cachedCurve();
    if (running > 0 || !curve) return;
    // A thread still busy is someone else's snarkjs call on the shared curve: wait for it.
    if (curve.tm?.working?.some(Boolean)) return releaseWhenIdle();
    void curve.terminate();
  }, IDLE_RELEASE_MS);
  // The pool's own threads hold the process until then; the timer itself holds nothing.
  // (A browser's timers have no unref, and hold nothing either.)
  (idleTimer as { unref?: () => void }).unref?.();
}

/** Runs `work` (anything that uses snarkjs' cached curve); the curve's pool is released once all such work is done. */
export async function withCurveThreads<T>(work: () => Promise<T>): Promise<T> {
  running++;
  clearTimeout(idleTimer);
  try {
    return await work();
  } finally {
    if (--running === 0) releaseWhenIdle();
  }
}

/** snarkjs' Groth16 verification, through withCurveThreads. */
export function verifyGroth16(
  vkey: unknown,
  publicSignals: readonly (string | bigint)[],
  proof: unknown,
): Promise<boolean> {
  return withCurveThreads(() =>
    snarkjs.groth16.verify(vkey as never, publicSignals.map(String), proof as snarkjs.Groth16Proof),
  );
}
