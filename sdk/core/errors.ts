// zkVAI's one error root, and what a Session refuses, and why, as named errors callers can tell apart.
//
// Every error class in sdk/, prover/ and scripts/ descends from ZkvaiError and declares its own
// stable `code` (static, so it is known without an instance; instances read it through `code`).
// Callers branch on `code` or instanceof, never on message text. test/sdk/errors.test.ts finds
// every error class, checks it descends from ZkvaiError with a unique code, and that this list
// names each code:
//   sdk/core/errors.ts        ZKVAI, INVALID_RECORD, INVALID_CALL, BAD_PROMISE_REF,
//                             IDEMPOTENCY_CONFLICT, SESSION_CLOSED, SESSION_OPEN_FAILED,
//                             SESSION_RECOVERY_FAILED, CHECKPOINT_MISMATCH, SESSION_CLOSE_FAILED,
//                             GUARD_REFUSED, STORE_UNAVAILABLE, RECORD_WRITE_FAILED,
//                             RECORDED_TOOL_ERROR, CHECKPOINT_BUDGET, BEYOND_CAPACITY,
//                             BAD_INPUT, PROFILE_MISMATCH,
//                             CALL_NOT_RUN
//   sdk/core/canonical.ts     NOT_CANONICAL_JSON
//   sdk/core/encoding.ts      UNENCODABLE
//   sdk/core/inputs.ts        INPUT_COLLISION
//   sdk/core/paths.ts         BAD_PATH
//   sdk/core/predicates       BAD_THETA
//   sdk/core/profile.ts       BAD_PROFILE
//   sdk/core/python-json.ts   BAD_PYTHON_JSON
//   sdk/core/records.ts       BAD_RECORD, RECORD_TOO_LARGE
//   sdk/core/segments.ts      SEGMENT_ERROR
//   sdk/chain/deployment.ts   BAD_DEPLOYMENT
//   sdk/chain/escrow-errors.ts ESCROW_REVERTED, ESCROW_TX_FAILED
//   sdk/provider/store.ts              STORE_CONFLICT, STORE_FAILED
//   sdk/provider/promises.ts           NO_VERIFIER
//   sdk/adapters              BAD_HARNESS_INPUT, OUTCOME_UNKNOWN, FAILED_RESULT, TOOL_REFUSED,
//                             OPENCLAW_TOOL_ERROR
//   sdk/user                  SETTLEMENT_INVALID, SETTLEMENT_UNCHECKABLE, NO_SUCH_CLAIM,
//                             CLAIM_NOT_SETTLED
//   prover/claims.ts          TRACE_MISMATCH, CLAIM_ERROR, CLAIM_NOT_OPEN, SESSION_NOT_CLOSED,
//                             RECEIPT_WINDOW_OPEN
//   prover/claim-answerer.ts  CLAIM_REFUSED
//   prover/prove.ts           PROOF_FAILED
//   prover/rpc-retry.ts       RPC_UNAVAILABLE
//   prover/watcher-state.ts   WATCHER_LOCKED
//   prover/witness.ts         WITNESS_FAILED
//   prover/segments           SEGMENT_PROOF_FAILED, SEGMENT_WORKER_DIED, SEGMENT_DEAD_LETTERED,
//                             SEGMENT_QUEUE_TIMEOUT, SEGMENT_PROOF_REJECTED
//   prover/artifacts          TOOL_FAILED, BAD_MANIFEST
//   bin/cli               ALREADY_REPORTED, BAD_CEREMONY_USAGE, CLAIM_NOT_DUE

/**
 * Root of every zkVAI error. Subclasses keep their own `name`; each declares
 * `static override readonly code`, which the instance getter reads, so a subclass without
 * its own code would share its parent's, and the errors test refuses that.
 */
export class ZkvaiError extends Error {
  static readonly code: string = "ZKVAI";
  override name = "ZkvaiError";

  /** Stable and machine-readable, e.g. "TRACE_MISMATCH"; unlike the message, never reworded. */
  get code(): string {
    return (this.constructor as typeof ZkvaiError).code;
  }
}

/** Base of every refusal of an input: nothing was run, written or sent. */
export class InvalidRecordError extends ZkvaiError {
  static override readonly code: string = "INVALID_RECORD";
  override name = "InvalidRecordError";
}

/** A tool call refused before the tool ran: unknown tool, non-JSON args, malformed amount, missing actionId. */
export class InvalidCallError extends InvalidRecordError {
  static override readonly code: string = "INVALID_CALL";
  override name = "InvalidCallError";
}

/** A promise in SessionOptions.promises that does not parse (unknown predicate, bad θ, θ the profile cannot serve). */
export class PromiseRefError extends ZkvaiError {
  static override readonly code: string = "BAD_PROMISE_REF";
  override name = "PromiseRefError";
}

