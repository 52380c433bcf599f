// zkVAI for the Vercel AI SDK (`ai` 6.x; written to 7.x's types too, unrun there): recorded tools and
// recorded approvals, for generateText, streamText and ToolLoopAgent alike.
//
// What is recorded: every call the SDK makes to a tool's `execute` in a ToolSet given to recordTools():
// the tool's name, its input as the SDK validated it (the record's args) and what execute returned, or
// what it threw. The SDK's `toolCallId` (execute's second argument) is the record's actionId, so an
// approval, the call and any retry of it name the same invocation. A streaming tool (`async *execute`)
// keeps its preliminary outputs; its last one, which the SDK takes as the result, is recorded. The record
// is stored before execute settles, so a result never reaches the model unrecorded.
// Where it can block: in the wrapped execute, before the tool runs. A guard refusal (Session opened with
// guard), a store that is down, or a call zkVAI cannot record (a tool outside the profile, args JSON
// cannot carry) throws a ToolRefusedError whose message is refusalText; the SDK turns a throwing execute
// into a `tool-error` part and shows the model that text as the tool's `error-text` result, and the run
// goes on. Lifecycle callbacks (experimental_onToolCallStart, 7.x's onToolExecutionStart) cannot block:
// the SDK swallows what they throw (vercel/ai#15842), so the adapter does not use them.
// Approvals: a tool with `needsApproval` (6.x; 7.x also `toolApproval: 'user-approval'`) makes the run
// stop with `tool-approval-request {approvalId, toolCall}` parts. answerApproval() turns the integrator's
// decision into the `tool-approval-response` the next generateText reads and records it first, as an
// authorization record over that toolCall's toolCallId and input: an allow covers exactly the call the
// SDK then executes under the same toolCallId (collect-tool-approvals.ts looks it up in the history).
// A deny or a timeout is never executed; the model reads `execution-denied` with the reason.
// What the SDK cannot tell: who decided. A tool-approval-response has no approver field, so the
// authority is answerApproval's required argument, never assumed. Approvals the SDK decides by itself
// (7.x `toolApproval` returning 'approved' / 'denied', isAutomatic) pass no code of the integrator's and
// are not recorded: an auto-approved gated call then has no authorization record (AAP-1 reads it
// violated). Tools without an execute function here (provider-executed ones such as a web search, or
// client-side tools whose output arrives in the messages) never pass through the adapter: recordTools
// refuses them unless they are named in `unrecorded` (vercel/ai#11001: provider-executed tools skip
// execute and approvals).
// No work on the hot path beyond Session.call: the wrapper reads toolCallId and hands the input on.
import type { ToolApprovalRequestOutput, ToolApprovalResponse, ToolSet } from "ai";
import {
  withDetails,
  ZkvaiError,
  type GuardRefusal,
  type ZkvaiErrorOptions,
  type InvalidCallError,
  type StoreUnavailableError,
} from "../core/errors.js";
import type { Session } from "../provider/session.js";
import {
  HarnessInputError,
  HarnessRecorder,
  isRefusal,
  refusalText,
  toolArgs,
  type Approval,
  type HarnessCall,
} from "./recorder.js";

export {
  HarnessInputError,
  HarnessRecorder,
  type Approval,
  type Authority,
  type Decision,
} from "./recorder.js";

/**
 * What a wrapped execute throws for a call zkVAI refused before it ran. Its message (refusalText) is what
 * the model reads; `refusal` (also the cause) is the Session's GuardRefusal, StoreUnavailableError or
 * InvalidCallError. Find it on a `tool-error` part's `error`.
 */
export class ToolRefusedError extends ZkvaiError {
  static override readonly code: string = "TOOL_REFUSED";
  override name = "ToolRefusedError";
  constructor(
    readonly tool: string,
    readonly refusal: GuardRefusal | StoreUnavailableError | InvalidCallError,
    options?: ZkvaiErrorOptions,
  ) {
    super(refusalText(tool, refusal), {
      cause: refusal,
      ...withDetails(options, { tool, refusal: refusal.code }),
    });
  }
}

