// The provider's recorder: one Session per agent session. Every tool call goes through
// `call`, which checks it before the tool runs (nothing is run or written for a bad
// input), runs it, and stores its record before returning (P7). Prefix roots go
// on-chain in the background (sdk/provider/checkpointer.ts); close() commits the final root.
// actionId (calls) and eventId (authorizations, grants, revokes) make retries
// idempotent, across crashes too (Session.recover). Guard mode (opt-in, P8) refuses a
// call that would break a covering promise, or that could not be recorded.
import type { Hex } from "viem";
import type { SessionOpenTx } from "../chain/escrow.js";
import { signReceipt, type SignedReceipt } from "../chain/receipts.js";
import { ReceiptCourier } from "./session-receipts.js";
import { canonicalJson, type Json } from "../core/canonical.js";
import { Checkpointer } from "./checkpointer.js";
import { gatedTools } from "./guard.js";
import { LeafLog } from "../core/leaf-log.js";
import { processLeafHasher } from "./leaf-hasher.js";
import type { EncodingProfile } from "../core/profile.js";
import {
  authorizationBody,
  checkCall,
  checkEvent,
  messageOf,
  type AuthorizationInput,
} from "../core/record-checks.js";
import {
  MAX_RECORD_BYTES,
  checkSize,
  parseRecord,
  recordBytes,
  type RecordBody,
  type TraceRecord,
} from "../core/records.js";
import { CallRunner, bodyOf } from "./session-calls.js";
import { commitClose } from "./session-close.js";
import { IdempotencyLedger } from "./session-ledger.js";
import { checkCallFits, snapshotArgs } from "./session-limits.js";
import { checkResultSize } from "./session-results.js";
import { openNewSession } from "./session-open.js";
import type { CloseResult, RecoverOptions, SessionContext, SessionOptions } from "./session-options.js";
import { recoverSession } from "./session-recovery.js";
import { RowPads } from "./session-pads.js";
import {
  BeyondCapacityError,
  InvalidCallError,
  InvalidRecordError,
  SessionClosedError,
  SessionOpenError,
  SessionRecoveryError,
} from "../core/errors.js";

export { DEFAULT_POLICY, type CheckpointPolicy } from "./checkpointer.js";
export type { PromiseRef } from "./guard.js";
export * from "../core/errors.js";
export type { RecordBody } from "../core/records.js";
export type { AuthorizationInput } from "../core/record-checks.js";
export { onChainSession } from "./session-chain.js";
export {
  MAX_ACTION_ID_CHARS,
  MAX_ARG_BYTES,
  MAX_ERROR_CHARS,
  MAX_RECORD_BYTES,
  MAX_RESULT_BYTES,
} from "../core/records.js";
export { randomSecret, type CloseResult, type SessionOptions } from "./session-options.js";
export { MAX_PREVIEW_CHARS, UNSTORABLE_KEY } from "./session-results.js";

export class Session {
  readonly sessionId: Hex;
  /** openSession's transaction: from open(), or from recover() when the first open never landed. */
  readonly openTx?: SessionOpenTx;
  private state: "open" | "closing" | "closed" = "open";
  private readonly leaves: LeafLog;
  private readonly gated: Map<string, number>;
  private readonly checkpointer: Checkpointer;
  private readonly ledger = new IdempotencyLedger();
  private readonly calls: CallRunner;
  private readonly inflight = new Set<Promise<unknown>>();
  private closing: Promise<CloseResult> | undefined;
  private closed: CloseResult | undefined;
  private warnedCapacity = false;
  private readonly pads: RowPads;
  private readonly courier: ReceiptCourier | undefined;

  private constructor(
    private readonly ctx: SessionContext,
    records: readonly TraceRecord[],
    openTx: SessionOpenTx | undefined,
  ) {
    this.sessionId = ctx.sessionId;
    if (openTx) this.openTx = openTx;
    const hasher = processLeafHasher();
    this.leaves = new LeafLog(ctx.profile, ctx.secret, hasher && ((...open) => hasher.open(...open)));
    this.calls = new CallRunner(ctx, this.ledger, {
      count: () => this.count,
      write: (body) => this.write(body),
      reserve: (fallback) => this.reserve(fallback),
      complete: (reservation, body) => this.write(body, reservation),
    });
    this.gated = gatedTools(ctx.promises);
    this.pads = new RowPads(ctx.profile);
    if (ctx.capacity === 0)
      ctx.log.log("warn", "session.no_circuit", {
        sessionId: ctx.sessionId,
        note: "the escrow registers no circuit for this session's promises: a claim on it can only default",
      });
    for (const r of records) this.track(r);
    if (ctx.receipts)
      this.courier = new ReceiptCourier(ctx.receipts, (n) => this.receipt(n), ctx.log, ctx.sessionId);
    this.checkpointer = new Checkpointer({
      ...ctx,
      count: () => this.leaves.length,
      headOf: (n) => this.leaves.head(n),
      // None at open; recover() adopts the chain's with checkpointer.reconcile(), checking each.
      onChain: { lastN: 0, checkpoints: 0 },
    });
  }

