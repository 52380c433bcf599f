// zkVAI for the Claude Agent SDK (@anthropic-ai/claude-agent-sdk 0.3): an `options` fragment for
// query({ prompt, options: { ...adapter.options, ... } }) made of hooks and a canUseTool.
// - Recorded: every tool call the runtime reports through PreToolUse and PostToolUse / PostToolUseFailure
//   (built-in and MCP tools alike): the tool (mcp__<server>__<tool> becomes <tool>, the profile's name),
//   its input, and tool_response as the result, or the failure's text as the call's error (an MCP result
//   with isError too). The tool_use id is the record's actionId. A PreToolUse that fires twice for a call
//   records once (HarnessRecorder.begin).
// - Blocks: in PreToolUse. A guard refusal (Session opened with guard), a store that is down, or a call
//   zkVAI cannot record (a tool outside the profile) answers permissionDecision "deny" with refusalText
//   as the reason, which the model reads as the tool's result; the run goes on. The matcher is registered
//   with onFailure "block", so a failing zkVAI hook blocks the call instead of letting it run unrecorded.
// - Approvals: `approvals.decide` answers canUseTool with a decision and who made it, and becomes an
//   authorization record (recorder.approve) before the call's record. For the tools in
//   `approvals.tools`, PreToolUse answers "ask": the SDK then sends every call to canUseTool, and zkVAI
//   records the call only after the decision, so an approval precedes the call it covers (what AAP-1
//   reads) and a denied or timed-out call leaves only its authorization record. `approvals.timeout`
//   turns a missing answer into a "timeout" decision.
// - Cannot tell: who decided, anywhere. The SDK also decides without canUseTool (deny and allow rules,
//   allowedTools, permission modes such as bypassPermissions, acceptEdits, dontAsk, auto mode's classifier,
//   PermissionRequest hooks, a permission-prompt MCP tool): those decisions reach no callback here and leave no
//   authorization record, so a gated tool allowed that way is recorded as a call without an approval
//   (an AAP-1 violation, truthfully). A call of an unlisted tool is recorded at PreToolUse; if canUseTool's
//   decider, or an SDK refusal reported through PermissionDenied, then stops it, zkVAI ends its record as
//   a blocked record ("not run: …", HarnessRecorder.cancel), which no predicate reads as an executed call.
//   Refusals PermissionDenied does not report (another PreToolUse hook's deny, a deny rule overriding a
//   hook's allow or ask, a path-scoped deny rule for Read/Edit/Write; sdk.d.ts, SDKPermissionDeniedMessage)
//   leave the call open until finishPending(). Calls the runtime never reports (no PreToolUse) are not recorded.
// - Rewritten input: the args shown to the decider, authorized, recorded and run are one copy. For an
//   approval tool that is canUseTool's input (another PreToolUse hook's updatedInput included), returned
//   to the SDK as updatedInput; a call recorded at PreToolUse whose input then changes is denied in
//   canUseTool, and one whose PostToolUse / PostToolUseFailure tool_input differs from its record (a
//   rewrite that reached no canUseTool) is recorded with an error that says so, not with its result.
// In guard mode a recorded call holds the guard until its end hook, so calls run one at a time.
// Call finishPending() before session.close(): calls whose end never came are recorded as unknown.
import type {
  CanUseTool,
  HookCallback,
  HookCallbackMatcher,
  HookEvent,
  HookJSONOutput,
  PermissionResult,
} from "@anthropic-ai/claude-agent-sdk";
import { canonicalJson, type Json } from "../core/canonical.js";
import { InvalidCallError } from "../core/errors.js";
import { messageOf } from "../core/record-checks.js";
import { recordableText, snapshotArgs } from "../provider/session-limits.js";
import { storedResult } from "../provider/session-results.js";
import type { Session } from "../provider/session.js";
import { ask, checkApprovals, denialText, type ClaudeAgentApprovals } from "./claude-agent-sdk-approvals.js";
import {
  HarnessInputError,
  HarnessRecorder,
  refusalText,
  toolArgs,
  type HarnessCall,
  type ToolArgs,
} from "./recorder.js";

export {
  type ApprovalAnswer,
  type ApprovalRequest,
  type CanUseToolContext,
  type ClaudeAgentApprovals,
  type Decider,
} from "./claude-agent-sdk-approvals.js";
export { HarnessInputError, HarnessRecorder, type Approval, type Authority } from "./recorder.js";

