// zkVAI for OpenClaw (2026.9.6): a native plugin that records every tool call of the sessions it insures.
// OpenClaw is not imported: the plugin is plain data and functions shaped like definePluginEntry's
// argument (the types it follows are mirrored in ./openclaw-api.ts). The integrator writes
//   export default definePluginEntry(zkvaiPlugin({ recorderFor, approvals }))
// and maps each OpenClaw session to the HarnessRecorder of its zkVAI Session in `recorderFor`.
//
// What is recorded: each call OpenClaw reports through `before_tool_call` (tool, params as args) and
// `after_tool_call` (the tool's result as OpenClaw reports it, or its error string), under the actionId
// <sessionKey|sessionId>/<runId>/<toolCallId>: toolCallId alone recurs across sessions, and is optional
// (a missing one is minted; ./openclaw-calls.ts). A toolCallId that recurs after its call ended is a
// new call, recorded as <key>#2, #3, …, never a replay of the old record. Repeated before_tool_call
// firings for a call still open (openclaw#15502) are one record; without a toolCallId they cannot be
// told from a second identical call, and each is recorded (over-recorded, never merged).
// after_tool_call is fired and not awaited by the embedded runner, and may never come
// (openclaw#155081): call drain(recorder) before Session.close(), which waits for the after hooks
// still running and records calls that never ended as OutcomeUnknownError. An exec whose
// command waits for an exec approval ends with an `approval-pending` result, which is not its outcome:
// it is recorded at once as OutcomeUnknownError (no plugin hook ever reports that command's outcome, and
// an open call would hold up every later call in guard mode, which runs calls one at a time).
//
// Where it can block: in before_tool_call, which OpenClaw awaits. A guard refusal (Session opened with
// guard), a store that is down, a call zkVAI cannot record (a tool outside the profile) or any failure
// inside the plugin returns { block: true, blockReason }, and OpenClaw hands blockReason (refusalText)
// to the model as the tool's result. A throw would block too (before_tool_call fails closed in
// OpenClaw, as does its 15 s hook timeout), but the model would read only OpenClaw's generic text.
// In guard mode a call waits there for the calls before it to end (the guard checks them in order), so
// an end that never comes gets the later calls blocked by that timeout.
//
// Approvals: for the tools in `approvals.tools` the plugin returns { requireApproval } and OpenClaw asks
// an operator (its Control UI, a channel's /approve, the embedded broker). OpenClaw calls onResolution
// with the decision only: allow-once, allow-always, deny, timeout or cancelled. It says nothing about who
// resolved it (the Gateway's `plugin.approval.resolved` event carries resolvedBy, but only to operator
// clients), so the authority recorded is the one the integrator configures for the deployment's
// approvers. allow-once/-always/deny/timeout become an authorization record (scope once; persistent for
// allow-always, which is offered only with `allowAlways`); cancelled (no approval route, gateway down,
// run aborted) is not a decision and records nothing; OpenClaw does not run the tool then. An allowed
// call is begun in onResolution, so its guard check sees the authorization. OpenClaw neither awaits
// onResolution nor lets it block: if the guard refuses an approved call, OpenClaw runs it anyway, and
// the plugin appends the call it reports as run after the blocked record, so the trace does not claim
// it was prevented. Exec approvals (exec's own allowlist and /approve flow) reach no plugin hook and
// are not recorded: gate a tool through `approvals` to have its consent on record.
// What OpenClaw cannot tell the plugin: who approved; the outcome of an exec approved later; params
// another plugin rewrote (each handler sees the model's params; run this one last, the default
// priority); whether a call another plugin's approval stopped after this plugin let it through ran
// (recorded as the error after_tool_call reports).
import { AUTHORITIES } from "../core/records.js";
import {
  HarnessInputError,
  refusalText,
  type Approval,
  type Authority,
  type Gate,
  type HarnessCall,
  type HarnessRecorder,
} from "./recorder.js";
import { OpenCalls, appendRan, outcomeOf, reusedKey, type OpenCall } from "./openclaw-calls.js";
import type {
  DefinePluginEntryOptions,
  OpenClawPluginApi,
  PluginApprovalResolution,
  PluginHookAfterToolCallEvent,
  PluginHookBeforeToolCallEvent,
  PluginHookBeforeToolCallResult,
  PluginHookToolContext,
  PluginLogger,
} from "./openclaw-api.js";

export { HarnessInputError, HarnessRecorder, OutcomeUnknownError } from "./recorder.js";
export { OpenClawToolError } from "./openclaw-calls.js";
export type * from "./openclaw-api.js";

