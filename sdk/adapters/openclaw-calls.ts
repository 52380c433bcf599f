// Which OpenClaw tool call a hook firing belongs to, the plugin's state for each call in flight, and
// how after_tool_call's report of a call becomes its recorded outcome.
// OpenClaw's toolCallId is optional and is the model provider's id, which recurs across sessions and
// runs, and within a run for providers with per-turn counters ("call_0"), so a call is keyed by
// <sessionKey or sessionId>/<runId>/<toolCallId>, and its record's actionId is that key the first time
// and <key>#2, #3, … for each later call under a key whose call already ended: a finished actionId
// would replay its stored outcome (or, with other args, be refused), but OpenClaw cannot replay, so the
// tool would run again unrecorded and unguarded.
// A before_tool_call for a key still open is a repeated firing of the same call (openclaw#15502: the
// tool wrapped twice), never a new call. Without a toolCallId nothing tells a repeated firing from a
// second call with the same tool and params (OpenClaw fires the repeat after the first firing
// returned, and may run two identical calls at once), so each firing is a call of its own, with a
// minted id: a repeat is recorded twice (over-recorded, never merged). Its after_tool_call finishes the
// oldest open minted call of the same session, run, tool and params, once.
import { randomUUID } from "node:crypto";
import type { Session } from "../provider/session.js";
import type { Gate, HarnessCall, HarnessRecorder } from "./recorder.js";
import { OutcomeUnknownError, toolArgs } from "./recorder.js";
import { CallNotRunError, IdempotencyConflictError, ZkvaiError } from "../core/errors.js";
import type {
  PluginApprovalResolution,
  PluginHookAfterToolCallEvent,
  PluginHookBeforeToolCallEvent,
  PluginHookToolContext,
} from "./openclaw-api.js";

/** One tool call between its first before_tool_call and its after_tool_call. */
export interface OpenCall {
  /** What its hook firings name: <where>/<toolCallId>, or <where>/zkvai-<uuid> for a minted id. */
  base: string;
  /** The record's actionId: `base`, or `base#n` when calls under `base` were begun before. */
  key: string;
  call: HarnessCall;
  recorder: HarnessRecorder;
  /** Set once the call was begun on the recorder (at once, or once an approval allowed it). */
  gate?: Promise<Gate>;
  /** Set while an OpenClaw approval is pending; resolves with OpenClaw's resolution. */
  approval?: Promise<PluginApprovalResolution>;
  resolution?: PluginApprovalResolution;
  /** Why the plugin told OpenClaw to block this call (so the tool did not run); repeats get the same. */
  blocked?: string;
  /** For a minted id: where its after_tool_call is looked for, and the params it must match. */
  minted?: { bucket: string; params: string };
}

/** A gate for an actionId an earlier call already used: replayed, or refused for its other args. */
export function reusedKey(gate: Gate): boolean {
  return gate.allowed ? gate.replayed : gate.error instanceof IdempotencyConflictError;
}

const part = (s: string | undefined) => (s === undefined || s === "" ? "-" : s);

function scope(event: { runId?: string }, ctx: PluginHookToolContext): string {
  return `${part(ctx.sessionKey ?? ctx.sessionId)}/${part(event.runId ?? ctx.runId)}`;
}

function paramsText(params: unknown): string {
  try {
    return JSON.stringify(params) ?? "";
  } catch {
    return "";
  }
}

export class OpenCalls {
  /** Open calls with a toolCallId, by base. */
  private readonly byBase = new Map<string, OpenCall>();
  /** Open calls with a minted id, oldest first, by session/run/tool. */
  private readonly mintedBy = new Map<string, OpenCall[]>();
  private readonly open = new Set<OpenCall>();
  /** Per recorder, how many actionIds each base was given (`base`, `base#2`, …). */
  private readonly uses = new WeakMap<HarnessRecorder, Map<string, number>>();

  /** The call a before_tool_call firing belongs to; `fresh` when this is its first firing. */
  before(
    event: PluginHookBeforeToolCallEvent,
    ctx: PluginHookToolContext,
    recorder: HarnessRecorder,
  ): { entry: OpenCall; fresh: boolean } {
    const toolCallId = event.toolCallId ?? ctx.toolCallId;
    const where = scope(event, ctx);
    if (toolCallId !== undefined && toolCallId !== "") {
      const base = `${where}/${toolCallId}`;
      const open = this.byBase.get(base);
      if (open) return { entry: open, fresh: false };
      // A base whose call ended is a new call: it gets the next key, never the used one.
      const entry = this.create(base, event, recorder);
      this.byBase.set(base, entry);
      return { entry, fresh: true };
    }
    // Only here is the params' JSON taken: a firing without an id has nothing else to be matched on.
    const bucket = `${where}/${event.toolName}`;
    const entry = this.create(`${where}/zkvai-${randomUUID()}`, event, recorder);
    entry.minted = { bucket, params: paramsText(event.params) };
    this.mintedBy.set(bucket, [...(this.mintedBy.get(bucket) ?? []), entry]);
    return { entry, fresh: true };
  }