export interface RecordToolsOptions {
  /**
   * Tools passed through unwrapped and unrecorded: tools outside the profile the agent may still use, and
   * tools without an execute function (provider-executed or client-side), which recordTools refuses otherwise.
   */
  unrecorded?: readonly string[];
}

/** One recorder per Session, so approvals and calls made through different helpers share its state. */
const recorders = new WeakMap<Session, HarnessRecorder>();

function recorderOf(target: Session | HarnessRecorder): HarnessRecorder {
  if (target instanceof HarnessRecorder) return target;
  if (typeof (target as Session | undefined)?.call !== "function")
    throw new HarnessInputError("zkvai/adapters/ai: expected a Session or a HarnessRecorder");
  let recorder = recorders.get(target);
  if (!recorder) recorders.set(target, (recorder = new HarnessRecorder(target)));
  return recorder;
}

/**
 * What the wrapper reads of execute's second argument. Not the SDK's ToolExecutionOptions: 7.x made it
 * generic over the tool's context, so a structural type is what both majors accept. The rest (messages,
 * abortSignal, context) reaches the tool untouched.
 */
interface ExecuteOptions {
  toolCallId: string;
}
type AnyExecute = (input: unknown, options: ExecuteOptions) => unknown;
const wrappedExecutes = new WeakSet<object>();

/**
 * The same ToolSet, each tool's execute wrapped so that the SDK's calls to it go through Session.call
 * under the call's toolCallId. Every other field (needsApproval, toModelOutput, schemas, …) is kept.
 */
export function recordTools<TOOLS extends ToolSet>(
  target: Session | HarnessRecorder,
  tools: TOOLS,
  opts: RecordToolsOptions = {},
): TOOLS {
  const recorder = recorderOf(target);
  const unrecorded = new Set(opts.unrecorded ?? []);
  // A profile tool is one a promise may read: running it unrecorded would drop records the claim needs.
  for (const name of unrecorded)
    if (Object.hasOwn(recorder.session.profile.tools, name))
      throw new HarnessInputError(
        `recordTools: ${JSON.stringify(name)} is in the session's encoding profile, so its calls must be recorded; it cannot be \`unrecorded\``,
      );
  if (tools === null || typeof tools !== "object")
    throw new HarnessInputError("recordTools: tools must be a ToolSet (an object of tools by name)");
  const wrapped: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    if (unrecorded.has(name)) {
      wrapped[name] = tool;
      continue;
    }
    const execute = (tool as { execute?: unknown }).execute;
    if (typeof execute !== "function")
      throw new HarnessInputError(
        `recordTools: tool ${JSON.stringify(name)} has no execute function, so its calls (provider-executed or client-side) cannot be recorded here; name it in \`unrecorded\` to pass it through`,
      );
    // Wrapped twice, one call would be two Session.calls under one actionId, the inner waiting on the outer.
    if (wrappedExecutes.has(execute))
      throw new HarnessInputError(`recordTools: tool ${JSON.stringify(name)} is already recorded`);
    const recorded = wrapExecute(recorder, name, tool, execute as AnyExecute);
    wrappedExecutes.add(recorded);
    wrapped[name] = { ...tool, execute: recorded };
  }
  return wrapped as TOOLS;
}

function callOf(tool: string, input: unknown, options: ExecuteOptions | undefined): HarnessCall {
  const callId = options?.toolCallId;
  if (typeof callId !== "string" || callId === "")
    throw new HarnessInputError(
      `${tool}: execute was called without a toolCallId (its second argument), so the call has no actionId`,
    );
  return { callId, tool, args: toolArgs(tool, input) };
}

