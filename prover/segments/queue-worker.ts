// A segment worker on the BullMQ queue zkvai-segments, in this process (scripts/segment-worker.ts runs one as
// a process): takes segments, proves each, and hands the proof back as the job's result. What the prover
// does with a result it cannot trust is in queue-producer.ts and claims.ts: nothing a worker returns is sent
// unchecked.
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { Queue, Worker } from "bullmq";
import { LocalSegmentPool } from "./pool.js";
import {
  DEAD_LETTER_QUEUE,
  deadLetter,
  DEFAULT_PREFIX,
  redisOptions,
  SEGMENTS_QUEUE,
  type QueueConnection,
  type SegmentProgress,
} from "./queue-shared.js";
import { SegmentProofError, type SegmentProof, type SegmentTask } from "./task.js";

/** What a segment worker does, one event at a time (scripts/segment-worker.ts prints each as a JSON line). */
export type SegmentWorkerEvent =
  | { event: "ready"; worker: string; concurrency: number; lockDurationMs: number }
  | { event: "started"; claimId: string; index: number; jobId: string; attempt: number }
  | { event: "proven"; claimId: string; index: number; jobId: string; seconds: number }
  | {
      event: "failed";
      claimId: string;
      index: number;
      jobId: string;
      attempt: number;
      final: boolean;
      error: string;
    }
  | { event: "dead-lettered"; claimId: string; index: number; jobId: string; deadLetterId: string }
  | { event: "stalled"; jobId: string }
  | { event: "error"; error: string };

export interface SegmentWorkerOptions {
  connection: QueueConnection;
  /** Segments proven at once, each in its own child process (default 1; each proof already uses every core). */
  concurrency?: number;
  prefix?: string;
  /**
   * How long a segment's lock lasts without renewal (default 30 s; renewed every half of it). A worker killed
   * mid-segment is noticed by another worker's stalled check after about this plus two stalledIntervals. Half
   * of it must exceed the longest pause of this process's event loop (proving runs in a child, so pauses are
   * short), or a live worker's segment is taken for stalled and proven twice.
   */
  lockDurationMs?: number;
  /** How often this worker looks for stalled segments (default: lockDurationMs). */
  stalledIntervalMs?: number;
  /** How many stalls a segment survives before it fails (default 2); stalls do not spend attempts. */
  maxStalledCount?: number;
  onEvent?: (event: SegmentWorkerEvent) => void;
  /**
   * Proves one segment in place of the default (provePayload in a child process, one per concurrency slot):
   * another proving backend, or a test's worker that returns what an attacker would
   * (test/helpers/lying-segment-worker.ts).
   */
  prove?: (task: SegmentTask) => Promise<SegmentProof>;
}

export interface SegmentWorker {
  /** host:pid, as each proof's `worker` says. */
  readonly id: string;
  /** Stops taking segments; waits for those under way unless `force`. */
  close(force?: boolean): Promise<void>;
}

/**
 * A BullMQ worker on zkvai-segments in this process. Each segment is proven by provePayload in a child process
 * of a LocalSegmentPool (one per concurrency slot, kept between segments): the witness is synchronous wasm,
 * seconds for a large segment, and run here it would stall this event loop past lock renewals, so that a
 * live worker's segment would look stalled and be proven twice. Here the loop only renews locks and talks to
 * Redis. A child that dies fails that attempt (BullMQ retries it); this process dying is a stall.
 */
export async function startSegmentWorker(opts: SegmentWorkerOptions): Promise<SegmentWorker> {
  const me = `${hostname()}:${process.pid}`;
  const emit = (e: SegmentWorkerEvent) => opts.onEvent?.(e);
  const base = { connection: redisOptions(opts.connection), prefix: opts.prefix ?? DEFAULT_PREFIX };
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const lockDuration = opts.lockDurationMs ?? 30_000;
  const dead = new Queue(DEAD_LETTER_QUEUE, base);
  const idle = opts.prove
    ? []
    : Array.from({ length: concurrency }, () => new LocalSegmentPool({ workers: 1, retries: 0 }));
  const pools = [...idle];
  const pooled = async (task: SegmentTask): Promise<SegmentProof> => {
    const pool = idle.pop();
    if (!pool)
      throw new SegmentProofError(`worker ${me}: more segments at once than its ${concurrency} provers`);
    try {
      const [proof] = await pool.proveAll([task]);
      return proof!;
    } finally {
      idle.push(pool);
    }
  };
  const prove = opts.prove ?? pooled;
  const worker = new Worker<SegmentTask, SegmentProof>(
    SEGMENTS_QUEUE,
    async (job) => {
      const task = job.data;
      const attempt = job.attemptsMade + 1;
      const mark = (p: Omit<SegmentProgress, "claimId" | "index" | "worker" | "attempt">) =>
        job.updateProgress({ claimId: task.claimId, index: task.index, worker: me, attempt, ...p });
      emit({ event: "started", claimId: task.claimId, index: task.index, jobId: job.id!, attempt });
      await mark({ stage: "started" });
      for (const [kind, file] of [
        ["wasm", task.wasm],
        ["zkey", task.zkey],
      ] as const)
        if (!existsSync(file))
          throw new SegmentProofError(
            `claim ${task.claimId} segment ${task.index}: ${task.circuit}'s ${kind} ${file} is not on worker ` +
              `${me}; every segment worker needs the circuit's artifacts at the same paths ` +
              `(run setup --only ${task.circuit} there)`,
          );
      const proof = await prove(task);
      await mark({ stage: "proven", witnessSeconds: proof.witnessSeconds, proveSeconds: proof.proveSeconds });
      emit({
        event: "proven",
        claimId: task.claimId,
        index: task.index,
        jobId: job.id!,
        seconds: proof.witnessSeconds + proof.proveSeconds,
      });
      return proof;
    },
    {
      ...base,
      concurrency,
      lockDuration,
      stalledInterval: opts.stalledIntervalMs ?? lockDuration,
      maxStalledCount: opts.maxStalledCount ?? 2,
    },
  );
  worker.on("failed", (job, err) => {
    if (!job) return;
    void (async () => {
      const task = job.data;
      const final = (await job.getState()) === "failed";
      emit({
        event: "failed",
        claimId: task.claimId,
        index: task.index,
        jobId: job.id!,
        attempt: job.attemptsMade,
        final,
        error: err.message,
      });
      if (!final) return;
      const deadLetterId = await deadLetter(dead, job, job.failedReason ?? err.message);
      emit({
        event: "dead-lettered",
        claimId: task.claimId,
        index: task.index,
        jobId: job.id!,
        deadLetterId,
      });
    })().catch((e: unknown) => emit({ event: "error", error: String((e as Error)?.message ?? e) }));
  });
  worker.on("stalled", (jobId) => emit({ event: "stalled", jobId }));
  worker.on("error", (e) => emit({ event: "error", error: e.message }));
  dead.on("error", (e) => emit({ event: "error", error: e.message }));
  await Promise.all([worker.waitUntilReady(), dead.waitUntilReady()]);
  emit({ event: "ready", worker: me, concurrency, lockDurationMs: lockDuration });
  return {
    id: me,
    async close(force = false) {
      await worker.close(force);
      await Promise.all([dead.close(), ...pools.map((p) => p.close())]);
    },
  };
}
