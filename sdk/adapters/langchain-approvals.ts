// Human-in-the-loop approvals of a LangChain.js agent as authorization records (AAP-1).
// humanInTheLoopMiddleware (langchain 1.5.14) pauses the run in its afterModel hook with ONE interrupt per
// model turn: `{actionRequests: [{name, args, description}], reviewConfigs}`, one request per tool call that
// needs review, in the order of the AI message's tool_calls, and no tool call ids (a per-call interrupt mode
// came only in 1.5.18). The run resumes with `new Command({resume: {decisions: [...]}})`, one decision per
// request, in order. So the ids are recovered here by matching the requests, in order, to the tool calls
// of the interrupted AI message (name and args), and each decision is recorded before the run resumes:
// approve → allow, edit → allow over the edited action (the call that then runs), reject → deny, and a
// timeout of the integrator's flow → a "timeout" record and a reject resume, so the call does not run.
// The decisions say nothing about who made them: the integrator names the authority for every one.
// What 1.5.14 does with a batch (hitl.js): if any decision is a reject, the approved calls of that turn are
// dropped, not run, and the model is called again; their allow records then cover no call.
import { AIMessage, type HITLResponse } from "langchain";
import { canonicalJson } from "../core/canonical.js";
import { AUTHORITIES } from "../core/records.js";
import {
  HarnessInputError,
  toolArgs,
  type Approval,
  type Authority,
  type HarnessCall,
  type HarnessRecorder,
  type Scope,
} from "./recorder.js";

type HitlDecision = HITLResponse["decisions"][number];

/** One tool call the interrupted run waits on a decision for. */
export interface PendingApproval extends HarnessCall {
  /** The request's description, as the reviewer was shown it. */
  description?: string;
  /** The decision types humanInTheLoopMiddleware accepts for this call. */
  allowedDecisions: readonly string[];
}

/** Who decided, for every decision of a resume (a decision may name its own). */
export interface DecisionApproval {
  authority: Authority;
  /** "once" (this invocation) unless given. */
  scope?: Scope;
  /** The rule that decided; AAP-1 requires it when the authority is "policy". */
  policyId?: string;
}

/** A HITL decision, optionally naming who made it (else the resume's DecisionApproval). */
export type ApprovalDecision = HitlDecision & Partial<DecisionApproval>;

export interface TimeoutApproval extends DecisionApproval {
  /** What the model is told; a default names the tool. */
  message?: string;
}

/**
 * What agent.invoke returned for an interrupted run (`{messages, __interrupt__}`), or the thread's
 * StateSnapshot (`agent.graph.getState(config)`: `{values: {messages}, tasks: [{interrupts}]}`).
 */
export type InterruptedState =
  | { messages?: readonly unknown[]; __interrupt__?: readonly unknown[] }
  | { values?: { messages?: readonly unknown[] }; tasks?: readonly { interrupts?: readonly unknown[] }[] };

interface HitlInterrupt {
  actionRequests: { name: string; args: Record<string, unknown>; description?: string }[];
  reviewConfigs?: { actionName: string; allowedDecisions: string[] }[];
}

const ALL_DECISIONS = ["approve", "edit", "reject"] as const;

function parts(state: InterruptedState): { messages: readonly unknown[]; interrupts: readonly unknown[] } {
  if (state === null || typeof state !== "object")
    throw new HarnessInputError("approvals: pass the interrupted run's result or its StateSnapshot");
  if ("values" in state || "tasks" in state) {
    const s = state as Extract<InterruptedState, { values?: unknown }>;
    return {
      messages: s.values?.messages ?? [],
      interrupts: (s.tasks ?? []).flatMap((t) => t.interrupts ?? []),
    };
  }
  const s = state as Extract<InterruptedState, { messages?: unknown }>;
  return { messages: s.messages ?? [], interrupts: s.__interrupt__ ?? [] };
}

/**
 * The tool calls an interrupted run waits on, with their tool call ids; [] when no HITL interrupt is
 * pending. Several pending HITL interrupts (a resume must then name each) are refused.
 */
export function pendingApprovals(state: InterruptedState): PendingApproval[] {
  const { messages, interrupts } = parts(state);
  const hitl = interrupts
    .map((i) => (i as { value?: unknown } | null)?.value as HitlInterrupt | undefined)
    .filter((v): v is HitlInterrupt => Array.isArray(v?.actionRequests));
  if (hitl.length === 0) return [];
  if (hitl.length > 1)
    throw new HarnessInputError(
      `approvals: ${hitl.length} human-in-the-loop interrupts are pending; resume them one at a time`,
    );
  const { actionRequests, reviewConfigs = [] } = hitl[0];
  // The hook reviews the last AI message's tool calls (hitl.js), so the ids are that message's.
  const ai = [...messages].reverse().find((m) => AIMessage.isInstance(m)) as AIMessage | undefined;
  const toolCalls = ai?.tool_calls ?? [];
  let next = 0;
  return actionRequests.map((request, i) => {
    const args = toolArgs(request.name, request.args);
    const key = canonicalJson(args);
    // Requests keep the tool calls' order; a skipped call was auto-approved (no interruptOn entry, or `when`).
    while (
      next < toolCalls.length &&
      (toolCalls[next].name !== request.name ||
        canonicalJson(toolArgs(request.name, toolCalls[next].args)) !== key)
    )
      next++;
    const match = toolCalls[next++];
    if (!match)
      throw new HarnessInputError(
        `approvals: action request ${i} (${request.name}) matches no tool call of the interrupted AI message; was the thread's state changed?`,
      );
    if (!match.id)
      throw new HarnessInputError(
        `approvals: the tool call of ${request.name} has no id, so no authorization can name the invocation`,
      );
    const config = reviewConfigs[i]; // pushed with its request (hitl.js)
    return {
      callId: match.id,
      tool: request.name,
      args,
      ...(request.description !== undefined ? { description: request.description } : {}),
      allowedDecisions: config?.allowedDecisions ?? ALL_DECISIONS,
    };
  });
}

