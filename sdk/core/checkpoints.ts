// The checkpoint budget (protocol v2, docs/PROTOCOL.md "Checkpoints"). There is no per-session cap:
// the escrow accepts the k-th checkpoint (or user-posted receipt) of a session only when it covers
// more than CHECKPOINT_INTERVAL·(k−1) records, so a session of n records holds at most
// ceil(n / CHECKPOINT_INTERVAL) of them before close, plus the one receipt its user may post after
// close. A circuit of capacity N therefore folds checkpointSlots(N) entries, and every session it
// can hold fits: the budget is earned by records, never spent ahead of them.

/**
 * Seconds the escrow waits after a session's close before it settles any claim on it (RECEIPT_WINDOW): the
 * user's time to post a spare receipt against a close short of what it was signed (docs/PROTOCOL.md
 * "Receipts"). `vai deploy` and deployZkVai use this unless told otherwise.
 */
export const DEFAULT_RECEIPT_WINDOW_S = 3600;

/** VAI's default policy: a checkpoint every 10 records (or 30 s, within the budget). */
export const CHECKPOINT_INTERVAL = 10;

/** Checkpoint entries a circuit of `capacity` records folds: ceil(capacity / interval) + 1. */
export function checkpointSlots(capacity: number, interval = CHECKPOINT_INTERVAL): number {
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new RangeError(`capacity ${capacity} is not a positive integer`);
  if (!Number.isInteger(interval) || interval < 1)
    throw new RangeError(`interval ${interval} is not a positive integer`);
  return Math.ceil(capacity / interval) + 1;
}

/** Whether the escrow takes one more checkpoint at n records after `count` of them: n > count·interval. */
export function checkpointAffordable(count: number, n: number, interval = CHECKPOINT_INTERVAL): boolean {
  return n > count * interval;
}
