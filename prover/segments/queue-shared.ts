// What the BullMQ segment prover (queue-producer.ts) and its workers (queue-worker.ts) agree on: the queue
// names, job ids, the dead-letter entry and the progress marks.
import { createHash } from "node:crypto";
import type { ConnectionOptions, Job, Queue } from "bullmq";
import { SegmentProofError, type SegmentTask } from "./task.js";

export const CLAIMS_QUEUE = "zkvai-claims";
export const SEGMENTS_QUEUE = "zkvai-segments";
export const DEAD_LETTER_QUEUE = "zkvai-segments-dead";
export const DEFAULT_PREFIX = "bull";

/** A Redis to reach: `{ host, port }` or a `redis://` URL. */
export type QueueConnection = { host: string; port: number } | string;

export function redisOptions(connection: QueueConnection): ConnectionOptions {
  return typeof connection === "string"
    ? { url: connection }
    : { host: connection.host, port: connection.port };
}

const sha16 = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16);

/**
 * A segment's job id: the same segment (claim, index, input) is the same job, so adding it again is a no-op.
 * BullMQ refuses custom ids with a ':' unless they have exactly three parts, hence no ':' in the claim id.
 */
export function segmentJobId(task: SegmentTask): string {
  if (task.claimId.includes(":") || task.claimId === "")
    throw new SegmentProofError(
      `claim id ${JSON.stringify(task.claimId)} cannot name a queue job (empty, or has ':')`,
    );
  return `${task.claimId}:${task.index}:${sha16(JSON.stringify(task.input))}`;
}

/** The claim's parent job id: its claim id and the hash of its segments' ids (so of their contents). */
export function claimJobId(claimId: string, segmentIds: readonly string[]): string {
  return `claim-${claimId}-${sha16([...segmentIds].sort().join("\n"))}`;
}

/** What the dead-letter queue holds for a segment that spent its attempts: who it was and why it failed. */
export interface DeadSegment {
  claimId: string;
  index: number;
  circuit: string;
  /** The failed job on zkvai-segments, and its claim's job on zkvai-claims. */
  jobId: string;
  parentKey?: string;
  attemptsMade: number;
  error: string;
  failedAt: number;
  /**
   * Set when the job completed but its proof failed the prover's checks (prover/segments/claims.ts): the
   * worker the proof named (as it said). The job was then removed, so the segment is proven again.
   */
  rejectedProofFrom?: string;
}

/**
 * Records a finally failed segment job, or a completed one whose proof was rejected, in the dead-letter queue,
 * once: its id is the job's id and creation time, so the worker and the waiting prover can both record it,
 * and a later re-created job is recorded anew. Its entries wait there for an operator (nothing processes that
 * queue).
 */
export async function deadLetter(
  dead: Queue,
  job: Job<SegmentTask>,
  error: string,
  rejectedProofFrom?: string,
): Promise<string> {
  const id = `${job.id}@${job.timestamp}`;
  const entry: DeadSegment = {
    claimId: job.data.claimId,
    index: job.data.index,
    circuit: job.data.circuit,
    jobId: job.id!,
    ...(job.parentKey ? { parentKey: job.parentKey } : {}),
    attemptsMade: job.attemptsMade,
    error,
    failedAt: job.finishedOn ?? Date.now(),
    ...(rejectedProofFrom === undefined ? {} : { rejectedProofFrom }),
  };
  await dead.add("dead-segment", entry, { jobId: id, removeOnComplete: false, removeOnFail: false });
  return id;
}

/** A segment job's progress marks, as workers report them (job.updateProgress). */
export interface SegmentProgress {
  claimId: string;
  index: number;
  stage: "started" | "proven";
  worker: string;
  /** 1 for the first try; stalls do not count. */
  attempt: number;
  witnessSeconds?: number;
  proveSeconds?: number;
}
