// zkVAI for LangChain.js agents (createAgent, langchain 1.5): one tool middleware records every tool call.
// - Recorded: each call createAgent's ToolNode dispatches, in its wrapToolCall path: tool name, args, and the
//   ToolMessage content the model gets as the result. A ToolMessage with status "error" (an unknown tool,
//   another middleware's error reply) and a tool that throws are recorded as the call's error. The tool call
//   id (`toolCall.id`) is the record's actionId; a call without one gets a minted id ("lc:<uuid>").
// - Blocks: in guard mode, a call that would break a promise is not run; the model gets an error ToolMessage
//   with the refusal text and the run goes on. So does a call refused because the store is down, one zkVAI
//   cannot record (a tool outside the profile), or a tool call id reused with other args.
// - Approvals: humanInTheLoopMiddleware ({interruptOn}) pauses the run; the decisions the integrator resumes
//   with become authorization records through decide()/timeout() (./langchain-approvals.ts).
// - Cannot tell: who decided (HITL decisions carry no reviewer; the integrator names the authority), tool
//   calls that do not go through the ToolNode (a model's server-side tools, tools invoked by hand), and
//   whether a model reuses tool call ids (a reused id with the same args replays the stored outcome).
// - Interrupts: a tool that calls LangGraph's interrupt() did not finish; its paused attempt is a blocked
//   record (no execution, the actionId stays free), and the run LangGraph makes on resume is the call,
//   recorded under the same tool call id, so an approval given while the tool waited covers it.
// Where it goes in createAgent's list, whose first entry is the outermost wrapToolCall: last (innermost),
// it records each run of the tool with the args it ran with, and guards those args; an inner retry cannot
// then run the tool again (one tool call id, one execution: a second attempt replays the first's outcome).
// First (outermost), it records one call per tool call id, with the model's args and the reply the model
// finally gets, however often inner middlewares ran the tool and whatever args they gave it.
import { randomUUID } from "node:crypto";
import { createMiddleware, ToolInvocationError, ToolMessage, type AgentMiddleware } from "langchain";
import { CallNotRunError, IdempotencyConflictError, RecordedToolError } from "../core/errors.js";
import type { Json } from "../core/canonical.js";
import type { Session } from "../provider/session.js";
import {
  FailedResult,
  HarnessRecorder,
  isRefusal,
  refusalText,
  toolArgs,
  type HarnessCall,
} from "./recorder.js";
import { LangChainApprovals } from "./langchain-approvals.js";

export {
  LangChainApprovals,
  pendingApprovals,
  type ApprovalDecision,
  type DecisionApproval,
  type InterruptedState,
  type PendingApproval,
  type TimeoutApproval,
} from "./langchain-approvals.js";
export { HarnessInputError, HarnessRecorder } from "./recorder.js";

export interface LangChainAdapterOptions {
  /**
   * What a tool that throws gives back, once its error is recorded. "message" (default): the error
   * ToolMessage createAgent itself makes when no wrapToolCall middleware is present
   * (`${error}\n Please fix your mistakes.`), so the model sees it and the run goes on. In langchain 1.5.14
   * any wrapToolCall middleware turns a thrown tool error into a failed run instead (ToolNode's
   * #handleError re-raises middleware errors unless handleToolErrors is true), so without this the adapter
   * would change the agent's behaviour. "throw": re-throw it, for an outer middleware that handles errors.
   * An input-parsing error (ToolInvocationError) and LangGraph's interrupts are always re-thrown: the
   * ToolNode turns the first into the model's message itself and must see the second.
   */
  toolErrors?: "message" | "throw";
  /** The middleware's name in the agent; "zkvai" unless given. */
  name?: string;
}

type ToolReply = Awaited<ReturnType<NonNullable<AgentMiddleware["wrapToolCall"]>>>;

/** LangGraph's own test (isGraphBubbleUp), duck-typed so the adapter needs no @langchain/langgraph import. */
const isBubbleUp = (e: unknown) => (e as { is_bubble_up?: unknown } | null)?.is_bubble_up === true;

/**
 * The bubble-ups after which LangGraph runs the node again from the start: interrupt() (GraphInterrupt,
 * NodeInterrupt) and a drain (GraphDrained). A ParentCommand is not one: the tool handed its result to
 * the parent graph, and it is recorded as the call's error.
 */
const PAUSES: ReadonlySet<unknown> = new Set(["GraphInterrupt", "NodeInterrupt", "GraphDrained"]);
const isPause = (e: unknown) => isBubbleUp(e) && PAUSES.has((e as Error).name);

