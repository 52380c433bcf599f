// A stand-in for the Claude Code runtime that query() spawns, for scripted runs and tests: it drives a
// scripted model and in-process MCP tools (the SDK's own tool() definitions) through the sequence the
// runtime documents for each tool_use: PreToolUse hooks (run in parallel; deny > ask > allow), then the
// permission step (an "ask", or a tool not in allowedTools, goes to canUseTool; without canUseTool it is
// denied and PermissionDenied fires), then the tool, then PostToolUse (success) or PostToolUseFailure
// (a throw or an isError result). Denials and failures reach the model as error tool results. Hook inputs
// are shaped as sdk.d.ts types them, so the adapter is exercised through the SDK's real types.
import type {
  CanUseTool,
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  HookJSONOutput,
  PermissionDeniedHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreToolUseHookInput,
  SdkMcpToolDefinition,
} from "@anthropic-ai/claude-agent-sdk";

export interface ToolUse {
  id: string;
  /** The name the model calls: mcp__<server>__<tool>. */
  name: string;
  input: Record<string, unknown>;
}
export interface ToolResult {
  tool_use_id: string;
  content: string;
  is_error: boolean;
}
/** What the model has been told so far: the prompt, its own turns, and the tool results it got. */
export type Turn =
  | { role: "user"; text: string }
  | { role: "assistant"; text: string; toolUses: ToolUse[] }
  | { role: "tool"; results: ToolResult[] };

export interface ScriptedReply {
  text: string;
  toolUses: ToolUse[];
}
export interface Model {
  reply(transcript: readonly Turn[]): ScriptedReply | Promise<ScriptedReply>;
}

export interface RuntimeOptions {
  prompt: string;
  model: Model;
  /** The in-process MCP server's name and its tools, as createSdkMcpServer would take them. */
  server: string;
  tools: readonly SdkMcpToolDefinition<any>[];
  hooks?: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  canUseTool?: CanUseTool;
  /** Tools (mcp__server__tool) the permission step allows without asking. */
  allowedTools?: readonly string[];
  maxTurns?: number;
}

export interface RuntimeRun {
  transcript: Turn[];
  toolCalls: number;
  output: string;
}

type ToolOutput = Awaited<ReturnType<SdkMcpToolDefinition["handler"]>>;

const BASE = {
  session_id: "scripted-session",
  transcript_path: "/dev/null",
  cwd: "/",
  permission_mode: "default",
};

function matches(m: HookCallbackMatcher, toolName: string): boolean {
  if (m.matcher === undefined || m.matcher === "" || m.matcher === "*") return true;
  return new RegExp(`^(?:${m.matcher})$`).test(toolName);
}

/** Runs an event's matching hooks in parallel; a throw is a warning, or a block under onFailure "block". */
async function runHooks(
  hooks: RuntimeOptions["hooks"],
  input: HookInput & { tool_name: string; tool_use_id: string },
): Promise<{ outputs: HookJSONOutput[]; failed?: string }> {
  const matchers = (hooks?.[input.hook_event_name] ?? []).filter((m) => matches(m, input.tool_name));
  const signal = new AbortController().signal;
  let failed: string | undefined;
  const outputs = await Promise.all(
    matchers.flatMap((m) =>
      m.hooks.map((hook) =>
        hook(input, input.tool_use_id, { signal }).catch((e: unknown): HookJSONOutput => {
          if (m.onFailure === "block") failed = `hook failed: ${(e as Error)?.message ?? String(e)}`;
          return {};
        }),
      ),
    ),
  );
  return { outputs, ...(failed !== undefined ? { failed } : {}) };
}