  /**
   * Creates the session in the store, then on-chain. Bad options throw before anything is
   * written; if openSession fails it throws SessionOpenError, and no call can run (recover() retries it).
   */
  static async open(opts: SessionOptions): Promise<Session> {
    startLeafHasher(SessionOpenError);
    const { ctx, openTx } = await openNewSession(opts);
    return new Session(ctx, [], openTx);
  }

  /**
   * Resumes a session after a crash: rebuilds the leaves and the idempotency keys from the
   * store, checks every on-chain checkpoint against the stored records, sends openSession if
   * the first one never landed, and continues at seq = stored count. A closed session is refused.
   */
  static async recover(opts: RecoverOptions): Promise<Session> {
    startLeafHasher(SessionRecoveryError);
    return recoverSession(opts, (ctx, records, openTx) => {
      const session = new Session(ctx, records, openTx);
      return { session, checkpointer: session.checkpointer, abandon: () => session.leaves.dispose() };
    });
  }

  /** The newest receipt the session's receipt policy delivered to the user (SessionOptions.receipts). */
  get latestReceipt(): SignedReceipt | undefined {
    return this.courier?.latest;
  }

  /** The encoding profile the session records under: the tools it may record. */
  get profile(): EncodingProfile {
    return this.ctx.profile;
  }

  get count(): number {
    return this.leaves.length;
  }

  /** The chain head of the first n records (all by default): what a checkpoint or receipt for n commits to. */
  head(n = this.count): bigint {
    return this.leaves.head(n);
  }

  /**
   * A receipt for the first n records (all so far by default), signed with the provider's key (the escrow
   * client's wallet, the account that opened the session): what the user keeps and may post to the escrow
   * (EscrowClient.postReceipt) so the provider can no longer commit to fewer or other records. Hand it to the
   * user with the response the record belongs to (docs/PROTOCOL.md "Receipts"). Sign only what is stored: every
   * record up to n already is, since a record is stored before it is acknowledged.
   */
  async receipt(n = this.count): Promise<SignedReceipt> {
    const wallet = this.ctx.escrow.wallet;
    if (!wallet)
      throw new InvalidCallError("receipt(): the session's escrow client has no wallet to sign with");
    const receipt = { sessionId: this.sessionId, n, root: this.leaves.head(n) };
    const target = { chainId: this.ctx.escrow.chain.chainId, escrow: this.ctx.escrow.address };
    return { ...receipt, ...target, signature: await signReceipt(wallet, target, receipt) };
  }

  /** The commitment of every record so far (commitmentRoot). */
  root(): bigint {
    return this.leaves.root();
  }

  get stats() {
    return this.checkpointer.stats;
  }

