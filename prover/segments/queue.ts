// The distributed segment prover: BullMQ on Redis, the same SegmentProver interface as the local pool
// (prover/segments/pool.ts), across machines. This module is its public face; each side has its own file:
// queue-producer.ts (QueueSegmentProver, in the caller's process: adds flows, collects proofs),
// queue-worker.ts (startSegmentWorker: proves segments), and queue-shared.ts (what both agree on: queue
// names, job ids, the dead-letter entry, progress marks).
//
// One proveAll is one BullMQ flow: a parent job on `zkvai-claims` (id from the claim id and the hash of its
// segments' ids) whose children are the segments on `zkvai-segments` (id `${claimId}:${index}:${sha256 of the
// input JSON, 16 hex}`). Segment workers (startSegmentWorker in queue-worker.ts, or scripts/segment-worker.ts,
// anywhere that reaches the Redis) prove the children; once every child is done, BullMQ releases the parent,
// which the Worker that QueueSegmentProver runs in the caller's process collects (getChildrenValues) into
// proveAll's answer. The caller then sends and settles (prover/segments/claims.ts).
//
// Idempotence: ids are content-derived and completed jobs are kept, so proveAll on the same tasks again
// returns the stored proofs without proving anything, and so does a resumed answer that asks for some of them
// (another parent id: segments already proven are read, not re-added, since BullMQ gives a job one parent).
// A proof is keyed by its job, never by the index or claim its worker wrote into it.
// Poisoning: a kept result is only as good as its worker, so the caller checks every proof (it verifies, its
// public inputs are the escrow's) and discard()s one that fails: the completed job and the claim job whose
// answer holds it are removed and the rejection dead-lettered, so the next proveAll proves the segment again
// (the same content-derived id, a new job and a new dead-letter id) instead of handing the bad proof back for
// as long as Redis keeps it.
// Retries: a child has `attempts` tries with exponential backoff; once they are spent it is failed, recorded in
// the dead-letter queue `zkvai-segments-dead`, and (failParentOnFailure) fails the parent, so proveAll rejects
// naming the claim and the segment. Stalls: a worker that dies mid-segment stops renewing its lock; another
// worker's stalled check (every stalledInterval) moves the segment back to wait after about lockDuration +
// 2 × stalledInterval, up to maxStalledCount times, without spending an attempt.
//
// Job data is the whole SegmentTask, circuit input included: about 1 MB of JSON for a 1,024-record segment.
// Redis holds that comfortably, but it is kept with the completed job (for idempotence) until the queue is
// cleaned. The task names its circuit's files by path: every worker needs the same artifacts at the same
// paths (setup run there, or a shared build/), and fails the job with a clear error when they are missing.
export { QueueSegmentProver, SegmentDeadLetteredError, type QueueProverOptions } from "./queue-producer.js";
export {
  CLAIMS_QUEUE,
  claimJobId,
  DEAD_LETTER_QUEUE,
  segmentJobId,
  SEGMENTS_QUEUE,
  type DeadSegment,
  type QueueConnection,
  type SegmentProgress,
} from "./queue-shared.js";
export {
  startSegmentWorker,
  type SegmentWorker,
  type SegmentWorkerEvent,
  type SegmentWorkerOptions,
} from "./queue-worker.js";
export { SegmentQueueTimeout } from "./task.js";
