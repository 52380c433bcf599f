// zkVAI's one error root, and what a Session refuses, and why, as named errors callers can tell apart.
//
// Error policy (docs/ARCHITECTURE.md "Errors" says it in full):
// - An operational failure (bad input, a chain state, a missing build, a conflict, an RPC failure, a proof
//   rejected…) throws a ZkvaiError subclass with a stable `code`, the values involved in `details`, the
//   underlying error in `cause`, and where to read more in `docs`.
// - A plain Error (or TypeError/RangeError) is for misuse only: the caller's code broke an invariant (a
//   method called in the wrong state, a client without the wallet it needs), or a state that cannot occur.
// - Callers branch on `err.code` (or instanceof), never on message text, which may be reworded.
// - The `vai` CLI exits 2 for an InputError (bad input or configuration), 1 for any other failure, 0 for
//   success (bin/cli/common.ts runCommand; `vai verify` adds 3, see its usage).
// - Every code is listed once, with its meaning and docs, in ERROR_CODES (sdk/core/error-codes.ts);
//   test/sdk/errors.test.ts fails on a class whose code is not listed there, and on a listed code no class uses.
import { ERROR_CODES, ERRORS_DOC } from "./error-codes.js";

export { ERROR_CODES, ERRORS_DOC, type ErrorCode, type ErrorCodeInfo } from "./error-codes.js";

/** A value `details` may hold: what JSON.stringify writes faithfully (a bigint goes in as its decimal string). */
export type ErrorDetail =
  null | boolean | number | string | readonly ErrorDetail[] | { readonly [key: string]: ErrorDetail };

/** The values an error involves, by name (a claim id, a file, a count), for logs and programs; JSON as it is. */
export type ErrorDetails = Readonly<Record<string, ErrorDetail>>;

export interface ZkvaiErrorOptions extends ErrorOptions {
  /** The values involved; defaults to {}. */
  details?: ErrorDetails;
  /** Where to read more, overriding the code's ERROR_CODES entry: a docs path and anchor, or a URL. */
  docs?: string;
}

/** `options` with `details` (the class's own fields) under the caller's: what a subclass constructor passes on. */
export function withDetails(
  options: ZkvaiErrorOptions | undefined,
  details: ErrorDetails,
): ZkvaiErrorOptions {
  return { ...options, details: { ...details, ...options?.details } };
}

/**
 * Root of every zkVAI error. Subclasses keep their own `name`; each declares
 * `static override readonly code`, which the instance getter reads, so a subclass without
 * its own code would share its parent's, and the errors test refuses that.
 */
export class ZkvaiError extends Error {
  static readonly code: string = "ZKVAI";
  override name = "ZkvaiError";
  /** The values involved, as plain JSON (never the message's text to parse). */
  readonly details: ErrorDetails;
  readonly #docs: string | undefined;

  /** `options.cause` is ES2022's Error cause: the error this one reports, kept for its stack and type. */
  constructor(message?: string, options?: ZkvaiErrorOptions) {
    super(message, options);
    this.details = options?.details ?? {};
    this.#docs = options?.docs;
  }

  /** Stable and machine-readable, e.g. "TRACE_MISMATCH"; unlike the message, never reworded. */
  get code(): string {
    return (this.constructor as typeof ZkvaiError).code;
  }

  /** Where this error is explained: a docs path and anchor (relative to the package root), or a URL. */
  get docs(): string {
    return this.#docs ?? (ERROR_CODES as Record<string, { docs?: string }>)[this.code]?.docs ?? ERRORS_DOC;
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
    options?: ZkvaiErrorOptions,
  ) {
    super(message, withDetails(options, { checkpoint }));
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
    options?: ZkvaiErrorOptions,
  ) {
    super(
      `guard refused the call: it would violate promise ${promiseIndex} (${predicate}): ${reason}`,
      withDetails(options, { predicate, promiseIndex, reason, seq }),
    );
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
    options?: ZkvaiErrorOptions,
  ) {
    super(message, withDetails(options, { seq }));
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
    options?: ZkvaiErrorOptions,
  ) {
    super(
      message,
      withDetails(options, {
        sessionProfileHash: String(sessionProfileHash),
        mismatched: mismatched.map((m) => ({
          promiseId: String(m.promiseId),
          profileHash: String(m.profileHash),
        })),
      }),
    );
  }
}

/**
 * A built artifact is missing or out of date (a circuit, its keys or verifier, a contract artifact, an npm
 * package): run `npm run setup` (or `npm install`). Nothing was sent.
 */
export class BuildMissingError extends ZkvaiError {
  static override readonly code: string = "BUILD_MISSING";
  override name = "BuildMissingError";
}

/**
 * The build's environment or project files name something unusable (ZKVAI_BUILD_DIR, VAI_PTAU, the instance
 * table, `--only`/`--group`). Unlike an InputError, the `vai` CLI exits 1 for it, as it always has.
 */
export class ConfigurationError extends ZkvaiError {
  static override readonly code: string = "BAD_CONFIGURATION";
  override name = "ConfigurationError";
}

/**
 * A circuit's witness cannot be built from these records: the trace holds more than the instance can (an
 * event log past its slots), or the values disagree with themselves. The prover raises it; segment carriers
 * (sdk/core/predicates/<aapN>/segment.ts) raise it from the core.
 */
export class WitnessError extends ZkvaiError {
  static override readonly code: string = "WITNESS_FAILED";
  override name = "WitnessError";
}

/** A promise's θ its predicate refuses (re-exported by sdk/core/predicates/types.ts, where predicates import it). */
export class ThetaError extends ZkvaiError {
  static override readonly code: string = "BAD_THETA";
  override name = "ThetaError";
}
