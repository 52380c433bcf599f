// The producer side of the BullMQ segment prover: QueueSegmentProver, in the process that answers claims,
// adds a claim's segments as one flow, waits for its parent job and collects the proofs that segment workers
// (queue-worker.ts) hand back. How that flow runs (ids, idempotence, poisoning, retries, stalls): queue.ts.
import { FlowProducer, Job, Queue, QueueEvents, Worker, type ConnectionOptions } from "bullmq";
import type { SegmentProver } from "./pool.js";
import {
  CLAIMS_QUEUE,
  claimJobId,
  DEAD_LETTER_QUEUE,
  deadLetter,
  DEFAULT_PREFIX,
  redisOptions,
  segmentJobId,
  SEGMENTS_QUEUE,
  type QueueConnection,
  type SegmentProgress,
} from "./queue-shared.js";
import { SegmentProofError, SegmentQueueTimeout, type SegmentProof, type SegmentTask } from "./task.js";

/** A segment that failed every attempt: it is in the dead-letter queue and its claim's proveAll rejected. */
export class SegmentDeadLetteredError extends SegmentProofError {
  static override readonly code: string = "SEGMENT_DEAD_LETTERED";
  override name = "SegmentDeadLetteredError";
  constructor(
    readonly claimId: string,
    readonly index: number,
    readonly jobId: string,
    readonly attemptsMade: number,
    readonly deadLetterId: string,
    readonly reason: string,
  ) {
    super(
      `claim ${claimId} segment ${index} failed after ${attemptsMade} attempt(s), ` +
        `dead-lettered in ${DEAD_LETTER_QUEUE} as ${deadLetterId}: ${reason}`,
    );
  }
}

export interface QueueProverOptions {
  connection: QueueConnection;
  /** Tries per segment (default 3). */
  attempts?: number;
  /** The first retry's delay; each next one doubles it (default 1000 ms). */
  backoffMs?: number;
  /** proveAll rejects when its claim is not done by then (default: waits); the jobs stay queued. */
  timeoutMs?: number;
  /**
   * How long Redis keeps a completed job, with its input and proof (default 7 days: past the 3-day proof
   * window, so a resumed answer finds its proven segments). A 1,024-record segment's input is about 1 MB.
   * BullMQ removes aged jobs lazily, as later jobs of the queue complete.
   */
  keepCompletedSeconds?: number;
  /** BullMQ's key prefix (default "bull"): provers and workers must agree. */
  prefix?: string;
  /** Hears the workers' progress marks on this prover's segments. */
  onProgress?: (progress: SegmentProgress) => void;
}

interface ClaimJobData {
  claimId: string;
  count: number;
}

type Watcher = {
  completed(proof: SegmentProof): void;
  progress(progress: SegmentProgress): void;
};

interface Connected {
  flows: FlowProducer;
  claims: Queue<ClaimJobData>;
  segments: Queue<SegmentTask>;
  dead: Queue;
  claimEvents: QueueEvents;
  segmentEvents: QueueEvents;
  collector: Worker<ClaimJobData, SegmentProof[]>;
}

export class QueueSegmentProver implements SegmentProver {
  private readonly connection: ConnectionOptions;
  private readonly prefix: string;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly keepCompletedSeconds: number;
  private connected?: Promise<Connected>;
  private readonly watchers = new Map<string, Set<Watcher>>();
  private lastError?: Error;
  private closed = false;

  constructor(private readonly opts: QueueProverOptions) {
    this.connection = redisOptions(opts.connection);
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.attempts = Math.max(1, opts.attempts ?? 3);
    this.backoffMs = Math.max(0, opts.backoffMs ?? 1000);
    this.keepCompletedSeconds = Math.max(1, opts.keepCompletedSeconds ?? 7 * 24 * 3600);
  }

