// Which OpenClaw tool call a hook firing belongs to, the plugin's state for each call in flight, and
// how after_tool_call's report of a call becomes its recorded outcome.
// OpenClaw's toolCallId is optional and is the model provider's id, which recurs across sessions and
// runs (counters such as "call_0"), so a call is keyed, and its record's actionId named, by
// <sessionKey or sessionId>/<runId>/<toolCallId>. A firing without a toolCallId gets a minted id; its
// after_tool_call is matched to the oldest open minted call of the same session, run, tool and params.
// A before_tool_call for a key still open is a repeated firing of the same call (openclaw#15502: the
// tool wrapped twice), never a new call.
import { randomUUID } from "node:crypto";
import type { Session } from "../session.js";
import type { Gate, HarnessCall, HarnessRecorder } from "./recorder.js";
import { OutcomeUnknownError, toolArgs } from "./recorder.js";
import { CallNotRunError, ZkvaiError } from "../core/errors.js";
import type {
  PluginApprovalResolution,
  PluginHookAfterToolCallEvent,
  PluginHookBeforeToolCallEvent,
  PluginHookToolContext,
} from "./openclaw-api.js";

/** One tool call between its first before_tool_call and its after_tool_call. */
export interface OpenCall {
  /** The record's actionId. */
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
  private readonly byKey = new Map<string, OpenCall>();
  /** Open calls with a minted id, oldest first, by session/run/tool. */
  private readonly mintedBy = new Map<string, OpenCall[]>();

  /** The call a before_tool_call firing belongs to; `fresh` when this is its first firing. */
  before(
    event: PluginHookBeforeToolCallEvent,
    ctx: PluginHookToolContext,
    recorder: HarnessRecorder,
  ): { entry: OpenCall; fresh: boolean } {
    const toolCallId = event.toolCallId ?? ctx.toolCallId;
    const where = scope(event, ctx);
    if (toolCallId !== undefined && toolCallId !== "") {
      const key = `${where}/${toolCallId}`;
      const open = this.byKey.get(key);
      if (open) return { entry: open, fresh: false };
      const entry = this.create(key, event, recorder);
      this.byKey.set(key, entry);
      return { entry, fresh: true };
    }
    // Only here is the params' JSON taken: a firing without an id has nothing else to be matched on.
    const bucket = `${where}/${event.toolName}`;
    const params = paramsText(event.params);
    const repeat = this.mintedBy.get(bucket)?.find((c) => c.minted!.params === params);
    if (repeat) return { entry: repeat, fresh: false };
    const entry = this.create(`${where}/zkvai-${randomUUID()}`, event, recorder);
    entry.minted = { bucket, params };
    this.byKey.set(entry.key, entry);
    this.mintedBy.set(bucket, [...(this.mintedBy.get(bucket) ?? []), entry]);
    return { entry, fresh: true };
  }

  /** The open call an after_tool_call firing ends, taken out of the map; undefined if none. */
  after(event: PluginHookAfterToolCallEvent, ctx: PluginHookToolContext): OpenCall | undefined {
    const toolCallId = event.toolCallId ?? ctx.toolCallId;
    const where = scope(event, ctx);
    let entry: OpenCall | undefined;
    if (toolCallId !== undefined && toolCallId !== "") entry = this.byKey.get(`${where}/${toolCallId}`);
    else {
      const list = this.mintedBy.get(`${where}/${event.toolName}`) ?? [];
      const params = paramsText(event.params);
      entry = list.find((c) => c.minted!.params === params) ?? list[0];
    }
    if (entry) this.remove(entry);
    return entry;
  }

  /** Forgets every open call of a recorder (its session is closing). */
  forget(recorder: HarnessRecorder): void {
    for (const entry of [...this.byKey.values()]) if (entry.recorder === recorder) this.remove(entry);
  }

  get size(): number {
    return this.byKey.size;
  }

  private create(key: string, event: PluginHookBeforeToolCallEvent, recorder: HarnessRecorder): OpenCall {
    return {
      key,
      recorder,
      call: { callId: key, tool: event.toolName, args: toolArgs(event.toolName, event.params) },
    };
  }

  private remove(entry: OpenCall): void {
    this.byKey.delete(entry.key);
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
