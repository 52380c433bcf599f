// snarkjs builds its BN254 curve (a WebAssembly module and a pool of worker threads) on first use and caches
// it on globalThis. Two proofs starting at once both miss the cache and build two pools; only the cached one
// is ever terminated (releaseProver), so the other keeps the process alive after it is done. Building the
// curve once, before any concurrent proof, avoids that.
import * as snarkjs from "snarkjs";

type Curves = { getCurveFromName(name: string): Promise<unknown> };

let warming: Promise<unknown> | undefined;

export async function warmProver(): Promise<void> {
  if ((globalThis as { curve_bn128?: unknown }).curve_bn128) return;
  warming ??= (snarkjs as unknown as { curves: Curves }).curves.getCurveFromName("bn128").finally(() => {
    warming = undefined;
  });
  await warming;
}