  private connect(): Promise<Connected> {
    return (this.connected ??= (async () => {
      const base = { connection: this.connection, prefix: this.prefix };
      const onError = (e: Error) => (this.lastError = e);
      const flows = new FlowProducer(base);
      const claims = new Queue<ClaimJobData>(CLAIMS_QUEUE, base);
      const segments = new Queue<SegmentTask>(SEGMENTS_QUEUE, base);
      const dead = new Queue(DEAD_LETTER_QUEUE, base);
      const claimEvents = new QueueEvents(CLAIMS_QUEUE, base);
      const segmentEvents = new QueueEvents(SEGMENTS_QUEUE, base);
      // The parent's processor: every child has completed, so their proofs are the claim's answer.
      const collector = new Worker<ClaimJobData, SegmentProof[]>(
        CLAIMS_QUEUE,
        async (job) => {
          const values = (await job.getChildrenValues<SegmentProof>()) ?? {};
          // Keyed by child job key, `<prefix>:zkvai-segments:<claimId>:<index>:<hash>`: the index is the job's.
          const proofs = Object.entries(values)
            .map(([key, proof]) => stamped(proof, job.data.claimId, Number(key.split(":").at(-2))))
            .sort((a, b) => a.index - b.index);
          if (proofs.length !== job.data.count)
            throw new SegmentProofError(
              `claim ${job.data.claimId}: ${proofs.length} of ${job.data.count} segment proofs came back`,
            );
          return proofs;
        },
        { ...base, concurrency: 8 },
      );
      for (const emitter of [flows, claims, segments, dead, claimEvents, segmentEvents, collector])
        (emitter as { on(event: "error", listener: (e: Error) => void): unknown }).on("error", onError);
      segmentEvents.on("completed", ({ jobId, returnvalue }) => {
        for (const w of this.watchers.get(jobId) ?? []) w.completed(returnvalue as unknown as SegmentProof);
      });
      segmentEvents.on("progress", ({ jobId, data }) => {
        for (const w of this.watchers.get(jobId) ?? []) w.progress(data as unknown as SegmentProgress);
      });
      await Promise.all(
        [flows, claims, segments, dead, claimEvents, segmentEvents, collector].map((c) => c.waitUntilReady()),
      );
      return { flows, claims, segments, dead, claimEvents, segmentEvents, collector };
    })());
  }

  async proveAll(
    tasks: readonly SegmentTask[],
    onProof?: (proof: SegmentProof) => void,
  ): Promise<SegmentProof[]> {
    if (this.closed) throw new SegmentProofError("the segment queue prover is closed");
    if (tasks.length === 0) return [];
    const claimId = tasks[0]!.claimId;
    if (tasks.some((t) => t.claimId !== claimId))
      throw new SegmentProofError(
        `one proveAll proves one claim's segments (got claims ${claimId} and others)`,
      );
    if (new Set(tasks.map((t) => t.index)).size !== tasks.length)
      throw new SegmentProofError(`claim ${claimId}: a segment index appears twice`);
    const ids = tasks.map(segmentJobId);
    const c = await this.connect();

    // onProof hears each segment once: as its child completes, or from the answer if the event was missed
    // (or the segment was proven before this call).
    const heard = new Set<number>();
    const hear = (proof: SegmentProof) => {
      if (heard.has(proof.index)) return;
      heard.add(proof.index);
      onProof?.(proof);
    };
    const watcher: Watcher = { completed: hear, progress: (p) => this.opts.onProgress?.(p) };
    for (const id of ids) (this.watchers.get(id) ?? this.watchers.set(id, new Set()).get(id)!).add(watcher);
    let timer: NodeJS.Timeout | undefined;
    try {
      const all = this.collect(c, claimId, tasks, ids);
      const proofs = await (this.opts.timeoutMs === undefined
        ? all
        : Promise.race([
            all,
            new Promise<never>((_, reject) => {
              timer = setTimeout(
                () => reject(this.timedOut(claimId, heard.size, tasks.length)),
                this.opts.timeoutMs,
              );
            }),
          ]));
      proofs.forEach(hear);
      return proofs;
    } finally {
      clearTimeout(timer);
      for (const id of ids) {
        const set = this.watchers.get(id);
        set?.delete(watcher);
        if (set?.size === 0) this.watchers.delete(id);
      }
    }
  }

