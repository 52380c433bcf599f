// A stand-in for OpenClaw's plugin host and embedded agent runner, for Node 20 (OpenClaw 2026.9.6 needs
// Node >= 24.16). It loads plugin entries through an `api` of the mirrored types
// (sdk/adapters/openclaw-api.ts) and runs a model's tool calls the way OpenClaw's runner does, as read
// in the package's dist (agent-tools.before-tool-call-*.mjs, hooks-*.mjs, builtin-openclaw-*.mjs):
// - before_tool_call handlers run one at a time, highest priority first, each on its own copy of the
//   event, each under its timeoutMs (15 s unless registered with one). The first block stops the chain;
//   the first requireApproval wins. A throw or a timeout blocks the call (fail-closed) with OpenClaw's
//   generic text.
// - requireApproval: the approval surface (`approver`; without one, there is no approval route) decides;
//   onResolution is called with the decision and not awaited. allow-once/-always run the tool; deny,
//   cancelled and timeout do not (a timeout with timeoutReason becomes a blocked result).
// - a block is a tool result whose text is the blockReason; a denied approval or a failed hook is a tool
//   error; so is a tool that throws.
// - after_tool_call fires once the tool ended, and the runner goes on without awaiting it.
// - `repeatBeforeToolCall` fires before_tool_call again per call, as a tool wrapped twice does
//   (openclaw#15502, #92973): the outer wrapper's hook and approval, then the inner one's, then the tool.
import type {
  DefinePluginEntryOptions,
  OpenClawPluginApi,
  PluginApprovalResolution,
  PluginHookAfterToolCallEvent,
  PluginHookBeforeToolCallEvent,
  PluginHookBeforeToolCallResult,
  PluginHookHandlerMap,
  PluginHookName,
  PluginHookRegistrationOptions,
  PluginHookToolContext,
} from "../../sdk/adapters/openclaw-api.js";

export interface ToolResult {
  content: { type: "text"; text: string }[];
  details?: unknown;
}
export interface FakeTool {
  name: string;
  execute(toolCallId: string | undefined, params: Record<string, unknown>): Promise<ToolResult>;
}
export interface ModelToolCall {
  /** The provider's tool call id; OpenClaw's toolCallId is optional. */
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}
export interface ModelReply {
  text: string;
  toolCalls: ModelToolCall[];
}
export interface ToolOutcome {
  toolCallId?: string;
  toolName: string;
  text: string;
  isError: boolean;
}
/** What the model is given each turn. */
export type Turn =
  | { role: "user"; text: string }
  | { role: "assistant"; reply: ModelReply }
  | { role: "tool"; results: ToolOutcome[] };
export interface FakeModel {
  name: string;
  reply(transcript: readonly Turn[]): Promise<ModelReply>;
}

export type ApprovalRequest = NonNullable<PluginHookBeforeToolCallResult["requireApproval"]> & {
  toolName: string;
  toolCallId?: string;
};
/** Who answers an approval: OpenClaw's Control UI, a channel's /approve, or an approval bot. */
export type Approver = (
  request: ApprovalRequest,
) => Promise<PluginApprovalResolution> | PluginApprovalResolution;

export interface RunOptions {
  model: FakeModel;
  tools: FakeTool[];
  task: string;
  session?: { agentId?: string; sessionKey?: string; sessionId?: string; runId?: string };
  approver?: Approver;
  repeatBeforeToolCall?: number;
  /** Drop the model's tool call ids, as some runtimes do. */
  withoutToolCallIds?: boolean;
  /** Tools whose after_tool_call never fires (openclaw#155081). */
  noAfterToolCall?: readonly string[];
  maxTurns?: number;
}
export interface RunResult {
  output: string;
  toolCalls: number;
  transcript: Turn[];
}

export const HOOK_FAILURE_REASON = "Tool call blocked because before_tool_call hook failed";
export const DENIED_REASON = "Denied by user. The tool call did not run.";
const DEFAULT_HOOK_TIMEOUT_MS = 15_000;