function preDecision(outputs: HookJSONOutput[]): { decision?: string; reason?: string } {
  let best: { decision?: string; reason?: string } = {};
  const rank = (d?: string) => (d === "deny" ? 3 : d === "ask" ? 2 : d === "allow" ? 1 : 0);
  for (const o of outputs) {
    const spec = "hookSpecificOutput" in o ? o.hookSpecificOutput : undefined;
    if (spec?.hookEventName !== "PreToolUse") continue;
    if (rank(spec.permissionDecision) > rank(best.decision))
      best = { decision: spec.permissionDecision, reason: spec.permissionDecisionReason };
  }
  return best;
}

const textOf = (out: ToolOutput) =>
  out.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");

/** One tool_use through hooks, permission, the tool and the end hooks; returns what the model gets. */
async function dispatch(o: RuntimeOptions, use: ToolUse): Promise<ToolResult> {
  const base = { ...BASE, tool_name: use.name, tool_input: use.input, tool_use_id: use.id };
  const refused = (content: string): ToolResult => ({ tool_use_id: use.id, content, is_error: true });
  const pre = await runHooks(o.hooks, {
    ...base,
    hook_event_name: "PreToolUse",
  } satisfies PreToolUseHookInput);
  const { decision, reason } = preDecision(pre.outputs);
  if (pre.failed) return refused(pre.failed);
  if (decision === "deny") return refused(reason ?? "denied by a PreToolUse hook");
  let input = use.input;
  const allowed = o.allowedTools?.includes(use.name) ?? false;
  if (decision === "ask" || (decision !== "allow" && !allowed)) {
    if (!o.canUseTool) {
      const message = `permission to use ${use.name} was not granted (no permission prompt surface)`;
      await runHooks(o.hooks, {
        ...base,
        hook_event_name: "PermissionDenied",
        reason: message,
      } satisfies PermissionDeniedHookInput);
      return refused(message);
    }
    const answer = await o.canUseTool(use.name, use.input, {
      signal: new AbortController().signal,
      toolUseID: use.id,
      requestId: `req-${use.id}`,
      ...(reason !== undefined ? { decisionReason: reason } : {}),
    });
    if (answer === null || answer.behavior === "deny") return refused(answer?.message ?? "denied");
    input = answer.updatedInput ?? input;
  }
  const short = use.name.slice(use.name.lastIndexOf("__") + 2);
  const def = o.tools.find((t) => t.name === short);
  let out: ToolOutput;
  try {
    if (!def) throw new Error(`No such tool available: ${use.name}`);
    out = await def.handler(input as never, {});
  } catch (e) {
    // The in-process MCP server turns a handler's throw into an isError result, as MCP servers do.
    out = { isError: true, content: [{ type: "text", text: (e as Error)?.message ?? String(e) }] };
  }
  const ran = { ...base, tool_input: input };
  if (out.isError) {
    const error = textOf(out);
    await runHooks(o.hooks, {
      ...ran,
      hook_event_name: "PostToolUseFailure",
      error,
    } satisfies PostToolUseFailureHookInput);
    return { tool_use_id: use.id, content: error, is_error: true };
  }
  await runHooks(o.hooks, {
    ...ran,
    hook_event_name: "PostToolUse",
    tool_response: out.content,
  } satisfies PostToolUseHookInput);
  return { tool_use_id: use.id, content: textOf(out), is_error: false };
}

/** Runs the agent loop until the model answers without tool calls (or maxTurns). */
export async function runScripted(o: RuntimeOptions): Promise<RuntimeRun> {
  const transcript: Turn[] = [{ role: "user", text: o.prompt }];
  let toolCalls = 0;
  for (let turn = 0; turn < (o.maxTurns ?? 16); turn++) {
    const reply = await o.model.reply(transcript);
    transcript.push({ role: "assistant", text: reply.text, toolUses: reply.toolUses });
    if (reply.toolUses.length === 0) return { transcript, toolCalls, output: reply.text };
    const results: ToolResult[] = [];
    for (const use of reply.toolUses) {
      toolCalls++;
      results.push(await dispatch(o, use));
    }
    transcript.push({ role: "tool", results });
  }
  return { transcript, toolCalls, output: "stopped: maxTurns reached" };
}
