// Running a tool call that passed its checks. A known actionId replays the stored outcome, so
// a retried call never runs its tool twice. Guard mode runs calls one at a time, so each check
// sees the trace its call extends, and records a refusal instead of running the tool; it reserves
// each call's record in the store before the tool runs (docs/PROTOCOL.md "Recording faults"). Whatever
// the tool returns or throws, its record is stored before the call settles; a run() that throws
// CallNotRunError (the harness refused the tool after all) is stored as a blocked record.
import { AsyncLocalStorage } from "node:async_hooks";
import { Guard } from "./guard.js";
import { messageOf } from "../core/record-checks.js";
import type { CallRecord, RecordBody, TraceRecord } from "../core/records.js";
import type { IdempotencyLedger } from "./session-ledger.js";
import { errorText, recordableText } from "./session-limits.js";
import { observableResult, storedResult } from "./session-results.js";
import type { SessionContext } from "./session-options.js";
import {
  CallNotRunError,
  GuardRefusal,
  InvalidCallError,
  RecordWriteError,
  RecordedToolError,
  StoreUnavailableError,
} from "../core/errors.js";

/** The CallRunner whose guarded call is running its tool in this async context, if any. */
const insideGuardedRun = new AsyncLocalStorage<CallRunner>();

/** The Session's side of a call: the seq its record would get, and the one way to store it. */
export interface CallRecorder {
  count(): number;
  write(body: RecordBody): TraceRecord;
  /** Guard mode: reserves a record in the store, keeping `fallback` there until complete(); its id. */
  reserve(fallback: RecordBody): number;
  /** Stores the record of the reservation reserve() returned, at the next seq. */
  complete(reservation: number, body: RecordBody): TraceRecord;
}

/**
 * What a guarded call's record says when the process stopped after its seq was reserved and before its
 * outcome was stored: the tool may or may not have run (Session.recover stores it; docs/PROTOCOL.md).
 */
export const OUTCOME_UNKNOWN = "outcome unknown: the process stopped while the tool ran";