/**
 * A tool that paused the run did not finish, and LangGraph runs it again from the start on resume. So the
 * paused attempt is no execution outcome: it is stored as a blocked record (CallNotRunError), which no
 * predicate reads as a call and which leaves the actionId free for the resumed run, recorded under it.
 */
function pausedAttempt(signal: unknown): CallNotRunError {
  return new CallNotRunError(
    `not run: langgraph interrupt: the tool paused the run (${(signal as Error).name}) before it finished; LangGraph runs it again on resume, under the same id`,
  );
}

const contentText = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

/** A stored result as ToolMessage content again. */
function asContent(stored: Json | undefined): ToolMessage["content"] {
  if (stored === undefined) return "";
  return typeof stored === "string" || Array.isArray(stored)
    ? (stored as ToolMessage["content"])
    : JSON.stringify(stored);
}

/** The recordable part of a tool's reply: the content the model gets (a Command: its ToolMessage for this call). */
function replyContent(reply: ToolReply, callId: string): { message?: ToolMessage; content?: Json } {
  if (ToolMessage.isInstance(reply)) return { message: reply, content: reply.content as Json };
  const update = (reply as { update?: { messages?: unknown } }).update;
  const messages = Array.isArray(update?.messages) ? update.messages : [];
  const message = messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === callId) as
    ToolMessage | undefined;
  return message ? { message, content: message.content as Json } : {};
}

/**
 * The createAgent middleware that records every tool call through the recorder. Share one recorder (one
 * Session) between the middleware and the approvals helper of the same agent.
 */
export function zkvaiMiddleware(
  recorder: HarnessRecorder,
  opts: LangChainAdapterOptions = {},
): AgentMiddleware {
  const toolErrors = opts.toolErrors ?? "message";
  const errorReply = (call: HarnessCall, content: string) =>
    new ToolMessage({ content, tool_call_id: call.callId, name: call.tool, status: "error" });

  return createMiddleware({
    name: opts.name ?? "zkvai",
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const call: HarnessCall = {
        // Some providers send "" for no id; a minted one is unique, so it replays nothing.
        callId: toolCall.id || `lc:${randomUUID()}`,
        tool: toolCall.name,
        args: toolArgs(toolCall.name, toolCall.args),
      };
      let reply: ToolReply | undefined;
      let thrown: { error: unknown } | undefined;
      try {
        const stored = await recorder.run(call, async () => {
          try {
            reply = await handler(request);
          } catch (e) {
            thrown = { error: e };
            throw isPause(e) ? pausedAttempt(e) : e;
          }
          const { message, content } = replyContent(reply, call.callId);
          if (message?.status === "error") throw new FailedResult(content, contentText(content));
          return content;
        });
        // A known actionId replays its stored outcome without running the tool: rebuild the ToolMessage.
        return (
          reply ?? new ToolMessage({ content: asContent(stored), tool_call_id: call.callId, name: call.tool })
        );
      } catch (e) {
        // Refused before running (guard, store down, a call zkVAI cannot record, a reused id with other
        // args): the model reads why, as a failed tool call, and the run goes on.
        if (isRefusal(e) || e instanceof IdempotencyConflictError)
          return errorReply(call, refusalText(call.tool, e));
        if (e instanceof RecordedToolError) {
          // A replayed failure: the stored error, as the tool's own error would reach the model.
          if (toolErrors === "throw") throw e;
          return errorReply(call, `${e.message}\n Please fix your mistakes.`);
        }
        // The paused attempt is stored blocked; LangGraph must see its own interrupt, unchanged.
        if (e instanceof CallNotRunError && thrown !== undefined && isPause(thrown.error)) throw thrown.error;
        if (thrown === undefined || e !== thrown.error) throw e;
        const error = thrown.error;
        if (isBubbleUp(error) || toolErrors === "throw" || ToolInvocationError.isInstance(error)) throw error;
        return errorReply(call, `${error}\n Please fix your mistakes.`);
      }
    },
  });
}

export interface LangChainAdapter {
  readonly recorder: HarnessRecorder;
  /** Add it to createAgent({ middleware: [..., adapter.middleware] }), last: see the module header. */
  readonly middleware: AgentMiddleware;
  /** Human-in-the-loop decisions → authorization records (pending, decide, timeout, decideWithin). */
  readonly approvals: LangChainApprovals;
}

/** One adapter per Session: the recording middleware and the approvals helper over one recorder. */
export function recordLangChain(session: Session, opts: LangChainAdapterOptions = {}): LangChainAdapter {
  const recorder = new HarnessRecorder(session);
  return {
    recorder,
    middleware: zkvaiMiddleware(recorder, opts),
    approvals: new LangChainApprovals(recorder),
  };
}