/** An actionId or eventId seen before with other content. Nothing was run or written. */
export class IdempotencyConflictError extends ZkvaiError {
  static override readonly code: string = "IDEMPOTENCY_CONFLICT";
  override name = "IdempotencyConflictError";
}

/** The session is closing or closed; no record can be added. */
export class SessionClosedError extends ZkvaiError {
  static override readonly code: string = "SESSION_CLOSED";
  override name = "SessionClosedError";
}

/**
 * Session.open refused its options, or openSession did not land on-chain; no call can run on the session.
 * (A missing or unusable store or escrow client is refused here too, before anything is written.)
 */
export class SessionOpenError extends ZkvaiError {
  static override readonly code: string = "SESSION_OPEN_FAILED";
  override name = "SessionOpenError";
}

/** Session.recover cannot resume this session (unknown, closed, or someone else's). */
export class SessionRecoveryError extends ZkvaiError {
  static override readonly code: string = "SESSION_RECOVERY_FAILED";
  override name = "SessionRecoveryError";
}

/** The store disagrees with what the chain committed: an acknowledged record was lost or changed. */
export class CheckpointMismatchError extends ZkvaiError {
  static override readonly code: string = "CHECKPOINT_MISMATCH";
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
export class SessionCloseError extends ZkvaiError {
  static override readonly code: string = "SESSION_CLOSE_FAILED";
  override name = "SessionCloseError";
}

/** Guard mode: the call would have violated a promise, so it was not run; its refusal is recorded. */
export class GuardRefusal extends ZkvaiError {
  static override readonly code: string = "GUARD_REFUSED";
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

/**
 * Thrown by a call's run() when the harness did not run the tool after all (an adapter learnt it after
 * Session.call began: a permission prompt denied it, the runtime dropped it). The call is recorded as a
 * blocked record carrying this message, which is not a call, and this error is re-thrown.
 */
export class CallNotRunError extends ZkvaiError {
  static override readonly code: string = "CALL_NOT_RUN";
  override name = "CallNotRunError";
}

/** Guard mode: the store cannot take a write, so the call was not run (P8). */
export class StoreUnavailableError extends ZkvaiError {
  static override readonly code: string = "STORE_UNAVAILABLE";
  override name = "StoreUnavailableError";
}

/** The tool ran but its record could not be written: the trace lacks a call that happened. */
export class RecordWriteError extends ZkvaiError {
  static override readonly code: string = "RECORD_WRITE_FAILED";
  override name = "RecordWriteError";
}

/** A replayed actionId whose first run failed: the stored error, re-thrown without running the tool again. */
export class RecordedToolError extends ZkvaiError {
  static override readonly code: string = "RECORDED_TOOL_ERROR";
  override name = "RecordedToolError";
  constructor(
    message: string,
    /** seq of the stored record. */
    readonly seq: number,
  ) {
    super(message);
  }
}

/**
 * A record past the most records the escrow's registered circuits can prove for the session's
 * promises: a claim on a longer session could only default, so the Session refuses it before the
 * tool runs (SessionOptions.beyondCapacity: "warn" records it instead). Nothing was run or written.
 */
export class BeyondCapacityError extends ZkvaiError {
  static override readonly code: string = "BEYOND_CAPACITY";
  override name = "BeyondCapacityError";
}

/**
 * checkpointNow() for a prefix the checkpoint budget does not cover yet: the escrow takes the k-th
 * checkpoint only at more than CHECKPOINT_INTERVAL·(k−1) records (sdk/core/checkpoints.ts).
 */
export class CheckpointBudgetError extends ZkvaiError {
  static override readonly code: string = "CHECKPOINT_BUDGET";
  override name = "CheckpointBudgetError";
}

/** Bad input to a command or library entry point (a file, a flag, an id): nothing was run, written or sent. */
export class InputError extends ZkvaiError {
  static override readonly code: string = "BAD_INPUT";
  override name = "InputError";
}

/**
 * Session.open for a profile other than the one its promises pin (a promise's profileHash is fixed at
 * registration): the escrow would leave the session uncovered by them, or refuse to open it. Nothing was
 * written. SessionOptions.allowProfileMismatch opens it anyway, uncovered by those promises.
 */
export class ProfileMismatchError extends SessionOpenError {
  static override readonly code: string = "PROFILE_MISMATCH";
  override name = "ProfileMismatchError";
  constructor(
    message: string,
    /** profileHash of the session's profile. */
    readonly sessionProfileHash: bigint,
    /** The promises that pin another profile, with the profileHash each pins. */
    readonly mismatched: readonly { promiseId: bigint; profileHash: bigint }[],
  ) {
    super(message);
  }
}