  /** The open call an after_tool_call firing ends, taken out (so nothing ends it twice); undefined if none. */
  after(event: PluginHookAfterToolCallEvent, ctx: PluginHookToolContext): OpenCall | undefined {
    const toolCallId = event.toolCallId ?? ctx.toolCallId;
    const where = scope(event, ctx);
    let entry: OpenCall | undefined;
    if (toolCallId !== undefined && toolCallId !== "") entry = this.byBase.get(`${where}/${toolCallId}`);
    else {
      const list = this.mintedBy.get(`${where}/${event.toolName}`) ?? [];
      const params = paramsText(event.params);
      entry = list.find((c) => c.minted!.params === params) ?? list[0];
    }
    if (entry) this.remove(entry);
    return entry;
  }

  /** Gives an open call the next unused key of its base (the store already held its key). */
  renew(entry: OpenCall): void {
    entry.key = this.nextKey(entry.recorder, entry.base);
    entry.call = { ...entry.call, callId: entry.key };
  }

  /** Forgets every open call of a recorder (its session is closing). */
  forget(recorder: HarnessRecorder): void {
    for (const entry of [...this.open]) if (entry.recorder === recorder) this.remove(entry);
    this.uses.delete(recorder);
  }

  get size(): number {
    return this.open.size;
  }

  private nextKey(recorder: HarnessRecorder, base: string): string {
    let uses = this.uses.get(recorder);
    if (!uses) this.uses.set(recorder, (uses = new Map()));
    const n = (uses.get(base) ?? 0) + 1;
    uses.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  }

  private create(base: string, event: PluginHookBeforeToolCallEvent, recorder: HarnessRecorder): OpenCall {
    const key = this.nextKey(recorder, base);
    const entry: OpenCall = {
      base,
      key,
      recorder,
      call: { callId: key, tool: event.toolName, args: toolArgs(event.toolName, event.params) },
    };
    this.open.add(entry);
    return entry;
  }

  private remove(entry: OpenCall): void {
    this.open.delete(entry);
    if (this.byBase.get(entry.base) === entry) this.byBase.delete(entry.base);
    if (!entry.minted) return;
    const rest = (this.mintedBy.get(entry.minted.bucket) ?? []).filter((c) => c !== entry);
    if (rest.length) this.mintedBy.set(entry.minted.bucket, rest);
    else this.mintedBy.delete(entry.minted.bucket);
  }
}

/** A tool error as OpenClaw reports it in after_tool_call (a string). */
export class OpenClawToolError extends ZkvaiError {
  static override readonly code: string = "OPENCLAW_TOOL_ERROR";
  override name = "OpenClawToolError";
}

/** What after_tool_call says about how the call ended, as Session.call should record it. */
export function outcomeOf(event: PluginHookAfterToolCallEvent): { result: unknown } | { error: unknown } {
  const details = detailsOf(event.result);
  if (details?.status === "approval-pending")
    return {
      error: new OutcomeUnknownError(
        `${event.toolName} is waiting for exec approval ${String(details.approvalId ?? "")}: OpenClaw reports the command's outcome to no plugin hook`,
      ),
    };
  if (event.error !== undefined) return { error: new OpenClawToolError(event.error) };
  // Another plugin's gate (or OpenClaw's loop detection) stopped it after this plugin let it through.
  if (details?.status === "blocked")
    return { error: new CallNotRunError(`not run: OpenClaw blocked it: ${String(details.reason ?? "")}`) };
  return { result: event.result };
}

function detailsOf(result: unknown): Record<string, unknown> | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const outer = result as Record<string, unknown>;
  const details = outer.details;
  return typeof details === "object" && details !== null ? (details as Record<string, unknown>) : outer;
}

export function appendRan(
  session: Session,
  entry: OpenCall,
  outcome: { result: unknown } | { error: unknown },
): void {
  const { tool, args } = entry.call;
  const base = { kind: "call" as const, tool, args, actionId: entry.key };
  if ("error" in outcome) {
    session.append({ ...base, error: (outcome.error as Error).message });
    return;
  }
  if (outcome.result === undefined) {
    session.append(base);
    return;
  }
  try {
    session.append({ ...base, result: JSON.parse(JSON.stringify(outcome.result)) });
  } catch (e) {
    session.append({ ...base, error: `ran; its result is not recordable: ${String(e)}` });
  }
}
