// zkVAI for the OpenAI Agents SDK (@openai/agents 0.20): recorded function tools and recorded approvals.
//
// What is recorded: every call of a function tool built with `agents.tool(options)` (the SDK's tool(),
// same options) or passed through `agents.insure(functionTool)`: the tool, the model's arguments (the
// call's JSON, as the model sent it), and the outcome. The SDK's callId is the record's actionId.
// - tool(): the raw value the tool's execute returned, or the error it threw (then re-thrown, so the
//   SDK's errorFunction still writes the model's text). The SDK's invoke is left as it is, so its
//   argument parsing, timeouts and errorFunction behave exactly as without zkVAI. A tool past its
//   timeoutMs is recorded with what its execute did once it settles (the model got the SDK's timeout).
// - insure(): a FunctionTool built elsewhere (an MCP tool, a library's tool) exposes only invoke, whose
//   errorFunction has already turned a throw into text: its output is recorded, the SDK's default error
//   text ("An error occurred while running the tool…") as the call's error; a custom errorFunction's
//   text cannot be told from a result and is recorded as one. A throw out of invoke (errorFunction null)
//   is recorded and re-thrown. The wrapped invoke is a new function, so the SDK validates the arguments
//   inside it instead of before the guardrails: a call with bad arguments is recorded with its error.
// Why this split: the record needs the real outcome, and the run must go on after a refusal. The run
// listeners (`agent_tool_start`/`agent_tool_end`) see only strings (a throw arrives as the errorFunction's
// text) and cannot refuse one call (a throw in a listener aborts the run). So a tool input guardrail,
// attached last to each tool, begins the call (HarnessRecorder.begin: the Session's checks, the guard,
// the blocked record), and the tool's execute (or invoke) finishes it with what the tool did.
// Where it can block: in that guardrail, before the tool runs. A guard refusal (Session opened with
// guard), a store that is down in guard mode, or a call zkVAI cannot record (a tool outside the profile)
// becomes the guardrail's rejectContent(refusalText): the model reads it as the tool's output and the
// run goes on; the blocked record is stored by the Session. Other guardrails on the tool run first.
// Approvals: a tool with `needsApproval` ends the run with `result.interruptions`. Resolve each one with
// `agents.approve / reject / timeout(result.state, item, { authority, … })`: it records the
// authorization (allow / deny / timeout) over the call's callId, tool and args, then calls
// `state.approve` or `state.reject`, and the integrator runs `result.state` again. The decision is on
// record before the SDK is told: if the store refuses it, the interruption stays unresolved and the tool
// does not run. The SDK has no approval timeout: `timeout()` is for the integrator's own deadline.
// With the opt-in `toolExecution.preApprovalInputGuardrails` the guardrail also fires before the
// approval; that pass (not yet approved, and the tool's needsApproval says it needs one, so the guardrail
// asks needsApproval once per call) is let through unrecorded, and the call is begun, checked and
// guarded in the pass after its authorization is on record.
// What the SDK cannot tell: who decided. `state.approve(item)` carries no approver, so the authority is
// a required field of every decision, never assumed. An interruption resolved with `state.approve`
// directly, or an `alwaysApprove` (scope "session"/"persistent" here) that lets later calls of the tool
// run unasked, leaves those calls without an authorization record: AAP-1 counts them as unauthorized.
// Not covered: hosted tools, shell, computer and apply_patch tools (not FunctionTools), and handoffs.
// A run that throws after a call's guardrail (a listener's throw, an abort) leaves it open: call
// `finishPending()` before `session.close()`; in guard mode an open call holds the next guarded one.
import {
  ToolGuardrailFunctionOutputFactory as Guardrail,
  defineToolInputGuardrail,
  tool as sdkTool,
  type FunctionTool,
  type RunContext,
  type RunState,
  type RunToolApprovalItem,
  type ToolInputGuardrailDefinition,
} from "@openai/agents";
import { randomUUID } from "node:crypto";
import type { TraceRecord } from "../core/records.js";
import type { Session } from "../provider/session.js";
import {
  FailedResult,
  HarnessInputError,
  HarnessRecorder,
  isRefusal,
  refusalText,
  toolArgs,
  type Authority,
  type Decision,
  type HarnessCall,
  type Scope,
} from "./recorder.js";

export { HarnessInputError, type Approval, type Authority, type Decision, type Scope } from "./recorder.js";

/** The name of the input guardrail insured tools carry (one per tool, after the integrator's own). */
export const GUARDRAIL_NAME = "zkvai";
/** What the SDK's default errorFunction returns for a throw: recorded as the call's error by insure(). */
export const SDK_TOOL_ERROR_TEXT = "An error occurred while running the tool. Please try again.";