interface Registration {
  pluginId: string;
  hookName: PluginHookName;
  handler: (event: never, ctx: PluginHookToolContext) => unknown;
  opts: PluginHookRegistrationOptions;
}
type Gate = { blocked: false } | { blocked: true; veto: boolean; reason: string };

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms}ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export class FakeOpenClaw {
  readonly hooks: Registration[] = [];
  readonly logs: string[] = [];

  /** What OpenClaw does with a plugin module's default export. */
  load(entry: DefinePluginEntryOptions): void {
    const log = (level: string) => (message: string) => void this.logs.push(`${level}: ${message}`);
    const api: OpenClawPluginApi = {
      id: entry.id,
      name: entry.name,
      logger: { info: log("info"), warn: log("warn"), error: log("error") },
      on: (hookName: PluginHookName, handler: PluginHookHandlerMap[PluginHookName], opts = {}) =>
        void this.hooks.push({
          pluginId: entry.id,
          hookName,
          handler: handler as Registration["handler"],
          opts,
        }),
    };
    entry.register(api);
  }

  private handlers(name: PluginHookName): Registration[] {
    return this.hooks
      .filter((h) => h.hookName === name)
      .sort((a, b) => (b.opts.priority ?? 0) - (a.opts.priority ?? 0));
  }

  /** The sequential, merging, fail-closed before_tool_call run. */
  private async beforeToolCall(event: PluginHookBeforeToolCallEvent, ctx: PluginHookToolContext) {
    let merged: PluginHookBeforeToolCallResult | undefined;
    for (const hook of this.handlers("before_tool_call")) {
      const result = (await withTimeout(
        Promise.resolve(hook.handler(structuredClone(event) as never, ctx)),
        hook.opts.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
      )) as PluginHookBeforeToolCallResult | undefined;
      if (!result) continue;
      merged = {
        params: merged?.requireApproval ? merged.params : (result.params ?? merged?.params),
        block: merged?.block === true || result.block === true,
        blockReason: result.blockReason ?? merged?.blockReason,
        requireApproval:
          merged?.requireApproval ??
          (result.requireApproval ? { ...result.requireApproval, pluginId: hook.pluginId } : undefined),
      };
      if (merged.block) break;
    }
    return merged;
  }

  private async gate(
    event: PluginHookBeforeToolCallEvent,
    ctx: PluginHookToolContext,
    approver: Approver | undefined,
  ): Promise<Gate> {
    let result: PluginHookBeforeToolCallResult | undefined;
    try {
      result = await this.beforeToolCall(event, ctx);
    } catch {
      return { blocked: true, veto: false, reason: HOOK_FAILURE_REASON };
    }
    if (result?.block)
      return { blocked: true, veto: true, reason: result.blockReason || "Tool call blocked by plugin hook" };
    const approval = result?.requireApproval;
    if (!approval) return { blocked: false };
    const allowed = approval.allowedDecisions ?? ["allow-once", "allow-always", "deny"];
    let decision: PluginApprovalResolution = "cancelled";
    if (approver) {
      const given = await approver({ ...approval, toolName: event.toolName, toolCallId: event.toolCallId });
      decision = given === "cancelled" || given === "timeout" || allowed.includes(given) ? given : "timeout";
    }
    try {
      void Promise.resolve(approval.onResolution?.(decision)).catch((e) => this.logs.push(`warn: ${e}`));
    } catch (e) {
      this.logs.push(`warn: plugin onResolution callback failed: ${String(e)}`);
    }
    if (decision === "allow-once" || decision === "allow-always") return { blocked: false };
    if (decision === "deny") return { blocked: true, veto: false, reason: DENIED_REASON };
    if (decision === "timeout")
      return approval.timeoutReason
        ? { blocked: true, veto: true, reason: approval.timeoutReason }
        : { blocked: true, veto: false, reason: "Approval timed out" };
    return { blocked: true, veto: false, reason: "Plugin approval unavailable (no approval route)" };
  }

  /** Fires after_tool_call's handlers in parallel; the runner does not wait for them. */
  private afterToolCall(event: PluginHookAfterToolCallEvent, ctx: PluginHookToolContext): void {
    for (const hook of this.handlers("after_tool_call")) {
      void Promise.resolve()
        .then(() => hook.handler(event as never, ctx))
        .catch((e) => this.logs.push(`error: after_tool_call handler from ${hook.pluginId} failed: ${e}`));
    }
  }

  private async runTool(
    call: ModelToolCall,
    tool: FakeTool | undefined,
    opts: RunOptions,
  ): Promise<ToolOutcome> {
    const s = opts.session ?? {};
    const toolCallId = opts.withoutToolCallIds ? undefined : call.id;
    const event = { toolName: call.name, params: call.arguments, runId: s.runId, toolCallId };
    const ctx: PluginHookToolContext = { ...s, toolName: call.name, toolCallId };
    const started = Date.now();
    let result: ToolResult | undefined;
    let error: string | undefined;
    for (
      let i = 0;
      i <= (opts.repeatBeforeToolCall ?? 0) && result === undefined && error === undefined;
      i++
    ) {
      const gate = await this.gate(event, ctx, opts.approver);
      if (!gate.blocked) continue;
      if (gate.veto)
        result = {
          content: [{ type: "text", text: gate.reason }],
          details: { status: "blocked", deniedReason: "plugin-before-tool-call", reason: gate.reason },
        };
      else error = gate.reason;
    }
    if (result === undefined && error === undefined) {
      try {
        if (!tool) throw new Error(`Tool ${call.name} not found`);
        result = await tool.execute(toolCallId, call.arguments);
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
    }
    if (!opts.noAfterToolCall?.includes(call.name))
      this.afterToolCall({ ...event, result, error, durationMs: Date.now() - started }, ctx);
    const text = error ?? result!.content.map((c) => c.text).join("\n");
    return { ...(toolCallId ? { toolCallId } : {}), toolName: call.name, text, isError: error !== undefined };
  }

  /** The agent loop: the model's tool calls run one after another; results go back to the model. */
  async run(opts: RunOptions): Promise<RunResult> {
    const transcript: Turn[] = [{ role: "user", text: opts.task }];
    const tools = new Map(opts.tools.map((t) => [t.name, t]));
    let toolCalls = 0;
    for (let turn = 0; turn < (opts.maxTurns ?? 30); turn++) {
      const reply = await opts.model.reply(transcript);
      transcript.push({ role: "assistant", reply });
      if (reply.toolCalls.length === 0) return { output: reply.text, toolCalls, transcript };
      const results: ToolOutcome[] = [];
      for (const call of reply.toolCalls) {
        results.push(await this.runTool(call, tools.get(call.name), opts));
        toolCalls++;
      }
      transcript.push({ role: "tool", results });
    }
    return { output: "stopped: too many turns", toolCalls, transcript };
  }
}

/** Text tool results, as OpenClaw's tools return them. */
export const textResult = (text: string, details?: unknown): ToolResult => ({
  content: [{ type: "text", text }],
  ...(details !== undefined ? { details } : {}),
});