export class CallRunner {
  /** The stored trace, kept in memory for guard mode's oracles only. */
  private readonly trace: TraceRecord[] | undefined;
  private readonly guard: Guard | undefined;
  private guardTurn: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: SessionContext,
    private readonly ledger: IdempotencyLedger,
    private readonly recorder: CallRecorder,
  ) {
    this.trace = ctx.guard ? [] : undefined;
    this.guard = ctx.guard ? new Guard(ctx.promises, ctx.profile) : undefined;
  }

  /** Takes a stored record into the guard's trace. */
  track(record: TraceRecord): void {
    this.trace?.push(record);
  }

  async run<T>(call: CallRecord, run: () => Promise<T>): Promise<T> {
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

  private replay<T>(seq: number): T {
    const { store, log, sessionId } = this.ctx;
    const record = store.record(sessionId, seq) as CallRecord;
    log.log("info", "call.replayed", { sessionId, seq, actionId: record.actionId });
    if (record.error !== undefined) throw new RecordedToolError(record.error, seq);
    return record.result as T;
  }

  private execute<T>(call: CallRecord, run: () => Promise<T>): Promise<T> {
    if (!this.guard) return this.runAndRecord(call, run);
    // A recorded call made from inside a guarded call's tool (an agent used as a tool, a subagent) would
    // wait for the turn its own caller holds: refused at once instead of deadlocking.
    if (insideGuardedRun.getStore() === this)
      return Promise.reject(
        new InvalidCallError(
          `call ${JSON.stringify(call.tool)}: made while another call of this session runs its tool; guard mode checks calls one at a time, so a nested call cannot be guarded (record nested agents in a session of their own)`,
        ),
      );
    const turn = this.guardTurn.then(() => this.guarded(call, run));
    this.guardTurn = turn.then(
      () => {},
      () => {},
    );
    return turn;
  }

  private async guarded<T>(call: CallRecord, run: () => Promise<T>): Promise<T> {
    const { log, sessionId } = this.ctx;
    // The record is reserved in the store before anything runs (P8): a store that cannot take this write
    // (disk full, lock held past its retries, file lost) refuses the call here, and one that took it
    // holds an "outcome unknown" record for it until the outcome replaces it.
    let reservation: number;
    try {
      reservation = this.recorder.reserve({ ...bodyOf(call), error: OUTCOME_UNKNOWN });
    } catch (e) {
      log.log("warn", "guard.store_unavailable", { sessionId, tool: call.tool, error: messageOf(e) });
      throw new StoreUnavailableError(`${call.tool} was not run: ${messageOf(e)}`, { cause: e });
    }
    const proposed: CallRecord = { ...call, seq: this.recorder.count(), ts: Date.now() };
    const breach = this.guard!.check(this.trace!, proposed);
    if (breach) {
      const { promise, verdict } = breach;
      const record = this.completeReserved(reservation, {
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
    return this.runAndRecord(
      call,
      () => insideGuardedRun.run(this, run),
      (seq) => this.guard!.recorded(seq),
      reservation,
    );
  }

  /**
   * Completes a reservation with `body`; if that write fails and the body carries a result, with an error
   * record saying why the result was not stored (a smaller write, e.g. on a disk that filled while the tool
   * ran). When neither goes in, the reservation's "outcome unknown" record stays, and recovery stores it.
   */
  private completeReserved(reservation: number, body: RecordBody): TraceRecord {
    try {
      return this.recorder.complete(reservation, body);
    } catch (e) {
      // Only a write that failed for its size can go in smaller; a held lock would hold the second one too.
      const full = /^SQLITE_(FULL|IOERR)/.test(String((e as { code?: unknown })?.code ?? ""));
      if (!full || !("result" in body) || body.result === undefined) throw e;
      const { result: _result, ...rest } = body;
      return this.recorder.complete(reservation, {
        ...rest,
        error: recordableText(`the result could not be stored: ${messageOf(e)}`),
      } as RecordBody);
    }
  }

  private async runAndRecord<T>(
    call: CallRecord,
    run: () => Promise<T>,
    recorded?: (seq: number) => void,
    reserved?: number,
  ): Promise<T> {
    const body = bodyOf(call);
    let result: T;
    try {
      result = await run();
    } catch (e) {
      if (e instanceof CallNotRunError) {
        // Not a call: a blocked record documents it, consumes no actionId, and the guard's cached
        // verdicts (computed as if the call ran) are not adopted.
        this.writeAfterRun({ ...body, blocked: true, error: errorText(e) }, reserved);
        throw e;
      }
      const record = this.writeAfterRun({ ...body, error: errorText(e) }, reserved, e);
      recorded?.(record.seq);
      throw e;
    }
    if (result === undefined) {
      const record = this.writeAfterRun(body, reserved);
      recorded?.(record.seq);
      return result;
    }
    // Copied once: what is stored is the result as it was returned, and a getter or Proxy cannot make
    // the write itself fail after the tool ran. What cannot be stored as it is becomes a marker saying
    // so, never an error: the tool ran, and the agent gets its value (sdk/provider/session-results.ts).
    const stored = observableResult(call, storedResult(result), this.ctx.profile);
    const record = this.writeAfterRun({ ...body, result: stored.result }, reserved);
    recorded?.(record.seq);
    if (stored.unstorable !== undefined)
      this.ctx.log.log("warn", "call.result_unstorable", {
        sessionId: this.ctx.sessionId,
        seq: record.seq,
        tool: call.tool,
        reason: stored.unstorable,
      });
    return result;
  }

  /** Stores a call's record after its tool ran, completing its reservation in guard mode. */
  private writeAfterRun(body: RecordBody, reserved?: number, toolError?: unknown): TraceRecord {
    try {
      return reserved === undefined ? this.recorder.write(body) : this.completeReserved(reserved, body);
    } catch (e) {
      const tool = (body as CallRecord).tool;
      this.ctx.log.log("error", "record.lost", { sessionId: this.ctx.sessionId, tool, error: messageOf(e) });
      const failed = toolError === undefined ? "" : ` (the tool itself failed: ${errorText(toolError)})`;
      // In guard mode the reservation's "outcome unknown" record stays at its seq (Session.recover stores it).
      const kept =
        reserved === undefined ? "" : `; its reservation keeps an "${OUTCOME_UNKNOWN}" record until recovery`;
      throw new RecordWriteError(
        `${tool} ran, but its record could not be stored${failed}${kept}: ${messageOf(e)}`,
        {
          cause: e,
        },
      );
    }
  }
}

/** A checked call without its position, which the write assigns. */
export function bodyOf(call: CallRecord): Omit<CallRecord, "seq" | "ts"> {
  const { seq: _seq, ts: _ts, ...body } = call;
  return body;
}
