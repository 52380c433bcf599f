// Worker threads for the INSECURE development ptau (devptau.ts): one per core, each running
// devptau-worker.mjs, which holds a fixed-base table in its own wasm memory and turns whole chunks
// of scalars into affine points. The main thread only hands out chunks and writes what comes back.
import os from "node:os";
import { Worker } from "node:worker_threads";
import { ToolError } from "./zkfiles.js";

export type Group = "g1" | "g2";

/** Bytes of one affine point in the ptau file (little-endian Montgomery x, y). */
export const affineBytes = (group: Group): number => (group === "g1" ? 64 : 128);

/** Every scalar is below r < 2^254. */
const SCALAR_BITS = 254;
export const windowCount = (w: number): number => Math.ceil(SCALAR_BITS / w);

/**
 * `count` points [s_i]G written at byte `offset` of the file; scalars are 32-byte little-endian
 * standard-form field elements.
 * geometric: s_i = first · ratio^i.
 * lagrange:  s_i = ω^(start+i) · (c / (τ − ω^(start+i)) − tail), with omegaStart = ω^start.
 * explicit:  s_i given, `count` scalars of 32 bytes each (the dev zkey's sums over the r1cs).
 */
export type PointJob = { group: Group; count: number; offset: number } & (
  | { kind: "geometric"; first: Uint8Array; ratio: Uint8Array }
  | {
      kind: "lagrange";
      omegaStart: Uint8Array;
      omega: Uint8Array;
      tau: Uint8Array;
      c: Uint8Array;
      tail: Uint8Array;
    }
  | { kind: "explicit"; scalars: Uint8Array }
);

/**
 * The window that minimises the additions: ⌈254/w⌉ per point, plus building the table (2^w − 1
 * points per window at about one addition each, split over the workers). Capped at 16 bits: the G2
 * table is then 134 MB in each worker.
 */
export function chooseWindow(points: number, workers: number): number {
  let best = 1;
  let bestCost = Infinity;
  for (let w = 1; w <= 16; w++) {
    const windows = windowCount(w);
    const cost = (windows * points) / workers + Math.ceil(windows / workers) * 2 ** w;
    if (cost < bestCost) [best, bestCost] = [w, cost];
  }
  return best;
}

class WorkerHandle {
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve(v: Uint8Array | null): void; reject(e: Error): void }
  >();

  constructor(private readonly worker: Worker) {
    worker.on("message", (m: { id: number; result?: Uint8Array | null; error?: string }) => {
      const call = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error !== undefined) call?.reject(new ToolError(`dev ptau worker failed: ${m.error}`, ""));
      else call?.resolve(m.result ?? null);
    });
    const failAll = (error: Error) => {
      for (const call of this.pending.values()) call.reject(error);
      this.pending.clear();
    };
    worker.on("error", failAll);
    worker.on("exit", (code) =>
      failAll(new ToolError(`dev ptau worker exited (code ${code})`, "", { details: { exitCode: code } })),
    );
  }

  call(cmd: string, args: unknown): Promise<Uint8Array | null> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, cmd, args });
    });
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

export class DevPtauPool {
  private table: { group: Group; w: number } | null = null;

  private constructor(private readonly workers: WorkerHandle[]) {}

  /**
   * @param module ffjavascript's compiled bn128 wasm (its code is ours to instantiate again)
   * @param gens   where that module's static data keeps the Jacobian G1 and G2 generators
   */
  static async start(
    module: WebAssembly.Module,
    gens: { g1gen: number; g2gen: number },
    size = os.availableParallelism(),
  ): Promise<DevPtauPool> {
    const workers: WorkerHandle[] = [];
    try {
      for (let i = 0; i < size; i++)
        workers.push(new WorkerHandle(new Worker(new URL("./devptau-worker.mjs", import.meta.url))));
      await Promise.all(workers.map((w) => w.call("init", { module, ...gens })));
    } catch (error) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw error;
    }
    return new DevPtauPool(workers);
  }

  get size(): number {
    return this.workers.length;
  }

  /** Builds the w-bit table for `group` (its windows split over the workers) and gives each a copy. */
  async loadTable(group: Group, w: number): Promise<void> {
    if (this.table?.group === group && this.table.w === w) return;
    const windows = windowCount(w);
    const shared = new SharedArrayBuffer(windows * (2 ** w - 1) * affineBytes(group));
    const per = Math.ceil(windows / this.workers.length);
    await Promise.all(
      this.workers.map((worker, i) => {
        const from = Math.min(windows, i * per);
        const to = Math.min(windows, from + per);
        return from < to ? worker.call("table", { group, w, from, to, shared }) : null;
      }),
    );
    await Promise.all(this.workers.map((worker) => worker.call("load", { group, w, windows, shared })));
    this.table = { group, w };
  }

  /** Runs the jobs (all of the loaded table's group) on every worker; `onPoints` gets each chunk. */
  async run(jobs: PointJob[], onPoints: (job: PointJob, points: Uint8Array) => void): Promise<void> {
    const group = this.table?.group;
    if (jobs.some((job) => job.group !== group)) throw new Error(`dev ptau: jobs need the ${group} table`);
    const queue = [...jobs];
    try {
      await Promise.all(
        this.workers.map(async (worker) => {
          for (let job = queue.shift(); job; job = queue.shift()) {
            const points = await worker.call("points", job);
            if (points?.length !== job.count * affineBytes(job.group))
              throw new ToolError(
                `dev ptau worker returned ${points?.length} bytes for ${job.count} points`,
                "",
              );
            onPoints(job, points);
          }
        }),
      );
    } finally {
      queue.length = 0;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