/** The resume a decision is sent as, without the zkVAI fields (they are not the middleware's business). */
function hitlDecision(d: ApprovalDecision): HitlDecision {
  if (d.type === "edit") return { type: "edit", editedAction: d.editedAction };
  if (d.type === "reject")
    return d.message === undefined ? { type: "reject" } : { type: "reject", message: d.message };
  return { type: "approve" };
}

export class LangChainApprovals {
  constructor(readonly recorder: HarnessRecorder) {}

  /** The tool calls the interrupted run waits on (see pendingApprovals). */
  pending(state: InterruptedState): PendingApproval[] {
    return pendingApprovals(state);
  }

  /**
   * Records one authorization per decision (approve/edit → allow, reject → deny) over the interrupted
   * call's id and args (an edit's: the edited tool and args), then returns the resume:
   * `agent.invoke(new Command({ resume }), config)`. Every decision is checked before any is recorded.
   */
  decide(
    state: InterruptedState,
    decisions: readonly ApprovalDecision[],
    approval: DecisionApproval,
  ): HITLResponse {
    const pending = pendingApprovals(state);
    if (decisions.length !== pending.length)
      throw new HarnessInputError(
        `approvals: ${decisions.length} decisions for ${pending.length} pending tool calls (${pending.map((p) => p.tool).join(", ")})`,
      );
    const records = pending.map((p, i): [HarnessCall, Approval] => {
      const d = decisions[i];
      if (!ALL_DECISIONS.includes(d?.type as never))
        throw new HarnessInputError(`approvals: decision ${i} must be approve, edit or reject`);
      if (!p.allowedDecisions.includes(d.type))
        throw new HarnessInputError(
          `approvals: ${p.tool} (${p.callId}) accepts ${p.allowedDecisions.join(", ")}, not ${d.type}`,
        );
      let call: HarnessCall = p;
      if (d.type === "edit") {
        const edited = d.editedAction;
        if (typeof edited?.name !== "string")
          throw new HarnessInputError(`approvals: the edit of ${p.tool} needs editedAction.name`);
        call = { callId: p.callId, tool: edited.name, args: toolArgs(edited.name, edited.args) };
      }
      const who = { ...approval, ...defined(d) };
      if (!AUTHORITIES.includes(who.authority))
        throw new HarnessInputError(
          `approvals: decision ${i} (${p.tool}) needs an authority (${AUTHORITIES.join(", ")}); the adapter never assumes who decided`,
        );
      return [call, this.approval(d.type === "reject" ? "deny" : "allow", who)];
    });
    for (const [call, a] of records) this.recorder.approve(call, a);
    return { decisions: decisions.map(hitlDecision) };
  }

  /**
   * The integrator's flow gave up waiting: records a "timeout" for every pending call and returns a resume
   * that rejects each, so none runs and the model is told why.
   */
  timeout(state: InterruptedState, approval: TimeoutApproval): HITLResponse {
    const pending = pendingApprovals(state);
    for (const p of pending)
      if (!p.allowedDecisions.includes("reject"))
        throw new HarnessInputError(
          `approvals: ${p.tool} (${p.callId}) does not accept reject, so a timed-out approval cannot stop it; add "reject" to its allowedDecisions`,
        );
    const a = this.approval("timeout", approval);
    for (const p of pending) this.recorder.approve(p, a);
    return {
      decisions: pending.map((p) => ({
        type: "reject" as const,
        message: approval.message ?? `The approval of ${p.tool} timed out, so it was not run.`,
      })),
    };
  }

  /**
   * Asks for the decisions (a reviewer UI, a queue) and waits at most timeoutMs: then decide(), or on
   * expiry timeout(). A late answer is ignored.
   */
  async decideWithin(
    state: InterruptedState,
    ask: (pending: PendingApproval[]) => Promise<readonly ApprovalDecision[]>,
    opts: TimeoutApproval & { timeoutMs: number },
  ): Promise<HITLResponse> {
    const pending = pendingApprovals(state);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"timeout">(
      (resolve) => (timer = setTimeout(() => resolve("timeout"), opts.timeoutMs)),
    );
    try {
      const answer = await Promise.race([ask(pending), expired]);
      const { timeoutMs: _t, message: _m, ...approval } = opts;
      return answer === "timeout" ? this.timeout(state, opts) : this.decide(state, answer, approval);
    } finally {
      clearTimeout(timer);
    }
  }

  private approval(decision: Approval["decision"], a: DecisionApproval): Approval {
    return {
      decision,
      authority: a.authority,
      ...(a.scope !== undefined ? { scope: a.scope } : {}),
      ...(a.policyId !== undefined ? { policyId: a.policyId } : {}),
    };
  }
}

/** A decision's own authority, scope and policyId, where it names them. */
function defined(d: ApprovalDecision): Partial<DecisionApproval> {
  const out: Partial<DecisionApproval> = {};
  if (d.authority !== undefined) out.authority = d.authority;
  if (d.scope !== undefined) out.scope = d.scope;
  if (d.policyId !== undefined) out.policyId = d.policyId;
  return out;
}
