// Approvals for the Claude Agent SDK adapter: the integrator's decider behind canUseTool, and the clock
// that turns a missing answer into a "timeout" decision. The SDK's permission prompt carries no "who
// decided", so every answer names its authority; a timeout is attributed to the authority the integrator
// configured for it (the rule that ran out the clock), never assumed.
import type { CanUseTool } from "@anthropic-ai/claude-agent-sdk";
import { AUTHORITIES } from "../core/records.js";
import {
  HarnessInputError,
  type Approval,
  type Authority,
  type HarnessCall,
  type ToolArgs,
} from "./recorder.js";

/** What the SDK passed canUseTool besides the tool and its input (toolUseID, title, suggestions, …). */
export type CanUseToolContext = Parameters<CanUseTool>[2];

/** What the decider is asked: one tool call, as zkVAI records it, and the SDK's own prompt. */
export interface ApprovalRequest {
  /**
   * callId is the SDK's tool_use id, tool the profile's name for it, args its input as canUseTool got
   * it: exactly what an allow authorizes, what is recorded and what the tool runs with (unless the
   * answer's updatedInput replaces it). A copy: changing it changes nothing.
   */
  call: HarnessCall;
  /**
   * The input PreToolUse saw, only when it differs from `call.args`: another PreToolUse hook's
   * updatedInput rewrote the model's input before the prompt (approval tools only).
   */
  preToolUseArgs?: ToolArgs;
  /** The tool's name as the SDK spells it (mcp__server__tool for MCP tools). */
  sdkToolName: string;
  /** The SDK's permission prompt: title, description, decisionReason, suggestions, agentID, … */
  context: CanUseToolContext;
  /** Aborted when the SDK aborts the prompt or the approval times out: withdraw the question then. */
  signal: AbortSignal;
}

/** The decider's answer: an Approval (who decided is required) plus what the SDK needs back. */
export interface ApprovalAnswer extends Approval {
  /** deny/timeout: what the model reads as the tool's result. Default: a sentence naming the decision. */
  message?: string;
  /** deny/timeout: also stop the run (the SDK's `interrupt`). */
  interrupt?: boolean;
  /**
   * allow: run the tool with this input instead of `call.args`. The authorization and the call record
   * cover it, and it is what the SDK is told to run. Only for tools in `approvals.tools` (their calls are
   * recorded after the decision).
   */
  updatedInput?: Record<string, unknown>;
}

export type Decider = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

export interface ClaudeAgentApprovals {
  /**
   * Tools (profile names) whose every call waits for `decide`: their PreToolUse answers "ask", so the
   * SDK sends the call to canUseTool, and zkVAI records the authorization, then the call, only once
   * decided. List every tool an AAP-1 promise gates, and every tool your decider may deny (see the
   * adapter's header for what happens to a denied call of an unlisted tool).
   */
  tools: readonly string[];
  /** Answers each permission prompt: the decision and who made it. */
  decide: Decider;
  /**
   * No answer within `ms`: the call is denied and a "timeout" decision recorded with this authority
   * (and policyId: a policy authority needs one for AAP-1 to name the rule).
   */
  timeout?: { ms: number; authority: Authority; policyId?: string };
}

export type Asked = { answer: ApprovalAnswer; timedOut: boolean } | { aborted: true };

/** Checks the integrator's approvals configuration once, so a mistake fails at setup, not mid-run. */
export function checkApprovals(a: ClaudeAgentApprovals): void {
  if (typeof a?.decide !== "function")
    throw new HarnessInputError("claude-agent-sdk approvals: `decide` must be a function");
  if (!Array.isArray(a.tools) || a.tools.some((t) => typeof t !== "string" || t === ""))
    throw new HarnessInputError("claude-agent-sdk approvals: `tools` must be a list of profile tool names");
  const t = a.timeout;
  if (t === undefined) return;
  if (!Number.isFinite(t.ms) || t.ms <= 0)
    throw new HarnessInputError("claude-agent-sdk approvals: timeout.ms must be a positive number");
  if (!AUTHORITIES.includes(t.authority))
    throw new HarnessInputError(
      `claude-agent-sdk approvals: timeout.authority must be one of ${AUTHORITIES.join(", ")}: who let the clock decide is yours to say`,
    );
}

/**
 * Asks the decider, racing its answer against the configured timeout and the SDK's abort signal. A
 * decider that throws makes this throw (the caller fails the prompt closed); its late answer or error
 * after a timeout is dropped.
 */
export async function ask(
  approvals: ClaudeAgentApprovals,
  request: Omit<ApprovalRequest, "signal">,
): Promise<Asked> {
  const sdkSignal = request.context.signal;
  if (sdkSignal?.aborted) return { aborted: true };
  const withdraw = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  let decided = false;
  const answered = Promise.resolve()
    .then(() => approvals.decide({ ...request, signal: withdraw.signal }))
    .then((answer): Asked => ((decided = true), { answer, timedOut: false }));
  answered.catch(() => {});
  const races: Promise<Asked>[] = [answered];
  const t = approvals.timeout;
  if (t)
    races.push(
      new Promise((resolve) => {
        timer = setTimeout(
          () =>
            resolve({
              timedOut: true,
              answer: {
                decision: "timeout",
                authority: t.authority,
                ...(t.policyId !== undefined ? { policyId: t.policyId } : {}),
                message: `zkVAI: ${request.call.tool} was not run: no approval within ${t.ms} ms`,
              },
            }),
          t.ms,
        );
      }),
    );
  if (sdkSignal)
    races.push(
      new Promise((resolve) => {
        onAbort = () => resolve({ aborted: true });
        sdkSignal.addEventListener("abort", onAbort, { once: true });
      }),
    );
  try {
    return await Promise.race(races);
  } finally {
    clearTimeout(timer);
    if (onAbort) sdkSignal?.removeEventListener("abort", onAbort);
    // Withdraws a prompt still open after a timeout or an abort; an answered one is left alone.
    if (!decided) withdraw.abort();
  }
}

/** The text the model reads for a call the decider did not allow. */
export function denialText(tool: string, answer: ApprovalAnswer): string {
  if (answer.message) return answer.message;
  return `zkVAI: ${tool} was not run: the approval decision was ${answer.decision} (${answer.authority}${answer.policyId ? `, ${answer.policyId}` : ""})`;
}