/** Tools that need an OpenClaw approval before they run, and who resolves those approvals. */
export interface OpenClawApprovals {
  tools: readonly string[];
  /**
   * Who resolves OpenClaw's approvals in this deployment: "human" (operators), "policy" (an approval
   * bot; give policyId) or "auto_review". Required: onResolution does not say, and zkVAI never assumes.
   */
  authority: Authority;
  policyId?: string;
  /** Offer allow-always (recorded with scope "persistent"; the next call still asks). Default: false. */
  allowAlways?: boolean;
  /** OpenClaw's approval timeout (default 120 s, at most 600 s); a timeout is recorded as "timeout". */
  timeoutMs?: number;
  /** The text the model reads when an approval times out. */
  timeoutReason?: string;
  severity?: "info" | "warning" | "critical";
  title?: (call: HarnessCall) => string;
  description?: (call: HarnessCall) => string;
}

export interface ZkvaiPluginOptions {
  /** The recorder of the zkVAI Session that insures this OpenClaw session; undefined: not insured. */
  recorderFor: (ctx: PluginHookToolContext) => HarnessRecorder | undefined;
  approvals?: OpenClawApprovals;
  /** Hook priority; OpenClaw runs higher first. Default -1000: after other plugins' gates. */
  priority?: number;
  /**
   * before_tool_call's timeout (OpenClaw: 15 s); guard mode waits there for the calls before. Keep the
   * recorder's gateTimeoutMs (10 s by default) below it, so zkVAI refuses a waiting call with its reason.
   */
  hookTimeoutMs?: number;
  id?: string;
}

/** definePluginEntry's argument, plus what an integrator calls before closing a session. */
export interface ZkvaiPlugin extends DefinePluginEntryOptions {
  /** Resolves when every after_tool_call handler running now has stored its record. */
  idle(): Promise<void>;
  /** Before Session.close(): idle(), then records each call of `recorder` that never ended; returns how many. */
  drain(recorder: HarnessRecorder, reason?: string): Promise<number>;
}

const DECISION = {
  "allow-once": "allow",
  "allow-always": "allow",
  deny: "deny",
  timeout: "timeout",
  cancelled: undefined,
} as const satisfies Record<PluginApprovalResolution, string | undefined>;

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
/** How many keys a call tries when the store already holds each (a recovered session): then it is refused. */
const MAX_RENEWALS = 16;

function checkOptions(opts: ZkvaiPluginOptions): void {
  if (typeof opts?.recorderFor !== "function")
    throw new HarnessInputError(
      "zkvaiPlugin: recorderFor(ctx) must be a function returning a HarnessRecorder",
    );
  const a = opts.approvals;
  if (!a) return;
  if (!Array.isArray(a.tools) || a.tools.length === 0 || a.tools.some((t) => typeof t !== "string"))
    throw new HarnessInputError("zkvaiPlugin: approvals.tools must name at least one tool");
  if (!AUTHORITIES.includes(a.authority))
    throw new HarnessInputError(
      `zkvaiPlugin: approvals.authority must be one of ${AUTHORITIES.join(", ")}: OpenClaw does not report who resolved an approval, so the integrator must say`,
    );
  if (a.authority === "policy" && !a.policyId)
    throw new HarnessInputError("zkvaiPlugin: approvals.policyId is required when the authority is policy");
}

