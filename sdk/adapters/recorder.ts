// What every harness adapter shares: one HarnessRecorder per Session, used from the framework's own
// dispatch path. It has two ways in, one per kind of hook a framework offers:
// - run(): the adapter wraps the tool's execute function; Session.call runs it and records the result
//   or the error (AI SDK, MCP, LangChain middleware).
// - begin()/finish(): the framework reports a call's start and its end in two hooks (OpenAI Agents,
//   Claude Agent SDK, LangChain callbacks, OpenClaw). begin() hands Session.call a run() that waits for
//   finish(), so the call goes through the same checks, guard and store write as a wrapped one, and the
//   gate begin() returns says whether the framework may run the tool.
// The framework's call id is the record's actionId. A hook that fires twice for one call gets the first
// one's gate (OpenClaw fires before_tool_call up to 3 times, openclaw#15502), and a finished call's
// actionId replays its stored outcome instead of running again (sdk/provider/session-ledger.ts).
// Approvals become authorization records with approve(). No framework reports who decided in a way an
// adapter could trust, so the authority is always the integrator's to give: nothing here assumes "human".
import { canonicalJson, type Json } from "../core/canonical.js";
import {
  CallNotRunError,
  GuardRefusal,
  InputError,
  InvalidCallError,
  StoreUnavailableError,
  ZkvaiError,
  type ZkvaiErrorOptions,
} from "../core/errors.js";
import {
  AUTHORITIES,
  DECISIONS,
  SCOPES,
  type AuthorizationRecord,
  type TraceRecord,
} from "../core/records.js";
import type { Session } from "../provider/session.js";

export type Decision = AuthorizationRecord["decision"];
export type Authority = AuthorizationRecord["authority"];
export type Scope = AuthorizationRecord["scope"];
export type ToolArgs = { [k: string]: Json };

/** One tool invocation as the framework names it. */
export interface HarnessCall {
  /** The framework's id for this invocation (toolCallId, callId, …): the record's actionId. */
  callId: string;
  tool: string;
  args: ToolArgs;
}

/** An approval decision and who or what made it. */
export interface Approval {
  decision: Decision;
  /** Who decided: "human" (a person), "policy" (a rule, with policyId) or "auto_review" (a model). Required. */
  authority: Authority;
  /** What the decision covers; "once" (this invocation) unless given. */
  scope?: Scope;
  /** The rule that decided, required by AAP-1 when the authority is "policy". */
  policyId?: string;
}

/** Bad input from the integrator or the framework to an adapter: nothing was run or written. */
export class HarnessInputError extends InputError {
  static override readonly code: string = "BAD_HARNESS_INPUT";
  override name = "HarnessInputError";
}

/** The harness never reported how a begun call ended; finishPending() records it with this error. */
export class OutcomeUnknownError extends InputError {
  static override readonly code: string = "OUTCOME_UNKNOWN";
  override name = "OutcomeUnknownError";
}

/**
 * A tool call's approval did not come within its timeout: the reason the approver's AbortSignal carries (the
 * call itself is refused as "timeout", and recorded so).
 */
export class ApprovalTimeoutError extends ZkvaiError {
  static override readonly code: string = "APPROVAL_TIMEOUT";
  override name = "ApprovalTimeoutError";
}

/** What begin() tells the framework: run the tool, or refuse it with a reason the model can read. */
export type Gate =
  | {
      allowed: true;
      /** The actionId was already executed; its stored outcome stands and finish() is a no-op. */ replayed: boolean;
    }
  | { allowed: false; reason: string; error: unknown };

/** A call the guard refused, or one refused before it ran (bad call, store down in guard mode). */
export function isRefusal(e: unknown): e is GuardRefusal | StoreUnavailableError | InvalidCallError {
  return e instanceof GuardRefusal || e instanceof StoreUnavailableError || e instanceof InvalidCallError;
}

/** The text a model sees for a refused call. */
export function refusalText(tool: string, e: unknown): string {
  if (e instanceof GuardRefusal)
    return `zkVAI guard refused ${tool}: it would break promise ${e.promiseIndex} (${e.predicate}): ${e.reason}`;
  if (e instanceof StoreUnavailableError)
    return `zkVAI refused ${tool}: the trace store is unavailable, so it was not run`;
  return `zkVAI refused ${tool}: ${(e as Error)?.message ?? String(e)}`;
}

