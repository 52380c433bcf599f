// What a Session refuses, and why, as named errors callers can tell apart.

/** Base of every refusal of an input: nothing was run, written or sent. */
export class InvalidRecordError extends Error {
  override name = "InvalidRecordError";
}

/** A tool call refused before the tool ran: unknown tool, non-JSON args, malformed amount, missing actionId. */
export class InvalidCallError extends InvalidRecordError {
  override name = "InvalidCallError";
}

/** A promise in SessionOptions.promises that does not parse (unknown predicate, bad θ, θ the profile cannot serve). */
export class PromiseRefError extends Error {
  override name = "PromiseRefError";
}

/** An actionId or eventId seen before with other content. Nothing was run or written. */
export class IdempotencyConflictError extends Error {
  override name = "IdempotencyConflictError";
}

/** The session is closing or closed; no record can be added. */
export class SessionClosedError extends Error {
  override name = "SessionClosedError";
}

/** openSession did not land on-chain; no call can run on the session. */
export class SessionOpenError extends Error {
  override name = "SessionOpenError";
}

/** Session.recover cannot resume this session (unknown, closed, or someone else's). */
export class SessionRecoveryError extends Error {
  override name = "SessionRecoveryError";
}

/** The store disagrees with what the chain committed: an acknowledged record was lost or changed. */
export class CheckpointMismatchError extends Error {
  override name = "CheckpointMismatchError";
  constructor(
    message: string,
    /** Index of the on-chain checkpoint (in chain order) that the store does not reproduce. */
    readonly checkpoint: number,
  ) {
    super(message);
  }
}

/** closeSession could not be sent, or the store disagrees with the recorder; close() may be retried. */
export class SessionCloseError extends Error {
  override name = "SessionCloseError";
}

/** Guard mode: the call would have violated a promise, so it was not run; its refusal is recorded. */
export class GuardRefusal extends Error {
  override name = "GuardRefusal";
  constructor(
    readonly predicate: string,
    /** Index of the promise in SessionOptions.promises. */
    readonly promiseIndex: number,
    readonly reason: string,
    /** seq of the blocked record that documents the refusal. */
    readonly seq: number,
  ) {
    super(`guard refused the call: it would violate promise ${promiseIndex} (${predicate}): ${reason}`);
  }
}

/** Guard mode: the store cannot take a write, so the call was not run (P8). */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}

/** The tool ran but its record could not be written: the trace lacks a call that happened. */
export class RecordWriteError extends Error {
  override name = "RecordWriteError";
}

/** The tool ran but returned something JSON cannot carry; the call is recorded with that as its error. */
export class UnrecordableResultError extends Error {
  override name = "UnrecordableResultError";
}

/** A replayed actionId whose first run failed: the stored error, re-thrown without running the tool again. */
export class RecordedToolError extends Error {
  override name = "RecordedToolError";
  constructor(
    message: string,
    /** seq of the stored record. */
    readonly seq: number,
  ) {
    super(message);
  }
}

/** checkpointNow() after the session already holds the escrow's MAX_CHECKPOINTS checkpoints. */
export class CheckpointLimitError extends Error {
  override name = "CheckpointLimitError";
}
