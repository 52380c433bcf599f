// The provider's recorder: one Session per agent session. Every tool call goes through
// `call`, which checks it before the tool runs (nothing is run or written for a bad
// input), runs it, and stores its record before returning (P7). Prefix roots go
// on-chain in the background (sdk/checkpointer.ts); close() commits the final root.
// actionId (calls) and eventId (authorizations, grants, revokes) make retries
// idempotent, across crashes too (Session.recover). Guard mode (opt-in, P8) refuses a
// call that would break a covering promise, or that could not be recorded.
import { randomBytes } from "node:crypto";
import { sessionIdProvider } from "./chain/escrow.js";
import { isAddress, isAddressEqual, zeroAddress, type Address, type Hex } from "viem";
import type { EscrowClient, TxResult } from "./chain/escrow.js";
import { canonicalJson, type Json } from "./core/canonical.js";
import { Checkpointer, resolvePolicy, type CheckpointPolicy } from "./checkpointer.js";
import { Guard, gatedTools, parsePromises, type CoveringPromise, type PromiseRef } from "./guard.js";
import { FIELD_MODULUS } from "./core/hash.js";
import { LeafLog } from "./core/leaf-log.js";
import { silentLogger, type Logger } from "./log.js";
import { parseProfile, type EncodingProfile } from "./core/profile.js";
import {
  authorizationBody,
  checkCall,
  checkEvent,
  messageOf,
  type AuthorizationInput,
} from "./core/record-checks.js";
import {
  MAX_RECORD_BYTES,
  checkSize,
  parseRecord,
  recordBytes,
  type CallRecord,
  type RecordBody,
  type TraceRecord,
} from "./core/records.js";
import { commitFinal, maxCheckpointsOf, resumeOnChain } from "./session-chain.js";
import { IdempotencyLedger } from "./session-ledger.js";
import { checkCallFits, errorText, recordableText, snapshotArgs, snapshotResult } from "./session-limits.js";
import { StoreConflictError, type StoredSession, type TraceStore } from "./store.js";
import {
  GuardRefusal,
  InvalidCallError,
  InvalidRecordError,
  RecordWriteError,
  RecordedToolError,
  SessionCloseError,
  SessionClosedError,
  SessionOpenError,
  SessionRecoveryError,
  StoreUnavailableError,
  UnrecordableResultError,
} from "./core/errors.js";

export { DEFAULT_POLICY, type CheckpointPolicy } from "./checkpointer.js";
export type { PromiseRef } from "./guard.js";
export * from "./core/errors.js";
export type { RecordBody } from "./core/records.js";
export type { AuthorizationInput } from "./core/record-checks.js";
export { onChainSession } from "./session-chain.js";
export { MAX_ARG_BYTES, MAX_ERROR_CHARS, MAX_RECORD_BYTES, MAX_RESULT_BYTES } from "./core/records.js";

export function randomSecret(): bigint {
  return BigInt(`0x${randomBytes(32).toString("hex")}`) % FIELD_MODULUS;
}

export interface SessionOptions {
  store: TraceStore;
  escrow: EscrowClient;
  sessionId: Hex;
  user: Address;
  profile: EncodingProfile;
  /** The session's leaf-salt secret; random by default. It never leaves the store. */
  secret?: bigint;
  policy?: Partial<CheckpointPolicy>;
  /** The promises covering the session: AAP-1's gated tools need an actionId, and guard mode checks them all. */
  promises?: PromiseRef[];
  /** Fail-closed guard mode: see call(). */
  guard?: boolean;
  log?: Logger;
}

export interface CloseResult {
  finalN: number;
  finalRoot: bigint;
  txHash: Hex;
  gasUsed: bigint;
}

interface Context {
  store: TraceStore;
  escrow: EscrowClient;
  sessionId: Hex;
  profile: EncodingProfile;
  secret: bigint;
  log: Logger;
  policy: CheckpointPolicy;
  promises: CoveringPromise[];
  guard: boolean;
  maxCheckpoints: number;
}