export interface ClaudeAgentAdapterOptions {
  /** Approvals through canUseTool; without it the fragment has no canUseTool and the SDK decides alone. */
  approvals?: ClaudeAgentApprovals;
  /** The profile's name for an SDK tool name. Default: mcp__<server>__<tool> → <tool>, others unchanged. */
  toolName?: (sdkName: string) => string;
}

/** The part of query()'s Options the adapter supplies. Merge your own hooks into these lists. */
export interface ClaudeAgentOptionsFragment {
  canUseTool?: CanUseTool;
  hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
}

/** mcp__<server>__<tool> → <tool>; a built-in tool's name (Bash, Write, …) is kept. */
export function profileToolName(sdkName: string): string {
  if (!sdkName.startsWith("mcp__")) return sdkName;
  const cut = sdkName.indexOf("__", 5);
  return cut < 0 ? sdkName : sdkName.slice(cut + 2);
}

const NOTHING: HookJSONOutput = {};
const preDecision = (decision: "deny" | "ask", reason: string): HookJSONOutput => ({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: decision,
    permissionDecisionReason: reason,
  },
});
const deny = (callId: string, message: string, interrupt = false): PermissionResult => ({
  behavior: "deny",
  message,
  toolUseID: callId,
  ...(interrupt ? { interrupt } : {}),
});
const alreadyRan = (tool: string, callId: string) =>
  `zkVAI: ${tool} call ${callId} already ran in this session; its recorded outcome stands and it is not run again`;

/** MCP's failed-call shape, `{ isError: true, content: [{ type: "text", text }] }`, as its text. */
function errorResultText(response: unknown): string | undefined {
  if (
    typeof response !== "object" ||
    response === null ||
    (response as { isError?: unknown }).isError !== true
  )
    return undefined;
  const content = (response as { content?: unknown }).content;
  const texts = Array.isArray(content)
    ? content.map((c) => (typeof c?.text === "string" ? c.text : "")).filter((t) => t !== "")
    : [];
  return texts.length > 0 ? texts.join("\n") : "the tool returned an error result";
}

export class ClaudeAgentAdapter {
  readonly options: ClaudeAgentOptionsFragment;
  /** Calls of approval tools seen at PreToolUse and not yet decided: recorded only once allowed. */
  private readonly deferred = new Map<string, HarnessCall>();
  /** Calls recorder.begin() let through whose end the runtime has not reported yet: their recorded args. */
  private readonly begun = new Map<string, string>();
  private readonly approvals: ClaudeAgentApprovals | undefined;
  private readonly askFor: ReadonlySet<string>;
  private readonly toolName: (sdkName: string) => string;

  constructor(
    readonly recorder: HarnessRecorder,
    opts: ClaudeAgentAdapterOptions = {},
  ) {
    if (opts.approvals) checkApprovals(opts.approvals);
    this.approvals = opts.approvals;
    this.askFor = new Set(opts.approvals?.tools ?? []);
    this.toolName = opts.toolName ?? profileToolName;
    this.options = {
      hooks: {
        PreToolUse: [{ hooks: [this.preToolUse], onFailure: "block" }],
        PostToolUse: [{ hooks: [this.postToolUse] }],
        PostToolUseFailure: [{ hooks: [this.postToolUseFailure] }],
        PermissionDenied: [{ hooks: [this.permissionDenied] }],
      },
      ...(this.approvals ? { canUseTool: this.canUseTool } : {}),
    };
  }

  /**
   * The call as zkVAI records it: its args are a copy of the SDK's input, as the Session would store
   * them (InvalidCallError for input it cannot), so nobody holding the SDK's object can change them.
   */
  private callOf(sdkName: string, input: unknown, callId: string | undefined): HarnessCall {
    if (typeof callId !== "string" || callId === "")
      throw new HarnessInputError(`claude-agent-sdk: ${sdkName}: the SDK gave no tool_use id`);
    const tool = this.toolName(sdkName);
    return { callId, tool, args: snapshotArgs(tool, toolArgs(tool, input)) };
  }

  /** Before the permission checks: records the call (guarded), or defers an approval tool's call. */
  readonly preToolUse: HookCallback = async (input, toolUseID) => {
    if (input.hook_event_name !== "PreToolUse") return NOTHING;
    let call: HarnessCall;
    try {
      call = this.callOf(input.tool_name, input.tool_input, input.tool_use_id ?? toolUseID);
    } catch (e) {
      if (e instanceof InvalidCallError)
        return preDecision("deny", refusalText(this.toolName(input.tool_name), e));
      throw e;
    }
    if (this.askFor.has(call.tool) && !this.begun.has(call.callId)) {
      this.deferred.set(call.callId, call);
      return preDecision("ask", `zkVAI records an approval for every ${call.tool} call`);
    }
    const gate = await this.recorder.begin(call);
    if (!gate.allowed) return preDecision("deny", gate.reason);
    if (gate.replayed) return preDecision("deny", alreadyRan(call.tool, call.callId));
    this.begun.set(call.callId, argsKey(call.args));
    return NOTHING;
  };

