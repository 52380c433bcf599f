// How many Groth16 proofs may run at once: each is admitted against a memory budget by an estimate from its
// proving key's size, so a provider with many open claims neither proves them one by one on a large machine
// nor runs out of memory on a small one.
import { statSync } from "node:fs";

const MiB = 2 ** 20;

/**
 * The estimate, from snarkjs 0.7 `groth16.fullProve` (which reads the whole zkey into memory and allocates FFT
 * buffers that grow with it). Measured peak RSS over the idle process, one proof at a time: aap4_n8 (9.8 MiB
 * zkey) 134 MiB, aap4_n16 (16.9 MiB zkey) 174 MiB; two aap4_n8 at once 313 MiB. `8 × zkey + 96 MiB` covers
 * each of these (174, 231, 348 MiB) with a margin for larger domains, where the FFT buffers weigh more.
 */
export const PROOF_MEMORY_BASE_BYTES = 96 * MiB;
export const PROOF_MEMORY_ZKEY_FACTOR = 8;

export function proofMemoryEstimate(zkeyBytes: number): number {
  return PROOF_MEMORY_BASE_BYTES + PROOF_MEMORY_ZKEY_FACTOR * zkeyBytes;
}

export function proofMemoryEstimateOfZkey(zkeyPath: string): number {
  return proofMemoryEstimate(statSync(zkeyPath).size);
}

/**
 * Admits work while the sum of estimates stays within the budget, in arrival order (a large proof is not
 * overtaken forever by small ones). One item is always admitted when nothing runs, however large: a budget
 * below one proof slows the watcher down to one proof at a time rather than stopping it.
 */
export class MemoryBudget {
  private used = 0;
  private running = 0;
  private readonly queue: { bytes: number; admit: () => void }[] = [];

  constructor(readonly budgetBytes: number) {
    if (!(budgetBytes > 0)) throw new RangeError(`the memory budget must be positive, got ${budgetBytes}`);
  }

  get inUse(): { bytes: number; running: number; waiting: number } {
    return { bytes: this.used, running: this.running, waiting: this.queue.length };
  }

  /** Resolves once `bytes` fit; the returned function gives them back (call it exactly once). */
  acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const entry = {
        bytes,
        admit: () => {
          signal?.removeEventListener("abort", onAbort);
          this.used += bytes;
          this.running++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.used -= bytes;
            this.running--;
            this.drain();
          });
        },
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal!.reason);
        this.drain();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(entry);
      this.drain();
    });
  }

  private fits(bytes: number): boolean {
    return this.running === 0 || this.used + bytes <= this.budgetBytes;
  }

  private drain(): void {
    while (this.queue.length && this.fits(this.queue[0].bytes)) this.queue.shift()!.admit();
  }
}