export class Session {
  readonly sessionId: Hex;
  /** openSession's transaction: from open(), or from recover() when the first open never landed. */
  readonly openTx?: TxResult;
  private state: "open" | "closing" | "closed" = "open";
  private readonly leaves: LeafLog;
  /** The stored trace, kept in memory for guard mode's oracles only. */
  private readonly trace: TraceRecord[] | undefined;
  private readonly guard: Guard | undefined;
  private readonly gated: Map<string, number>;
  private readonly checkpointer: Checkpointer;
  private readonly ledger = new IdempotencyLedger();
  private readonly inflight = new Set<Promise<unknown>>();
  /** Guard mode runs calls one at a time, so each check sees the trace its call extends. */
  private guardTurn: Promise<void> = Promise.resolve();
  private closing: Promise<CloseResult> | undefined;
  private closed: CloseResult | undefined;

  private constructor(
    private readonly ctx: Context,
    records: readonly TraceRecord[],
    openTx: TxResult | undefined,
  ) {
    this.sessionId = ctx.sessionId;
    if (openTx) this.openTx = openTx;
    this.leaves = new LeafLog(ctx.profile, ctx.secret);
    this.trace = ctx.guard ? [] : undefined;
    this.guard = ctx.guard ? new Guard(ctx.promises, ctx.profile) : undefined;
    this.gated = gatedTools(ctx.promises);
    for (const r of records) this.track(r);
    this.checkpointer = new Checkpointer({
      ...ctx,
      count: () => this.leaves.length,
      prefixRoot: (n) => this.leaves.root(n),
      // None at open; recover() adopts the chain's with checkpointer.reconcile(), checking each.
      onChain: { lastN: 0, checkpoints: 0 },
    });
  }

  /**
   * Creates the session in the store, then on-chain. Bad options throw before anything is
   * written; if openSession fails it throws SessionOpenError, and no call can run (recover() retries it).
   */
  static async open(opts: SessionOptions): Promise<Session> {
    const { store, escrow, sessionId, user } = opts;
    const profile = parseProfile(opts.profile);
    const promises = parsePromises(opts.promises ?? [], profile);
    const policy = resolvePolicy(opts.policy);
    const secret = opts.secret ?? randomSecret();
    if (!/^0x[0-9a-fA-F]{64}$/.test(sessionId))
      throw new SessionOpenError("sessionId must be 32 bytes of 0x-hex");
    // The escrow refuses an id not scoped to the sender; refusing it here writes nothing (chain.ts scopedSessionId).
    const sender = escrow.wallet?.account?.address;
    if (sender && !isAddressEqual(sessionIdProvider(sessionId), sender))
      throw new SessionOpenError(
        `sessionId ${sessionId} is not scoped to the provider ${sender}: its top 20 bytes must be that address (scopedSessionId)`,
      );
    if (!isAddress(user) || isAddressEqual(user, zeroAddress))
      throw new SessionOpenError(`user must be a non-zero address, got ${user}`);
    if (typeof secret !== "bigint" || secret < 0n || secret >= FIELD_MODULUS)
      throw new SessionOpenError("secret must be a field element");
    if (store.session(sessionId))
      throw new SessionOpenError(
        `session ${sessionId} is already in the trace store; Session.recover resumes it`,
      );
    const log = opts.log ?? silentLogger;
    let maxCheckpoints: number;
    try {
      maxCheckpoints = await maxCheckpointsOf(escrow);
    } catch (e) {
      throw new SessionOpenError(`cannot read the escrow's MAX_CHECKPOINTS: ${messageOf(e)}`, { cause: e });
    }
    const stored = store.createSession({ sessionId, secret, profile, user });
    claimWriter(store, sessionId, SessionOpenError);
    let openTx: TxResult;
    try {
      openTx = await escrow.openSession(sessionId, user, stored.profileHash);
    } catch (e) {
      log.log("error", "session.open_failed", { sessionId, error: messageOf(e) });
      throw new SessionOpenError(
        `openSession(${sessionId}) failed, so no call may run on it (Session.recover retries it): ${messageOf(e)}`,
        { cause: e },
      );
    }
    log.log("info", "session.opened", { sessionId, user, txHash: openTx.txHash, gasUsed: openTx.gasUsed });
    const ctx = { store, escrow, sessionId, profile, secret, log, policy, promises, maxCheckpoints };
    return new Session({ ...ctx, guard: opts.guard ?? false }, [], openTx);
  }