/** A framework's tool input as record args: an object, or nothing ({}); a JSON string is parsed first. */
export function toolArgs(tool: string, input: unknown): ToolArgs {
  let value = input;
  if (typeof value === "string") {
    try {
      value = value.trim() === "" ? {} : JSON.parse(value);
    } catch {
      throw new HarnessInputError(`${tool}: its input is a string that is not JSON`);
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new HarnessInputError(
      `${tool}: its input must be an object, got ${Array.isArray(value) ? "an array" : typeof value}`,
    );
  return value as ToolArgs;
}

/**
 * Thrown inside Session.call's run() to record a result the framework treats as a failure (an MCP
 * `isError` result) as the call's error, while the caller still gets the framework's own result.
 */
export class FailedResult<T> extends ZkvaiError {
  static override readonly code: string = "FAILED_RESULT";
  override name = "FailedResult";
  constructor(
    readonly value: T,
    message: string,
    options?: ZkvaiErrorOptions,
  ) {
    super(message, options);
  }
}

interface Pending {
  gate: Promise<Gate>;
  /** Session.call's promise: settles once the record is stored. */
  recorded: Promise<unknown>;
  settle?: (outcome: { result: unknown } | { error: unknown }) => void;
  /** Session.call invoked its run(): the harness may run the tool. */
  started: boolean;
  /** Why the gate was given up before it opened; the call can then no longer start. */
  abandoned?: string;
  abandon: (reason: string) => void;
}

export interface HarnessRecorderOptions {
  /**
   * How long begin() waits for a call to be admitted before refusing it (ms; default 10,000, under
   * OpenClaw's 15 s hook timeout). Only guard mode makes a call wait: it admits one at a time.
   */
  gateTimeoutMs?: number;
}

export class HarnessRecorder {
  private readonly pending = new Map<string, Pending>();
  private readonly lastApproval = new Map<string, { key: string; record: TraceRecord }>();

  private readonly gateTimeoutMs: number;

  constructor(
    readonly session: Session,
    opts: HarnessRecorderOptions = {},
  ) {
    const timeout = opts.gateTimeoutMs ?? 10_000;
    if (!(timeout > 0 && timeout <= 2 ** 31 - 1))
      throw new HarnessInputError(`gateTimeoutMs must be a positive number of milliseconds, got ${timeout}`);
    this.gateTimeoutMs = timeout;
  }

  /**
   * Runs a tool through Session.call with the framework's call id as its actionId: the result, or the
   * error (re-thrown), is stored before this settles, and the caller gets the tool's own value even when
   * the record can hold only a marker for it (sdk/provider/session-results.ts). A FailedResult thrown by execute is recorded as
   * the call's error and its value returned. A refusal (isRefusal) is thrown for the adapter to turn
   * into the framework's denial.
   */
  async run<T>(call: HarnessCall, execute: () => Promise<T>): Promise<T> {
    try {
      return (await this.session.call(call.tool, call.args, execute, {
        actionId: call.callId,
      })) as T;
    } catch (e) {
      if (e instanceof FailedResult) return e.value as T;
      throw e;
    }
  }

  /**
   * A call's start hook: the call is checked (and, in guard mode, guarded) as Session.call checks it,
   * then held open until finish(). Resolves once the framework may run the tool, or with the refusal.
   * Repeated for a call still open, it returns the first gate.
   * A gate that has not opened within `gateTimeoutMs`, or whose `signal` aborts first (the harness
   * stopped waiting: its hook timed out, a sibling call failed), resolves refused, and the call can no
   * longer start: when its turn comes it is stored as a blocked record (CallNotRunError), which no
   * predicate reads as executed. Without this, a call the harness gave up on would start later, hold
   * guard mode's one-at-a-time turn until the session closed, and read as executed.
   */
  begin(call: HarnessCall, opts: { signal?: AbortSignal } = {}): Promise<Gate> {
    const open = this.pending.get(call.callId);
    if (open) return open.gate;
    const entry: Pending = {
      gate: undefined as unknown as Promise<Gate>,
      recorded: undefined as unknown as Promise<unknown>,
      started: false,
      abandon: () => {},
    };
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const outcome = new Promise<unknown>((resolve, reject) => {
      entry.settle = (o) => ("error" in o ? reject(o.error) : resolve(o.result));
    });
    const abandoned = new Promise<Gate>((resolve) => {
      entry.abandon = (reason) => {
        if (entry.started || entry.abandoned !== undefined) return;
        entry.abandoned = reason;
        const error = new CallNotRunError(`not run: ${reason}`);
        resolve({ allowed: false, reason: `zkVAI refused ${call.tool}: ${reason}`, error });
      };
    });
    entry.recorded = this.session.call(
      call.tool,
      call.args,
      () => {
        if (entry.abandoned !== undefined)
          return Promise.reject(new CallNotRunError(`not run: ${entry.abandoned}`));
        entry.started = true;
        started();
        return outcome as Promise<Json>;
      },
      { actionId: call.callId },
    );
    entry.gate = Promise.race([
      running.then((): Gate => ({ allowed: true, replayed: false })),
      entry.recorded.then(
        (): Gate => ({ allowed: true, replayed: true }),
        (error): Gate => ({ allowed: false, reason: refusalText(call.tool, error), error }),
      ),
      abandoned,
    ]);
    // The record's outcome is the framework's business once the gate opened; it must not go unhandled.
    entry.recorded.catch(() => {});
    this.pending.set(call.callId, entry);
    const timer = setTimeout(
      () =>
        entry.abandon(
          `not admitted within ${this.gateTimeoutMs} ms (guard mode admits one call at a time, and an earlier one has not finished)`,
        ),
      this.gateTimeoutMs,
    );
    timer.unref?.();
    const onAbort = () => entry.abandon("the harness stopped waiting for it");
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    void entry.gate.then((gate) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if ((!gate.allowed || gate.replayed) && this.pending.get(call.callId) === entry)
        this.pending.delete(call.callId);
    });
    return entry.gate;
  }

  /**
   * A call's end hook: stores the result, or the error, of a call begin() let through, and resolves
   * once it is stored. A second end hook for the same call, or one with no begin, is a no-op.
   */
  async finish(callId: string, outcome: { result: unknown } | { error: unknown }): Promise<void> {
    const entry = this.pending.get(callId);
    if (!entry?.settle) return;
    const gate = await entry.gate;
    if (!gate.allowed || gate.replayed) return;
    this.pending.delete(callId);
    entry.settle(outcome);
    try {
      await entry.recorded;
    } catch (e) {
      // The tool's own error was recorded as the call's error; a record that could not be stored at all is
      // the caller's to hear about. (A result JSON cannot carry is recorded as a marker, not an error.)
      if ("error" in outcome && e === outcome.error) return;
      throw e;
    }
  }

  /**
   * Ends a call begin() let through that the harness then did not run (a permission prompt denied it,
   * the runtime dropped it): stored as a blocked record with the reason, which is not a call, so no
   * predicate reads it as executed and its actionId stays unconsumed. A no-op for a call not open.
   */
  async cancel(callId: string, reason: string): Promise<void> {
    const error = new CallNotRunError(reason);
    await this.finish(callId, { error });
  }

  /** Calls begun and not yet finished. */
  get open(): number {
    return this.pending.size;
  }

  /**
   * Ends every call begun and not finished, so Session.close() does not wait for them: one whose tool
   * started (the harness's end hook never came) is recorded with an OutcomeUnknownError; one whose gate
   * never opened can no longer start, and is stored as a blocked record. Call it before close().
   */
  async finishPending(reason = "the harness reported no outcome for this call"): Promise<number> {
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const entry of entries) {
      if (entry.started) entry.settle?.({ error: new OutcomeUnknownError(reason) });
      else entry.abandon("the session ended before it was admitted");
    }
    await Promise.allSettled(entries.map((e) => e.recorded));
    return entries.length;
  }

  /**
   * Records an approval decision for a call as an authorization record over its tool and args, before the
   * call's own record. The same decision over the same args repeated for a call (a hook that fires twice)
   * is written once; a different one (other args included) is a new record, and AAP-1 reads the latest.
   */
  approve(call: HarnessCall, approval: Approval): TraceRecord {
    const { decision, authority, policyId } = approval;
    const scope = approval.scope ?? "once";
    if (!AUTHORITIES.includes(authority))
      throw new HarnessInputError(
        `approval of ${call.tool} (${call.callId}): authority must be one of ${AUTHORITIES.join(", ")}, got ${JSON.stringify(authority)}; the adapter never assumes who decided`,
      );
    if (!DECISIONS.includes(decision))
      throw new HarnessInputError(
        `approval of ${call.tool}: decision must be one of ${DECISIONS.join(", ")}`,
      );
    if (!SCOPES.includes(scope))
      throw new HarnessInputError(`approval of ${call.tool}: scope must be one of ${SCOPES.join(", ")}`);
    const key = canonicalJson([call.tool, call.args, decision, authority, scope, policyId ?? null]);
    const last = this.lastApproval.get(call.callId);
    if (last?.key === key) return last.record;
    const record = this.session.authorize({
      actionId: call.callId,
      tool: call.tool,
      args: call.args,
      decision,
      authority,
      scope,
      ...(policyId !== undefined ? { policyId } : {}),
    });
    this.lastApproval.set(call.callId, { key, record });
    return record;
  }
}