/** The zkVAI plugin entry: pass it to OpenClaw's definePluginEntry. */
export function zkvaiPlugin(opts: ZkvaiPluginOptions): ZkvaiPlugin {
  checkOptions(opts);
  const approvals = opts.approvals;
  const gated = new Set(approvals?.tools ?? []);
  const calls = new OpenCalls();
  const running = new Set<Promise<void>>();
  let log: PluginLogger | undefined;

  const refuse = (entry: OpenCall | undefined, reason: string): PluginHookBeforeToolCallResult => {
    if (entry) entry.blocked = reason;
    return { block: true, blockReason: reason };
  };
  const verdict = (entry: OpenCall, gate: Gate) => (gate.allowed ? undefined : refuse(entry, gate.reason));

  async function beforeToolCall(event: PluginHookBeforeToolCallEvent, ctx: PluginHookToolContext) {
    let entry: OpenCall | undefined;
    try {
      const recorder = opts.recorderFor(ctx);
      if (!recorder) return;
      const found = calls.before(event, ctx, recorder);
      entry = found.entry;
      if (!found.fresh) return await repeated(entry);
      if (gated.has(event.toolName)) return askApproval(entry);
      entry.gate = start(entry);
      return verdict(entry, await entry.gate);
    } catch (e) {
      // Blocked, not thrown: OpenClaw would block a throw too, but the model would not read why.
      return refuse(entry, refusalText(event.toolName, e));
    }
  }

  /**
   * Begins a call under a key no earlier call used. OpenClaw cannot replay a stored outcome: a replayed
   * gate (the store holds a call under this key that this plugin did not see end: a recovered session)
   * would let the tool run again unrecorded, so the call is begun again under its base's next key, with
   * its approval recorded again for that key (AAP-1 matches an authorization by actionId).
   */
  async function start(entry: OpenCall, approval?: Approval): Promise<Gate> {
    for (let tries = 1; ; tries++) {
      const gate = await entry.recorder.begin(entry.call);
      if (!reusedKey(gate)) return gate;
      if (tries === MAX_RENEWALS) {
        const error = new HarnessInputError(
          `the trace already holds calls under ${entry.base} and ${MAX_RENEWALS - 1} of its next keys; it was not run`,
        );
        return { allowed: false, reason: refusalText(entry.call.tool, error), error };
      }
      calls.renew(entry);
      if (approval) authorize(entry, approval);
    }
  }

  function authorize(entry: OpenCall, approval: Approval): void {
    try {
      entry.recorder.approve(entry.call, approval);
    } catch (e) {
      log?.error(
        `zkVAI: the ${approval.decision} for ${entry.call.tool} (${entry.key}) was not recorded: ${String(e)}`,
      );
    }
  }

  /** A repeated firing for a call already seen gets that call's answer; it never asks twice. */
  async function repeated(entry: OpenCall): Promise<PluginHookBeforeToolCallResult | undefined> {
    if (entry.blocked !== undefined) return refuse(entry, entry.blocked);
    if (entry.approval && entry.resolution === undefined) await entry.approval;
    if (entry.gate) return verdict(entry, await entry.gate);
    return refuse(
      entry,
      `zkVAI: the approval of ${entry.call.tool} ended ${entry.resolution}; it was not run`,
    );
  }

  function askApproval(entry: OpenCall): PluginHookBeforeToolCallResult {
    const a = approvals!;
    const { call } = entry;
    let settle!: (d: PluginApprovalResolution) => void;
    entry.approval = new Promise((resolve) => (settle = resolve));
    return {
      requireApproval: {
        title: clip(a.title?.(call) ?? `Approve ${call.tool}`, 80),
        description: clip(a.description?.(call) ?? `${call.tool} ${JSON.stringify(call.args)}`, 512),
        severity: a.severity ?? "warning",
        ...(a.timeoutMs !== undefined ? { timeoutMs: a.timeoutMs } : {}),
        ...(a.timeoutReason !== undefined ? { timeoutReason: a.timeoutReason } : {}),
        allowedDecisions: a.allowAlways ? ["allow-once", "allow-always", "deny"] : ["allow-once", "deny"],
        onResolution: (d) => {
          try {
            resolved(entry, d);
          } finally {
            settle(d);
          }
        },
      },
    };
  }

  /** OpenClaw's decision, synchronously: the authorization is stored before the tool can run. */
  function resolved(entry: OpenCall, d: PluginApprovalResolution): void {
    if (entry.resolution !== undefined) return;
    entry.resolution = d;
    const decision = DECISION[d];
    if (decision === undefined) return;
    const { authority, policyId } = approvals!;
    const approval: Approval = {
      decision,
      authority,
      scope: d === "allow-always" ? "persistent" : "once",
      ...(policyId !== undefined ? { policyId } : {}),
    };
    authorize(entry, approval);
    // OpenClaw runs an allowed call whatever happens here, so it is begun even without its authorization.
    if (decision === "allow") entry.gate = start(entry, approval);
  }

  async function observe(event: PluginHookAfterToolCallEvent, ctx: PluginHookToolContext): Promise<void> {
    const entry = calls.after(event, ctx);
    // Not insured, blocked by this plugin, or not approved: OpenClaw did not run it.
    if (!entry?.gate || entry.blocked !== undefined) return;
    const gate = await entry.gate;
    const outcome = outcomeOf(event);
    if (gate.allowed) return entry.recorder.finish(entry.key, outcome);
    // Only an approved call gets here: the guard refused it after onResolution, and OpenClaw ran it.
    appendRan(entry.recorder.session, entry, outcome);
  }

  function afterToolCall(event: PluginHookAfterToolCallEvent, ctx: PluginHookToolContext): Promise<void> {
    const done = observe(event, ctx).catch((e) => {
      log?.error(`zkVAI: ${event.toolName} ran, but its record was not stored: ${String(e)}`);
    });
    running.add(done);
    void done.finally(() => running.delete(done));
    return done;
  }

  async function idle(): Promise<void> {
    while (running.size > 0) await Promise.all([...running]);
  }

  return {
    id: opts.id ?? "zkvai",
    name: "zkVAI",
    description: "Records every tool call into a zkVAI session; blocks calls its guard refuses.",
    register(api: OpenClawPluginApi) {
      log = api.logger;
      const priority = opts.priority ?? -1000;
      const timeout = opts.hookTimeoutMs !== undefined ? { timeoutMs: opts.hookTimeoutMs } : {};
      api.on("before_tool_call", beforeToolCall, { priority, ...timeout });
      api.on("after_tool_call", afterToolCall, { priority });
    },
    idle,
    async drain(recorder, reason) {
      await idle();
      calls.forget(recorder);
      return recorder.finishPending(reason);
    },
  };
}