  /**
   * Records one tool call around running it. Before `run`: the tool must be in the profile,
   * args canonical JSON without `undefined` values, each at most MAX_ARG_BYTES and the record
   * with room for a MAX_RESULT_BYTES result within MAX_RECORD_BYTES, amounts well-formed, and a
   * tool an AAP-1 promise gates needs an actionId; otherwise InvalidCallError, and nothing runs
   * or is written. The args are copied then: what is recorded is what they were at the call. A known actionId
   * with the same tool and args returns the stored result (or re-throws the stored error)
   * without running again; with other content it is refused. In guard mode the call is not
   * run when the store cannot take a write (StoreUnavailableError) or when it would turn a
   * satisfied promise violated (GuardRefusal, recorded as a blocked record). Otherwise the
   * result, or the error (re-thrown), is stored before this resolves, and the caller gets the
   * tool's own value. A result JSON carries through toJSON (a Date) is stored as JSON carries it;
   * one that cannot be stored as it is (a BigInt, a cycle, a function, nested past MAX_JSON_DEPTH,
   * a throwing getter, over MAX_RESULT_BYTES) is stored as the marker
   * `{ "$unstorable": why, "preview": text }` (sdk/provider/session-results.ts), never as an error.
   */
  async call<T>(
    tool: string,
    args: { [k: string]: Json },
    run: () => Promise<T>,
    opts: { actionId?: string } = {},
  ): Promise<T> {
    this.assertOpen();
    const { actionId } = opts;
    const call = checkCall(this.ctx.profile, this.count, tool, snapshotArgs(tool, args), actionId);
    checkCallFits(call);
    this.checkCapacity(this.inflight.size);
    const gatedBy = actionId === undefined ? this.gated.get(tool) : undefined;
    if (gatedBy !== undefined) {
      throw new InvalidCallError(
        `call ${JSON.stringify(tool)}: promises[${gatedBy}] (${this.ctx.promises[gatedBy].predicate}) gates this tool, so the call needs an actionId that an authorization names`,
      );
    }
    const task = this.calls.run<T>(call, run);
    this.inflight.add(task);
    const untrack = () => void this.inflight.delete(task);
    task.then(untrack, untrack);
    return task;
  }

  /** Records an authorization decision; args (or their argsHash) are the ones it covers. */
  authorize(a: AuthorizationInput): TraceRecord {
    this.assertOpen();
    if (a.args !== undefined) {
      try {
        canonicalJson(a.args, { refuseUndefined: true });
      } catch (e) {
        throw new InvalidRecordError(`authorization ${a.actionId}: args: ${messageOf(e)}`, { cause: e });
      }
    }
    return this.recordEvent(authorizationBody(a));
  }

  grant(namespace: "recipient" | "scope", value: string, opts: { eventId?: string } = {}): TraceRecord {
    this.assertOpen();
    return this.recordEvent({ kind: "grant", namespace, value, ...opts });
  }

  revoke(namespace: "recipient" | "scope", value: string, opts: { eventId?: string } = {}): TraceRecord {
    this.assertOpen();
    return this.recordEvent({ kind: "revoke", namespace, value, ...opts });
  }

  /**
   * Appends a record of something that already happened outside call() (a replayed or
   * imported trace, or a harness that blocks calls itself): checked and stored like any
   * other, eventIds included, but without the pre-run rules (gating, guard, actionId
   * replay), since there is nothing left to prevent. The size limits are call()'s: a result over
   * MAX_RESULT_BYTES is refused (InvalidCallError), and nothing is written.
   */
  append(body: RecordBody): TraceRecord {
    this.assertOpen();
    if (body.kind !== "call") return this.recordEvent(body);
    const { tool, args, actionId, ...rest } = body;
    const call = checkCall(this.ctx.profile, this.count, tool, snapshotArgs(tool, args), actionId, rest);
    try {
      // The same result limit call() keeps (MAX_RESULT_BYTES), then the record's own.
      if (call.result !== undefined) checkResultSize(canonicalJson(call.result));
      recordBytes(call);
    } catch (e) {
      throw new InvalidCallError(`call ${JSON.stringify(tool)}: ${messageOf(e)}`, { cause: e });
    }
    this.checkCapacity(this.inflight.size);
    return this.write(bodyOf(call));
  }

  /** Queues a checkpoint of the current prefix and waits until it (or a longer one) landed. */
  checkpointNow(): Promise<void> {
    this.assertOpen();
    return this.checkpointer.now();
  }

  /** Waits until no checkpoint is queued, in flight or waiting to retry. */
  flush(): Promise<void> {
    return this.checkpointer.drain();
  }

  /**
   * Refuses new records, waits for calls in flight, drops checkpoints the final commitment
   * makes redundant, checks that the store holds every acknowledged record, and commits
   * (count, root) with closeSession, retrying transient failures. May be called again after
   * a failure; after success it returns the same result.
   */
  close(): Promise<CloseResult> {
    if (this.closed) return Promise.resolve(this.closed);
    this.state = "closing";
    this.closing ??= this.finish().catch((e) => {
      this.closing = undefined;
      throw e;
    });
    return this.closing;
  }

  private assertOpen(): void {
    if (this.state !== "open")
      throw new SessionClosedError(`session ${this.sessionId} is ${this.state}; no record can be added`);
  }