  /**
   * Resumes a session after a crash: rebuilds the leaves and the idempotency keys from the
   * store, checks every on-chain checkpoint against the stored records, sends openSession if
   * the first one never landed, and continues at seq = stored count. A closed session is refused.
   */
  static async recover(opts: Omit<SessionOptions, "user" | "profile" | "secret">): Promise<Session> {
    const { store, escrow, sessionId } = opts;
    const stored = store.session(sessionId);
    if (!stored)
      throw new SessionRecoveryError(
        `session ${sessionId} is not in the trace store; Session.open creates it`,
      );
    const promises = parsePromises(opts.promises ?? [], stored.profile);
    const policy = resolvePolicy(opts.policy);
    const log = opts.log ?? silentLogger;
    claimWriter(store, sessionId, SessionRecoveryError);
    try {
      return await Session.resume(opts, stored, promises, policy, log);
    } catch (e) {
      store.releaseWriter(sessionId);
      throw e;
    }
  }

  private static async resume(
    opts: Omit<SessionOptions, "user" | "profile" | "secret">,
    stored: StoredSession,
    promises: CoveringPromise[],
    policy: CheckpointPolicy,
    log: Logger,
  ): Promise<Session> {
    const { store, escrow, sessionId } = opts;
    const records = store.records(sessionId);
    const { maxCheckpoints, info, openTx } = await resumeOnChain(escrow, store, stored, records);
    const ctx = { store, escrow, sessionId, profile: stored.profile, secret: stored.secret, log, policy };
    const session = new Session(
      { ...ctx, promises, maxCheckpoints, guard: opts.guard ?? false },
      records,
      openTx,
    );
    // Throws CheckpointMismatchError when a checkpoint commits records the store lost or changed.
    await session.checkpointer.reconcile();
    const { checkpoints } = session.checkpointer.stats;
    if (info && checkpoints !== info.checkpointCount) {
      throw new SessionRecoveryError(
        `session ${sessionId}: ${checkpoints} Checkpointed events found, the escrow counts ${info.checkpointCount}; does the client's fromBlock precede the session?`,
      );
    }
    session.checkpointer.recorded();
    log.log("info", "session.recovered", {
      sessionId,
      records: records.length,
      checkpoints,
      reopened: !!openTx,
    });
    return session;
  }

