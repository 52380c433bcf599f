// The embedded segment prover: a pool of local worker processes (prover/segments/child.ts), no Redis. Each
// child proves one segment at a time, so a claim's segments prove in parallel up to the pool's size, and each
// child's memory is its own. A child that dies mid-segment (killed, out of memory) is replaced and its
// segment tried again, up to `retries` times; a segment with no witness fails at once (trying again cannot
// help). The BullMQ prover (prover/segments/queue.ts) offers the same interface across machines.
import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { SegmentProofError, WorkerDied, type SegmentProof, type SegmentTask } from "./task.js";

/** Proves a claim's segments, somewhere. */
export interface SegmentProver {
  /** Proves every task, in any order; `onProof` hears each as it lands. Rejects on the first that cannot. */
  proveAll(tasks: readonly SegmentTask[], onProof?: (proof: SegmentProof) => void): Promise<SegmentProof[]>;
  /**
   * Forgets a proof of `task` that failed the caller's checks, so that the next proveAll proves the segment
   * again rather than handing the same proof back; returns where the rejection was recorded, if anywhere.
   */
  discard(task: SegmentTask, proof: SegmentProof, reason: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface PoolOptions {
  /** Worker processes (default: half the cores, at least 1). */
  workers?: number;
  /** Tries after a worker dies mid-segment (default 2). */
  retries?: number;
}

/** The child's entry: the compiled .js beside this file, or the .ts source under tsx. */
function childEntry(): { file: string; execArgv: string[] } {
  const js = fileURLToPath(new URL("./child.js", import.meta.url));
  if (existsSync(js)) return { file: js, execArgv: [] };
  return { file: fileURLToPath(new URL("./child.ts", import.meta.url)), execArgv: ["--import", "tsx"] };
}

interface Slot {
  child?: ChildProcess;
  busy: boolean;
}

export class LocalSegmentPool implements SegmentProver {
  readonly workers: number;
  private readonly retries: number;
  private readonly slots: Slot[];
  private nextId = 0;
  private closed = false;

  constructor(opts: PoolOptions = {}) {
    this.workers = Math.max(1, opts.workers ?? Math.floor(availableParallelism() / 2));
    this.retries = opts.retries ?? 2;
    this.slots = Array.from({ length: this.workers }, () => ({ busy: false }));
  }

  /** The worker processes' pids (spawned lazily), for tests that kill one. */
  pids(): number[] {
    return this.slots.flatMap((s) => (s.child?.pid ? [s.child.pid] : []));
  }

  async proveAll(
    tasks: readonly SegmentTask[],
    onProof?: (proof: SegmentProof) => void,
  ): Promise<SegmentProof[]> {
    if (this.closed) throw new SegmentProofError("the segment pool is closed");
    const results: SegmentProof[] = new Array(tasks.length);
    let next = 0;
    const run = async (slot: Slot): Promise<void> => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await this.withRetries(slot, tasks[i]!);
        onProof?.(results[i]!);
      }
    };
    await Promise.all(this.slots.map(run));
    return results;
  }

  /** Nothing is kept between proveAll calls here: the next one proves the segment afresh. */
  async discard(): Promise<string | undefined> {
    return undefined;
  }

  private async withRetries(slot: Slot, task: SegmentTask): Promise<SegmentProof> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(slot, task);
      } catch (e) {
        if (!(e instanceof WorkerDied) || attempt >= this.retries || this.closed) throw e;
      }
    }
  }

  private once(slot: Slot, task: SegmentTask): Promise<SegmentProof> {
    const child = (slot.child ??= this.spawn());
    const id = this.nextId++;
    slot.busy = true;
    return new Promise<SegmentProof>((resolve, reject) => {
      const done = () => {
        slot.busy = false;
        child.off("message", onMessage);
        child.off("exit", onExit);
      };
      const onMessage = (m: { id: number; ok: boolean; proof?: SegmentProof; error?: string }) => {
        if (m.id !== id) return;
        done();
        if (m.ok) resolve(m.proof!);
        else reject(new SegmentProofError(m.error ?? "the worker failed"));
      };
      const onExit = (code: number | null, signal: string | null) => {
        done();
        if (slot.child === child) slot.child = undefined;
        reject(
          new WorkerDied(
            `claim ${task.claimId} segment ${task.index}: worker ${child.pid} exited (${signal ?? code})`,
          ),
        );
      };
      child.on("message", onMessage);
      child.on("exit", onExit);
      child.send({ id, task });
    });
  }

  private spawn(): ChildProcess {
    const { file, execArgv } = childEntry();
    return fork(file, [], { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        const child = slot.child;
        slot.child = undefined;
        if (!child || child.exitCode !== null) return;
        const exited = new Promise<void>((r) => child.once("exit", () => r()));
        child.disconnect();
        child.kill();
        await exited;
      }),
    );
  }
}