/** A decision on one interruption. The authority (who or what decided) is required: the SDK cannot say. */
export interface DecisionInput {
  authority: Authority;
  /** "once" (default): this call only. "session"/"persistent": the SDK's alwaysApprove/alwaysReject. */
  scope?: Scope;
  /** The rule that decided; AAP-1 needs it when the authority is "policy". */
  policyId?: string;
}
export interface RejectionInput extends DecisionInput {
  /** The text the model gets instead of the tool's output (state.reject's message). */
  message?: string;
}

type AnyTool = FunctionTool<any, any, any>;
/** invoke's third argument: the model's call (toolCall), an abort signal, resume state. */
type ToolCallDetails = Parameters<AnyTool["invoke"]>[2];

export class OpenAIAgentsRecorder {
  readonly recorder: HarnessRecorder;
  /** Calls a guardrail let through, by callId, until their tool finishes them. */
  private readonly open = new Set<string>();
  /** Calls whose callId already ran in this session: their tool replays the stored outcome. */
  private readonly replays = new Map<string, HarnessCall>();
  private readonly insured = new WeakSet<object>();
  private minted = 0;
  private readonly prefix = `openai-agents:${randomUUID()}:`;

  constructor(readonly session: Session) {
    this.recorder = new HarnessRecorder(session);
  }

  /** The SDK's tool(), recorded: same options, same FunctionTool. */
  readonly tool: typeof sdkTool = ((options: Parameters<typeof sdkTool>[0]) => {
    const execute = options.execute as (
      input: unknown,
      ctx?: RunContext,
      details?: ToolCallDetails,
    ) => unknown;
    const built = sdkTool({
      ...options,
      execute: (input: unknown, ctx?: RunContext, details?: ToolCallDetails) =>
        this.through(built.name, input, details, async () => execute(input, ctx, details)),
    } as typeof options);
    built.inputGuardrails = [...(built.inputGuardrails ?? []), this.guardrail(built)];
    this.insured.add(built);
    return built;
  }) as typeof sdkTool;

  /** A FunctionTool built elsewhere, recorded: a copy with a recording invoke and the zkVAI guardrail. */
  insure<T extends AnyTool>(tool: T): T {
    if (tool?.type !== "function" || typeof tool.invoke !== "function")
      throw new HarnessInputError(
        "insure: only function tools can be recorded (hosted, shell, computer and apply_patch tools are not)",
      );
    if (this.insured.has(tool)) return tool;
    if (tool.inputGuardrails?.some((g) => g.name === GUARDRAIL_NAME))
      throw new HarnessInputError(`insure: ${tool.name} is already recorded by another zkVAI recorder`);
    const invoke = tool.invoke;
    const copy: T = {
      ...tool,
      invoke: (ctx: RunContext, input: string, details?: ToolCallDetails) =>
        this.through(tool.name, input, details, async () => {
          const output = await invoke.call(tool, ctx, input, details);
          // The SDK's default errorFunction text is a throw the SDK already turned into the model's text.
          if (output === SDK_TOOL_ERROR_TEXT) throw new FailedResult(output, output);
          return output;
        }),
    };
    copy.inputGuardrails = [...(tool.inputGuardrails ?? []), this.guardrail(copy)];
    this.insured.add(copy);
    return copy;
  }

  /** Records an allow for an interruption, then approves it in the SDK; run `state` again after. */
  approve(state: RunState<any, any>, item: RunToolApprovalItem, decision: DecisionInput): TraceRecord {
    return this.decide(state, item, "allow", decision);
  }

  /** Records a deny, then rejects it in the SDK: the model gets `message`, or the SDK's own text. */
  reject(state: RunState<any, any>, item: RunToolApprovalItem, decision: RejectionInput): TraceRecord {
    return this.decide(state, item, "deny", decision, decision?.message);
  }

  /** The integrator's deadline passed with no decision: records a timeout, then rejects it in the SDK. */
  timeout(state: RunState<any, any>, item: RunToolApprovalItem, decision: RejectionInput): TraceRecord {
    const message = decision?.message ?? `zkVAI: the approval for ${item?.name} timed out, so it was not run`;
    return this.decide(state, item, "timeout", decision, message);
  }

  /** Records calls a run left open (it threw after their guardrail) as of unknown outcome. Before close(). */
  async finishPending(reason?: string): Promise<number> {
    this.open.clear();
    this.replays.clear();
    return this.recorder.finishPending(reason);
  }