  get count(): number {
    return this.leaves.length;
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
   * result, or the error (re-thrown), is stored before this resolves. A result that cannot be
   * stored (not JSON, cyclic, nested past MAX_JSON_DEPTH, a throwing getter, over
   * MAX_RESULT_BYTES) is recorded as the call's error, and UnrecordableResultError thrown.
   */
  async call<T extends Json>(
    tool: string,
    args: { [k: string]: Json },
    run: () => Promise<T>,
    opts: { actionId?: string } = {},
  ): Promise<T> {
    this.assertOpen();
    const { actionId } = opts;
    const call = checkCall(this.ctx.profile, this.count, tool, snapshotArgs(tool, args), actionId);
    checkCallFits(call);
    if (actionId === undefined && this.gated.has(tool)) {
      throw new InvalidCallError(
        `call ${JSON.stringify(tool)}: promises[${this.gated.get(tool)}] (AAP-1) gates this tool, so the call needs an actionId that an authorization names`,
      );
    }
    const task = this.runOnce<T>(call, run);
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
   * replay), since there is nothing left to prevent.
   */
  append(body: RecordBody): TraceRecord {
    this.assertOpen();
    if (body.kind !== "call") return this.recordEvent(body);
    const { tool, args, actionId, ...rest } = body;
    const call = checkCall(this.ctx.profile, this.count, tool, snapshotArgs(tool, args), actionId, rest);
    try {
      recordBytes(call);
    } catch (e) {
      throw new InvalidCallError(`call ${JSON.stringify(tool)}: ${messageOf(e)}`, { cause: e });
    }
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

  // ------------------------------------------------------------------------------------------ calls

  private assertOpen(): void {
    if (this.state !== "open")
      throw new SessionClosedError(`session ${this.sessionId} is ${this.state}; no record can be added`);
  }

  private async runOnce<T extends Json>(call: CallRecord, run: () => Promise<T>): Promise<T> {
    const { actionId } = call;
    if (actionId === undefined) return this.execute(call, run);
    const claim = await this.ledger.claim(actionId, call.tool, call.args);
    if ("seq" in claim) return this.replay<T>(claim.seq);
    try {
      return await this.execute(call, run);
    } finally {
      claim.release();
    }
  }

  private replay<T extends Json>(seq: number): T {
    const record = this.ctx.store.record(this.sessionId, seq) as CallRecord;
    this.ctx.log.log("info", "call.replayed", { sessionId: this.sessionId, seq, actionId: record.actionId });
    if (record.error !== undefined) throw new RecordedToolError(record.error, seq);
    return record.result as T;
  }

  private execute<T extends Json>(call: CallRecord, run: () => Promise<T>): Promise<T> {
    if (!this.guard) return this.runAndRecord(call, run);
    const turn = this.guardTurn.then(() => this.guarded(call, run));
    this.guardTurn = turn.then(
      () => {},
      () => {},
    );
    return turn;
  }

  private async guarded<T extends Json>(call: CallRecord, run: () => Promise<T>): Promise<T> {
    const { store, log } = this.ctx;
    const sessionId = this.sessionId;
    try {
      store.ping();
    } catch (e) {
      log.log("warn", "guard.store_unavailable", { sessionId, tool: call.tool, error: messageOf(e) });
      throw new StoreUnavailableError(`${call.tool} was not run: ${messageOf(e)}`, { cause: e });
    }
    const proposed: CallRecord = { ...call, seq: this.count, ts: Date.now() };
    const breach = this.guard!.check(this.trace!, proposed);
    if (breach) {
      const { promise, verdict } = breach;
      const record = this.write({
        ...bodyOf(call),
        blocked: true,
        error: recordableText(
          `refused by guard: promises[${promise.index}] (${promise.predicate}): ${verdict.reason}`,
        ),
      });
      log.log("warn", "guard.refused", {
        sessionId,
        seq: record.seq,
        tool: call.tool,
        predicate: promise.predicate,
      });
      throw new GuardRefusal(promise.predicate, promise.index, verdict.reason, record.seq);
    }
    return this.runAndRecord(call, run, (seq) => this.guard!.recorded(seq));
  }

  private async runAndRecord<T extends Json>(
    call: CallRecord,
    run: () => Promise<T>,
    recorded?: (seq: number) => void,
  ): Promise<T> {
    const body = bodyOf(call);
    let result: T;
    try {
      result = await run();
    } catch (e) {
      const record = this.writeAfterRun({ ...body, error: errorText(e) }, e);
      recorded?.(record.seq);
      throw e;
    }
    if (result === undefined) {
      const record = this.writeAfterRun(body);
      recorded?.(record.seq);
      return result;
    }
    // Copied once: what is stored is the result as it was returned, and a getter or Proxy
    // cannot make the write itself fail after the tool ran.
    const copy = snapshotResult(result);
    if ("error" in copy) {
      const record = this.writeAfterRun({ ...body, error: copy.error });
      recorded?.(record.seq);
      throw new UnrecordableResultError(
        `${call.tool} ran; ${copy.error} (recorded as its error at seq ${record.seq})`,
      );
    }
    const record = this.writeAfterRun({ ...body, result: copy.result });
    recorded?.(record.seq);
    return result;
  }

  private writeAfterRun(body: RecordBody, toolError?: unknown): TraceRecord {
    try {
      return this.write(body);
    } catch (e) {
      const tool = (body as CallRecord).tool;
      this.ctx.log.log("error", "record.lost", { sessionId: this.sessionId, tool, error: messageOf(e) });
      const failed = toolError === undefined ? "" : ` (the tool itself failed: ${errorText(toolError)})`;
      throw new RecordWriteError(
        `${tool} ran, but its record could not be stored${failed}: ${messageOf(e)}`,
        {
          cause: e,
        },
      );
    }
  }

  // ------------------------------------------------------------------------------------------ records

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
    return known === undefined ? this.write(body) : this.ctx.store.record(this.sessionId, known)!;
  }

  /** The one place records are appended: the store first, then the leaves, then the policy. */
  private write(body: RecordBody): TraceRecord {
    // A copy through canonical JSON: what is stored, hashed later and kept is exactly these
    // bytes, whatever the agent does with its own objects afterwards.
    const record = parseRecord(JSON.parse(canonicalJson({ ...body, seq: this.count, ts: Date.now() })));
    this.ctx.store.append(this.sessionId, record);
    this.track(record);
    this.checkpointer.recorded();
    return record;
  }

  /** Takes a stored record into the leaves, the guard's trace and the idempotency keys. */
  private track(record: TraceRecord): void {
    this.leaves.push(record);
    this.trace?.push(record);
    this.ledger.track(record);
  }

  // ------------------------------------------------------------------------------------------ close

  private async finish(): Promise<CloseResult> {
    const { store, escrow, log, policy } = this.ctx;
    const sessionId = this.sessionId;
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
    await this.checkpointer.supersede();
    const n = this.count;
    let stored: number;
    try {
      store.checkFile();
      stored = store.count(sessionId);
    } catch (e) {
      throw new SessionCloseError(`cannot read the trace store: ${messageOf(e)}`, { cause: e });
    }
    if (stored !== n) {
      throw new SessionCloseError(
        `session ${sessionId}: the store holds ${stored} records, the recorder acknowledged ${n}; not committing`,
      );
    }
    const root = this.leaves.root(n);
    const tx = await commitFinal({
      escrow,
      sessionId,
      n,
      root,
      retry: policy.retry,
      log,
      // Stores checkpoints that landed unseen, and refuses to close over one that disagrees.
      prepare: () => this.checkpointer.reconcile(),
    });
    return this.finished(n, root, tx);
  }

  private finished(n: number, root: bigint, tx: TxResult): CloseResult {
    this.ctx.store.addCheckpoint(this.sessionId, { n, root, final: true });
    this.ctx.store.releaseWriter(this.sessionId);
    this.leaves.dispose();
    this.state = "closed";
    this.closed = { finalN: n, finalRoot: root, txHash: tx.txHash, gasUsed: tx.gasUsed };
    this.ctx.log.log("info", "session.closed", { sessionId: this.sessionId, ...this.closed });
    return this.closed;
  }
}

function bodyOf(call: CallRecord): Omit<CallRecord, "seq" | "ts"> {
  const { seq: _seq, ts: _ts, ...body } = call;
  return body;
}

/** Takes the store's writer claim on the session for this process, or throws `type` saying who holds it. */
function claimWriter(
  store: TraceStore,
  sessionId: Hex,
  type: new (m: string, o?: ErrorOptions) => Error,
): void {
  try {
    store.claimWriter(sessionId);
  } catch (e) {
    if (!(e instanceof StoreConflictError)) throw e;
    throw new type(`session ${sessionId}: ${e.message}`, { cause: e });
  }
}