  /**
   * Every task's proof, by index. A segment whose job has completed (under any earlier flow) is not proven
   * again; one under way in another claim job's flow is awaited there (BullMQ gives a job one parent); a
   * failed one is dropped (the dead-letter queue keeps its record) and added anew. The rest are this call's
   * flow, under the parent id of all the tasks.
   */
  private async collect(
    c: Connected,
    claimId: string,
    tasks: readonly SegmentTask[],
    ids: readonly string[],
  ): Promise<SegmentProof[]> {
    const parentId = claimJobId(claimId, ids);
    const ours = `${this.prefix}:${CLAIMS_QUEUE}:${parentId}`;
    const proofs = new Map<number, SegmentProof>();
    const fresh: number[] = [];
    const elsewhere: Promise<void>[] = [];
    for (const [i, id] of ids.entries()) {
      const child = await Job.fromId<SegmentTask, SegmentProof>(c.segments, id);
      const state = child ? await child.getState() : "absent";
      if (child && state === "completed")
        proofs.set(tasks[i]!.index, stamped(child.returnvalue, claimId, tasks[i]!.index));
      else if (child && state === "failed") {
        await child.remove();
        fresh.push(i);
      } else if (
        child &&
        child.parentKey &&
        child.parentKey !== ours &&
        (await this.parentExists(c, child.parentKey))
      )
        elsewhere.push(
          child.waitUntilFinished(c.segmentEvents).then(
            (proof: SegmentProof) =>
              void proofs.set(tasks[i]!.index, stamped(proof, claimId, tasks[i]!.index)),
            async (e: unknown) => {
              throw await this.explain(c, e, claimId, [id]);
            },
          ),
        );
      else fresh.push(i);
    }
    // Awaited below; handled now, so that one failing while this call waits on its own flow is not unhandled.
    const others = Promise.all(elsewhere);
    others.catch(() => {});
    if (fresh.length > 0) {
      const parent = await this.ensureFlow(
        c,
        parentId,
        claimId,
        fresh.map((i) => tasks[i]!),
        fresh.map((i) => ids[i]!),
      );
      const answer = (await parent.waitUntilFinished(c.claimEvents).catch(async (e: unknown) => {
        throw await this.explain(
          c,
          e,
          claimId,
          fresh.map((i) => ids[i]!),
          parentId,
        );
      })) as SegmentProof[];
      for (const proof of answer) proofs.set(proof.index, proof);
    }
    await others;
    const missing = tasks.filter((t) => !proofs.has(t.index)).map((t) => t.index);
    if (missing.length > 0)
      throw new SegmentProofError(`claim ${claimId}: no proof came back for segments ${missing}`);
    return tasks.map((t) => proofs.get(t.index)!).sort((a, b) => a.index - b.index);
  }

  private timedOut(claimId: string, proven: number, of: number): SegmentQueueTimeout {
    const redis = this.lastError ? `; last Redis error: ${this.lastError.message}` : "";
    return new SegmentQueueTimeout(
      `claim ${claimId}: ${proven} of ${of} segments proven within ${this.opts.timeoutMs} ms ` +
        `(are segment workers running on ${this.prefix}:${SEGMENTS_QUEUE}?${redis}); the jobs stay queued`,
    );
  }

  private async parentExists(c: Connected, parentKey: string): Promise<boolean> {
    const claims = `${this.prefix}:${CLAIMS_QUEUE}:`;
    if (!parentKey.startsWith(claims)) return true; // some other queue's job: leave it to that flow
    return (await Job.fromId(c.claims, parentKey.slice(claims.length))) !== undefined;
  }