  private decide(
    state: RunState<any, any>,
    item: RunToolApprovalItem,
    decision: Decision,
    input: DecisionInput,
    message?: string,
  ): TraceRecord {
    if (typeof state?.approve !== "function" || typeof state.reject !== "function")
      throw new HarnessInputError("approval: expected the RunState of the interrupted run (result.state)");
    if (!input || typeof input !== "object")
      throw new HarnessInputError("approval: a decision needs { authority }: who or what decided");
    const call = approvalCall(item);
    const { authority, scope = "once", policyId } = input;
    // On record first: if the store refuses it, the interruption stays unresolved and the tool does not run.
    const record = this.recorder.approve(call, {
      decision,
      authority,
      scope,
      ...(policyId !== undefined ? { policyId } : {}),
    });
    const sticky = scope !== "once";
    if (decision === "allow") state.approve(item, { alwaysApprove: sticky });
    else state.reject(item, { alwaysReject: sticky, ...(message !== undefined ? { message } : {}) });
    return record;
  }

  /**
   * The guardrail that begins each call: the Session checks it (and guards it) now, and holds it open
   * until the tool finishes it. A refusal becomes rejectContent, which the model reads.
   */
  private guardrail(tool: AnyTool): ToolInputGuardrailDefinition<any> {
    return defineToolInputGuardrail({
      name: GUARDRAIL_NAME,
      run: async ({ context, toolCall }) => {
        let call: HarnessCall;
        try {
          call = {
            callId: toolCall.callId,
            tool: toolCall.name,
            args: toolArgs(toolCall.name, toolCall.arguments),
          };
        } catch (e) {
          return Guardrail.rejectContent(refusalText(toolCall.name, e));
        }
        // The pre-approval pass (toolExecution.preApprovalInputGuardrails): not yet approved, and it
        // needs an approval. The call is begun in the pass after the approval, once it is on record.
        if (
          context.isToolApproved({ toolName: toolCall.name, callId: call.callId }) === undefined &&
          (await tool.needsApproval(context, call.args as never, call.callId))
        )
          return Guardrail.allow();
        const gate = await this.recorder.begin(call);
        if (!gate.allowed) return Guardrail.rejectContent(gate.reason);
        if (gate.replayed) this.replays.set(call.callId, call);
        else this.open.add(call.callId);
        return Guardrail.allow();
      },
    });
  }

  /**
   * Runs the tool for a call: finishes it if the guardrail began it; replays it if its callId already
   * ran; otherwise (invoked without the guardrail, e.g. directly) records and guards it here.
   */
  private async through(
    name: string,
    input: unknown,
    details: ToolCallDetails | undefined,
    execute: () => Promise<unknown>,
  ): Promise<unknown> {
    const callId = details?.toolCall?.callId;
    if (callId !== undefined && this.open.delete(callId)) {
      let result: unknown;
      try {
        result = await execute();
      } catch (e) {
        // Stored before the SDK hears of it; a FailedResult is recorded as the error, its value returned.
        await this.recorder.finish(callId, { error: e });
        if (e instanceof FailedResult) return e.value;
        throw e;
      }
      await this.recorder.finish(callId, { result });
      return result;
    }
    const replay = callId !== undefined ? this.replays.get(callId) : undefined;
    if (replay) {
      this.replays.delete(callId!);
      return this.recorder.run(replay, () => Promise.reject(new Error("a replayed call does not run")));
    }
    const toolCall = details?.toolCall;
    const call: HarnessCall = {
      callId: callId ?? this.prefix + this.minted++,
      tool: toolCall?.name ?? name,
      args: toolArgs(name, toolCall ? toolCall.arguments : input),
    };
    try {
      return await this.recorder.run(call, execute);
    } catch (e) {
      if (isRefusal(e)) return refusalText(call.tool, e);
      throw e;
    }
  }
}

/** A recorder for one Session: build (or insure) the agent's tools with it, and resolve approvals with it. */
export function recordOpenAIAgents(session: Session): OpenAIAgentsRecorder {
  return new OpenAIAgentsRecorder(session);
}

function approvalCall(item: RunToolApprovalItem): HarnessCall {
  const raw = item?.rawItem;
  if (item?.type !== "tool_approval_item" || !raw)
    throw new HarnessInputError("approval: expected a RunToolApprovalItem from result.interruptions");
  if (raw.type !== "function_call")
    throw new HarnessInputError(
      `approval: ${raw.type} approvals are not recorded by zkVAI (only function tools are); resolve it with state.approve/reject`,
    );
  return { callId: raw.callId, tool: raw.name, args: toolArgs(raw.name, raw.arguments) };
}