/** recorder.run, with a refusal turned into the error the SDK shows the model. */
async function recorded<T>(recorder: HarnessRecorder, call: HarnessCall, run: () => Promise<T>): Promise<T> {
  try {
    return await recorder.run(call, run);
  } catch (e) {
    if (isRefusal(e)) throw new ToolRefusedError(call.tool, e);
    throw e;
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value != null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function";
}

function wrapExecute(recorder: HarnessRecorder, name: string, tool: unknown, execute: AnyExecute) {
  // The SDK's executeTool calls execute as a method (7.x) or bound (6.x): the original keeps its `this`.
  const invoke = (input: unknown, options: ExecuteOptions) => execute.call(tool, input, options);
  if (Object.prototype.toString.call(execute) === "[object AsyncGeneratorFunction]")
    return streamingExecute(recorder, name, invoke);
  return async (input: unknown, options: ExecuteOptions) =>
    recorded(recorder, callOf(name, input, options), async () => {
      const output = await invoke(input, options);
      // An iterable from a plain function: the SDK would take its last value as the result, so do we.
      if (!isAsyncIterable(output)) return output;
      let last: unknown;
      for await (const value of output) last = value;
      return last;
    });
}

/**
 * An `async *execute` stays a stream: its values are passed on as they come (the SDK's preliminary
 * results), and the last one, the SDK's final result, is what Session.call records. A replayed
 * toolCallId yields its stored result once.
 */
function streamingExecute(
  recorder: HarnessRecorder,
  name: string,
  invoke: (input: unknown, options: ExecuteOptions) => unknown,
) {
  return async function* (input: unknown, options: ExecuteOptions): AsyncGenerator<unknown> {
    const call = callOf(name, input, options);
    const queue: unknown[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    let passed = 0;
    const finished = recorded(recorder, call, async () => {
      let last: unknown;
      for await (const value of invoke(input, options) as AsyncIterable<unknown>) {
        last = value;
        queue.push(value);
        wake?.();
      }
      return last;
    }).finally(() => {
      done = true;
      wake?.();
    });
    finished.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
    for (;;) {
      while (queue.length > 0) {
        passed++;
        yield queue.shift();
      }
      if (done) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    const result = await finished; // the tool's error, or the refusal, is thrown here
    if (passed === 0) yield result;
  };
}

/** An approval decision, who made it, and the reason the model reads on a deny or a timeout. */
export interface ApprovalAnswer extends Approval {
  reason?: string;
}

/** The `tool-approval-request` parts of a generateText result (its last step): the calls awaiting an answer. */
export function approvalRequests<TOOLS extends ToolSet>(result: {
  content: ReadonlyArray<{ type: string }>;
}): ToolApprovalRequestOutput<TOOLS>[] {
  return result.content.filter(
    (part): part is ToolApprovalRequestOutput<TOOLS> => part.type === "tool-approval-request",
  );
}

/**
 * Records the integrator's answer to a tool-approval-request as an authorization record for that
 * toolCall (its toolCallId, tool and input), and returns the tool-approval-response to send back in a
 * `{ role: "tool" }` message. Call it before the generateText that carries the response: AAP-1 reads
 * only authorizations stored before the call. `authority` is required; the SDK cannot say who decided.
 */
export function answerApproval<TOOLS extends ToolSet>(
  target: Session | HarnessRecorder,
  request: ToolApprovalRequestOutput<TOOLS>,
  answer: ApprovalAnswer,
): ToolApprovalResponse {
  const recorder = recorderOf(target);
  const toolCall = request?.toolCall;
  if (request?.type !== "tool-approval-request" || typeof request.approvalId !== "string" || !toolCall)
    throw new HarnessInputError(
      "answerApproval: expected a tool-approval-request part ({ type, approvalId, toolCall }) from a generateText or streamText result",
    );
  if (typeof toolCall.toolCallId !== "string" || toolCall.toolCallId === "")
    throw new HarnessInputError(`answerApproval: the request's ${toolCall.toolName} call has no toolCallId`);
  if (answer === null || typeof answer !== "object")
    throw new HarnessInputError(`answerApproval: the answer to ${toolCall.toolName} must be an Approval`);
  const call = {
    callId: toolCall.toolCallId,
    tool: toolCall.toolName,
    args: toolArgs(toolCall.toolName, toolCall.input),
  };
  recorder.approve(call, answer);
  const reason =
    answer.reason ?? (answer.decision === "timeout" ? "no approval was given in time" : undefined);
  return {
    type: "tool-approval-response",
    approvalId: request.approvalId,
    approved: answer.decision === "allow",
    ...(reason !== undefined ? { reason } : {}),
    ...(toolCall.providerExecuted ? { providerExecuted: true } : {}),
  };
}