  /** The claim's parent job: the one already there (done or under way), or a new flow of these segments. */
  private async ensureFlow(
    c: Connected,
    parentId: string,
    claimId: string,
    tasks: readonly SegmentTask[],
    ids: readonly string[],
  ): Promise<Job> {
    const existing = await Job.fromId(c.claims, parentId);
    if (existing) {
      const state = await existing.getState();
      if (state !== "failed" && state !== "completed") return existing;
      // A failed earlier try (its failed segments are gone already, see collect), or a completed one some of
      // whose segments were discarded since (its answer lacks them): the new flow replaces it.
      await existing.remove({ removeChildren: false });
    }
    const node = await c.flows.add({
      name: "claim",
      queueName: CLAIMS_QUEUE,
      data: { claimId, count: tasks.length } satisfies ClaimJobData,
      opts: {
        jobId: parentId,
        attempts: 3,
        backoff: { type: "exponential", delay: 500 },
        removeOnComplete: { age: this.keepCompletedSeconds },
      },
      children: tasks.map((task, i) => ({
        name: "segment",
        queueName: SEGMENTS_QUEUE,
        data: task,
        opts: {
          jobId: ids[i]!,
          attempts: this.attempts,
          backoff: { type: "exponential", delay: this.backoffMs },
          failParentOnFailure: true,
          removeOnComplete: { age: this.keepCompletedSeconds },
        },
      })),
    });
    return node.job;
  }

  /** Why a wait failed, as an error naming the failed segment (recorded in the dead-letter queue). */
  private async explain(
    c: Connected,
    e: unknown,
    claimId: string,
    ids: readonly string[],
    parentId?: string,
  ) {
    const message = String((e as Error)?.message ?? e);
    const named = /child (\S+) failed/.exec(message)?.[1];
    const failed: Job<SegmentTask>[] = [];
    for (const id of ids) {
      const child = await Job.fromId<SegmentTask>(c.segments, id);
      if (child && (await child.isFailed())) failed.push(child);
    }
    failed.sort((a, b) => Number(named?.endsWith(`:${b.id}`)) - Number(named?.endsWith(`:${a.id}`)));
    const child = failed[0];
    if (!child)
      return new SegmentProofError(
        `claim ${claimId}: ${parentId ? `its job ${parentId}` : `segment job ${ids[0]}`} failed: ${message}`,
      );
    const reason = child.failedReason ?? "no reason recorded";
    const deadId = await deadLetter(c.dead, child, reason);
    return new SegmentDeadLetteredError(
      claimId,
      child.data.index,
      child.id!,
      child.attemptsMade,
      deadId,
      reason,
    );
  }

  /**
   * Removes a completed segment job whose proof failed the caller's checks, and the claim job whose answer
   * holds that proof, after recording the rejection in the dead-letter queue; the next proveAll of the task
   * proves it again. Idempotent: a crash between the steps leaves the job, which the next check rejects again
   * (the dead letter keeps one entry per job). Returns the dead-letter id, or undefined when the job is gone
   * or is no longer the completed one (a new try under way).
   */
  async discard(task: SegmentTask, proof: SegmentProof, reason: string): Promise<string | undefined> {
    const c = await this.connect();
    const job = await Job.fromId<SegmentTask, SegmentProof>(c.segments, segmentJobId(task));
    if (!job || (await job.getState()) !== "completed") return undefined;
    const worker = typeof proof?.worker === "string" ? proof.worker : "an unnamed worker";
    const deadId = await deadLetter(c.dead, job, reason, worker);
    const claims = `${this.prefix}:${CLAIMS_QUEUE}:`;
    if (job.parentKey?.startsWith(claims)) {
      const parent = await Job.fromId(c.claims, job.parentKey.slice(claims.length));
      // A parent still waiting on other segments would lose its flow if removed; its answer is checked anyway.
      if (parent && ["completed", "failed"].includes(await parent.getState()))
        await parent.remove({ removeChildren: false });
    }
    await job.remove();
    return deadId;
  }

  async close(): Promise<void> {
    this.closed = true;
    const connected = this.connected;
    this.connected = undefined;
    if (!connected) return;
    const c = await connected.catch(() => undefined);
    if (!c) return;
    await c.collector.close();
    await Promise.all(
      [c.flows, c.claims, c.segments, c.dead, c.claimEvents, c.segmentEvents].map((x) => x.close()),
    );
  }
}

/**
 * A worker's answer, under the identity of the job that asked for it: a worker cannot move its proof to
 * another segment or claim by what it writes in it (what the proof proves is checked by the caller).
 */
function stamped(proof: SegmentProof, claimId: string, index: number): SegmentProof {
  return { ...(proof as object), claimId, index } as SegmentProof;
}