  readonly postToolUse: HookCallback = async (input, toolUseID) => {
    if (input.hook_event_name !== "PostToolUse") return NOTHING;
    const failed = errorResultText(input.tool_response);
    const outcome = failed !== undefined ? { error: failed } : { result: input.tool_response };
    await this.ended(input.tool_use_id ?? toolUseID, outcome, input.tool_input);
    return NOTHING;
  };

  readonly postToolUseFailure: HookCallback = async (input, toolUseID) => {
    if (input.hook_event_name !== "PostToolUseFailure") return NOTHING;
    const error = input.is_interrupt ? `interrupted: ${input.error}` : input.error;
    await this.ended(input.tool_use_id ?? toolUseID, { error }, input.tool_input);
    return NOTHING;
  };

  /**
   * The SDK refused a call after PreToolUse without a permission prompt (a deny rule, dontAsk mode,
   * auto mode's classifier). Not reported here (sdk.d.ts, SDKPermissionDeniedMessage): another
   * PreToolUse hook's deny, a deny rule overriding a hook's allow or ask, a path-scoped deny rule for a
   * file tool; such a call stays open until finishPending().
   */
  readonly permissionDenied: HookCallback = async (input, toolUseID) => {
    if (input.hook_event_name !== "PermissionDenied") return NOTHING;
    const callId = input.tool_use_id ?? toolUseID ?? "";
    if (this.deferred.delete(callId)) return NOTHING; // never recorded, never run: nothing to store
    if (this.begun.has(callId)) await this.notRun(callId, `Claude Code denied it: ${input.reason}`);
    return NOTHING;
  };

  readonly canUseTool: CanUseTool = async (toolName, input, context) => {
    const approvals = this.approvals;
    if (!approvals) throw new HarnessInputError("claude-agent-sdk: canUseTool needs `approvals`");
    const callId = context?.toolUseID;
    if (typeof callId !== "string" || callId === "")
      throw new HarnessInputError(`claude-agent-sdk: ${toolName}: the SDK gave no tool_use id`);
    const tool = this.toolName(toolName);
    const seen = this.deferred.get(callId);
    this.deferred.delete(callId);
    const recorded = this.begun.get(callId);
    const begun = recorded !== undefined;
    // A call recorded at PreToolUse that will not run must still end, or close() waits for it.
    const fail = async (e: unknown): Promise<never> => {
      if (begun) await this.notRun(callId, `its approval failed: ${messageOf(e)}`);
      throw e;
    };
    const refuse = async (why: string, told = `zkVAI: ${tool} was not run: ${why}`) => {
      if (begun) await this.notRun(callId, why);
      return deny(callId, told);
    };
    // What the SDK runs if allowed is this input (returned as updatedInput below), so it is the one the
    // decider is shown, the authorization covers and the call record holds: never the PreToolUse input,
    // which another PreToolUse hook's updatedInput may since have replaced (the decider would approve
    // one call and the tool run another, with a trace that matches the approval).
    let call: HarnessCall;
    try {
      call = this.callOf(toolName, input, callId);
    } catch (e) {
      if (e instanceof InvalidCallError) return refuse(messageOf(e), refusalText(tool, e));
      return fail(e);
    }
    // A call recorded at PreToolUse keeps the args it was recorded with: were its input changed since, the
    // record would not say what ran, and a started record cannot be changed, so it is refused. An approval
    // tool's call has no record yet, so the input the SDK now has is the call; the decider is told when it
    // differs from what the model asked for (preToolUseArgs).
    if (begun && argsKey(call.args) !== recorded)
      return refuse(
        "its input changed after PreToolUse recorded the call (another PreToolUse hook's updatedInput?), so its record would not say what ran",
      );
    const rewritten = seen !== undefined && argsKey(seen.args) !== argsKey(call.args);
    // The decider gets its own copy: what it does to it changes neither the authorization nor what runs.
    const asked = await ask(approvals, {
      call: { ...call, args: copyOf(call.args) },
      sdkToolName: toolName,
      context,
      ...(rewritten ? { preToolUseArgs: copyOf(seen.args) } : {}),
    }).catch(fail);
    if ("aborted" in asked) return refuse("its permission prompt was aborted");
    const { answer } = asked;
    let approved = call;
    try {
      if (answer.decision === "allow" && answer.updatedInput !== undefined) {
        if (begun)
          throw new HarnessInputError(
            `claude-agent-sdk: ${tool}: updatedInput works only for tools in approvals.tools; this call was recorded at PreToolUse with the model's input`,
          );
        approved = { ...call, args: snapshotArgs(tool, toolArgs(tool, answer.updatedInput)) };
      }
      this.recorder.approve(approved, answer);
    } catch (e) {
      return fail(e);
    }
    if (answer.decision !== "allow") {
      const message = denialText(tool, answer);
      if (begun) await this.notRun(callId, message);
      return deny(callId, message, answer.interrupt === true);
    }
    if (!begun) {
      // Recorded now, after its authorization: the guard (if on) checks it with the approval in the trace.
      const gate = await this.recorder.begin(approved);
      if (!gate.allowed) return deny(callId, gate.reason);
      if (gate.replayed) return deny(callId, alreadyRan(tool, callId));
      this.begun.set(callId, argsKey(approved.args));
    }
    // Always the recorded copy, so the tool runs with exactly the args authorized and recorded.
    return { behavior: "allow", updatedInput: copyOf(approved.args), toolUseID: callId };
  };