  /** Authorization, grant or revoke: checked (it must encode), deduplicated by eventId, stored. */
  private recordEvent(body: RecordBody): TraceRecord {
    // Size first: encoding a value of megabytes (checkEvent) takes seconds.
    try {
      checkSize(
        `${body.kind}`,
        canonicalJson({ ...body, seq: 0, ts: 0 }),
        MAX_RECORD_BYTES,
        "MAX_RECORD_BYTES",
      );
    } catch (e) {
      throw new InvalidRecordError(`${body.kind}: ${messageOf(e)}`, { cause: e });
    }
    const checked = checkEvent(this.ctx.profile, this.count, body);
    const known = this.ledger.knownEvent(checked);
    if (known !== undefined) return this.ctx.store.record(this.sessionId, known)!;
    this.checkCapacity(this.inflight.size);
    return this.write(body);
  }

  /**
   * Refuses (or warns about, per beyondCapacity) a record past ctx.capacity, the most a claim can be
   * proven for; `pending` calls are running and will each add one. Nothing to check when no
   * registered circuit serves the session at all (capacity 0): open() warned about that.
   */
  private checkCapacity(pending: number): void {
    const { capacity, beyondCapacity, log } = this.ctx;
    if (capacity === 0 || this.count + pending < capacity) return;
    const what = `session ${this.sessionId} holds ${this.count} records${pending ? ` (${pending} more running)` : ""}; the escrow's circuits prove claims on at most ${capacity}, so a claim on a longer session can only default`;
    if (beyondCapacity === "refuse")
      throw new BeyondCapacityError(
        `${what}. Close it and continue in a new session, or open with beyondCapacity: "warn"`,
      );
    if (!this.warnedCapacity)
      log.log("warn", "session.beyond_capacity", {
        sessionId: this.sessionId,
        records: this.count,
        capacity,
      });
    this.warnedCapacity = true;
  }

  /**
   * The one place records are appended: the store first, then the leaves, then the policy. `reservation`:
   * the one reserve() made for this record (guard mode), which the same transaction drops.
   */
  private write(body: RecordBody, reservation?: number): TraceRecord {
    // A copy through canonical JSON: what is stored, hashed later and kept is exactly these
    // bytes, whatever the agent does with its own objects afterwards.
    const record = parseRecord(JSON.parse(canonicalJson({ ...body, seq: this.count, ts: Date.now() })));
    if (reservation === undefined) this.ctx.store.append(this.sessionId, record);
    else this.ctx.store.complete(this.sessionId, record, reservation);
    this.track(record);
    this.checkpointer.recorded();
    this.courier?.recorded(this.count);
    return record;
  }

  /** Reserves a guarded call's record in the store, with the record to keep if its outcome never comes. */
  private reserve(fallback: RecordBody): number {
    return this.ctx.store.reserve(
      this.sessionId,
      parseRecord(JSON.parse(canonicalJson({ ...fallback, seq: this.count, ts: Date.now() }))),
    );
  }

  /** Takes a stored record into the leaves, the guard's trace and the idempotency keys. */
  private track(record: TraceRecord): void {
    this.leaves.push(record);
    this.pads.track(record);
    this.calls.track(record);
    this.ledger.track(record);
  }

  private async finish(): Promise<CloseResult> {
    const { leaves, checkpointer, inflight } = this;
    // The user's receipt of the whole session goes out before close commits it: the count is final once the
    // calls in flight are stored.
    while (inflight.size > 0) await Promise.allSettled([...inflight]);
    // The pads the trace's rows need go under the final root, after every call and before the receipt of it.
    for (const pad of this.pads.due(this.count, this.ctx.log, this.sessionId)) this.write(pad);
    await this.courier?.closing(this.count);
    this.closed = await commitClose(this.ctx, { leaves, checkpointer, inflight });
    this.state = "closed";
    this.ctx.log.log("info", "session.closed", { sessionId: this.sessionId, ...this.closed });
    return this.closed;
  }
}

/**
 * Starts the process's leaf hasher before anything is written: a bad VAI_LEAF_HASHING refuses the session
 * first, and the worker loads while openSession is sent.
 */
function startLeafHasher(refusal: typeof SessionOpenError | typeof SessionRecoveryError): void {
  try {
    processLeafHasher();
  } catch (e) {
    throw new refusal(messageOf(e), { cause: e });
  }
}