  /**
   * A call's end: stores its outcome; an approval tool's call that ran without canUseTool is appended.
   * `ranWith` is the end hook's tool_input: when it differs from the recorded args, the tool ran with other
   * input than the record says, and the outcome is recorded as an error saying so.
   */
  private async ended(
    callId: string | undefined,
    outcome: { result: unknown } | { error: string },
    ranWith: unknown,
  ) {
    if (callId === undefined) return;
    const late = this.deferred.get(callId);
    const recorded = late ? argsKey(late.args) : this.begun.get(callId);
    if (recorded !== undefined && ranWith !== undefined) {
      const other = otherInput(ranWith, recorded);
      if (other !== undefined)
        outcome = {
          error: `the tool ran with input other than the recorded args (${other}); ${"error" in outcome ? `it failed: ${outcome.error}` : "its result is not recorded"}`,
        };
    }
    if (late) {
      // The runtime ran it without asking canUseTool (e.g. a mode that overrides "ask"): nothing could be
      // blocked any more, so the record says what happened, without an approval.
      this.deferred.delete(callId);
      const end = "error" in outcome ? { error: recordableText(outcome.error) } : resultOf(outcome.result);
      this.recorder.session.append({
        kind: "call",
        tool: late.tool,
        args: late.args,
        actionId: callId,
        ...end,
      });
      return;
    }
    this.begun.delete(callId);
    await this.recorder.finish(callId, "error" in outcome ? { error: new Error(outcome.error) } : outcome);
  }

  private async notRun(callId: string, why: string): Promise<void> {
    this.begun.delete(callId);
    await this.recorder.cancel(callId, `not run: ${why}`);
  }

  /** Records every call begun and never ended with an OutcomeUnknownError. Call it before session.close(). */
  finishPending(): Promise<number> {
    this.begun.clear();
    this.deferred.clear();
    return this.recorder.finishPending();
  }
}

/** The canonical JSON of recorded args: two inputs are the same call's iff their keys are equal. */
function argsKey(args: ToolArgs): string {
  return canonicalJson(args);
}

function copyOf(args: ToolArgs): ToolArgs {
  return JSON.parse(argsKey(args)) as ToolArgs;
}

/** An end hook's tool_input, described, when it is not the recorded args; undefined when it is. */
function otherInput(ranWith: unknown, recorded: string): string | undefined {
  let key: string;
  try {
    key = canonicalJson(toolArgs("tool", ranWith));
  } catch {
    return "PostToolUse reported a tool_input JSON cannot carry";
  }
  return key === recorded ? undefined : `PostToolUse reported tool_input ${key}`;
}

/** A late result as its record holds it: as Session.call would store it (a marker when it cannot be stored). */
function resultOf(result: unknown): { result?: Json } {
  return result === undefined ? {} : { result: storedResult(result).result };
}

/** One adapter per Session (or over a HarnessRecorder shared with other helpers). */
export function recordClaudeAgent(
  target: Session | HarnessRecorder,
  opts: ClaudeAgentAdapterOptions = {},
): ClaudeAgentAdapter {
  const recorder = target instanceof HarnessRecorder ? target : new HarnessRecorder(target);
  return new ClaudeAgentAdapter(recorder, opts);
}
