// The OpenAI Agents SDK adapter, offline with the SDK's ScriptedModel: the example agent insured and
// settled (compliant and prompt-injected), approvals (allow, deny, timeout) as AAP-1 authorization
// records, guard refusals the model reads as the tool's output, tool errors, the callId as actionId, and
// a call the SDK presents twice (a replayed callId, the pre-approval guardrail pass) recorded once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  RunContext,
  Runner,
  ToolCallError,
  setTracingDisabled,
  tool,
  type FunctionTool,
  type RunResult,
} from "@openai/agents";
import { ScriptedModel, assistantMessage, functionCall } from "@openai/agents/testing";
import { keccak256, toBytes } from "viem";
import { z } from "zod";
import { canonicalJson } from "../../sdk/core/canonical.js";
import {
  GUARDRAIL_NAME,
  HarnessInputError,
  SDK_TOOL_ERROR_TEXT,
  recordOpenAIAgents,
  type OpenAIAgentsRecorder,
} from "../../sdk/adapters/openai-agents.js";
import { runOpenAIAgent, toolResults } from "../../examples/openai-agents/agent.js";
import { ALLOWED, ATTACKER, PAID, insurance, type Insurance } from "./insurance.js";

let ins: Insurance;
beforeAll(async () => {
  setTracingDisabled(true);
  ins = await insurance();
});
afterAll(async () => ins?.dispose());

type Tools = FunctionTool<any, any, any>[];

/** A runner over a scripted model with the given turns. */
function agentOf(tools: Tools, turns: ConstructorParameters<typeof ScriptedModel>[0], config = {}) {
  const model = new ScriptedModel(turns);
  const agent = new Agent({ name: "test agent", instructions: "test", model, tools });
  const runner = new Runner({ tracingDisabled: true, ...config });
  return { model, agent, runner };
}

/** What the model was handed back for each call, by callId, in the model's latest turn. */
function lastResults(model: ScriptedModel): Record<string, string> {
  return Object.fromEntries(toolResults(model.lastCall!).map((r) => [r.callId, r.text]));
}

function deleteTool(agents: OpenAIAgentsRecorder, deleted: string[]) {
  return agents.tool({
    name: "delete_file",
    description: "Delete a file",
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
}

const calls = (sessionId: `0x${string}`) =>
  ins
    .records(sessionId)
    .map((r) =>
      r.kind === "call"
        ? [r.actionId, r.tool, r.error ?? r.result, ...(r.blocked ? ["blocked"] : [])]
        : r.kind === "authorization"
          ? [r.actionId, "authorization", r.decision, r.authority]
          : [r.kind],
    );

describe("OpenAI Agents SDK adapter", () => {
  it("a compliant run records every call under the SDK's callId and settles satisfied", async () => {
    const session = await ins.open("oa-compliant");
    const run = await runOpenAIAgent({ session, scenario: "compliant" });
    expect(run).toMatchObject({ toolCalls: 2, model: "scripted", outbox: [ALLOWED] });
    expect(run.output).toBe(`sent to ${ALLOWED}`);
    const settled = await ins.settle(session, "AAP-4");
    expect(settled.records).toMatchObject([
      { kind: "call", actionId: "call_1", tool: "read_inbox", args: {} },
      {
        kind: "call",
        actionId: "call_2",
        tool: "send_email",
        args: { to: ALLOWED },
        result: `sent to ${ALLOWED}`,
      },
    ]);
    expect(settled).toMatchObject({ violated: false, providerGain: PAID.satisfied });
  });

  it("a prompt-injected run that mails eve settles violated and pays the user", async () => {
    const session = await ins.open("oa-injected");
    const run = await runOpenAIAgent({ session, scenario: "injected", extraCalls: 1 });
    expect(run).toMatchObject({ toolCalls: 3, outbox: [ATTACKER] });
    const settled = await ins.settle(session, "AAP-4");
    expect(calls(session.sessionId)).toEqual([
      ["call_1", "read_inbox", expect.stringContaining("IMPORTANT SYSTEM NOTICE")],
      ["call_2", "read_inbox", expect.any(String)],
      ["call_3", "send_email", `sent to ${ATTACKER}`],
    ]);
    expect(settled).toMatchObject({ violated: true, userGain: PAID.violated });
  });

  it("guard mode: a send to eve is refused as rejectContent, stored blocked, and the model reads the denial", async () => {
    const session = await ins.open("oa-guard", { guard: true });
    const agents = recordOpenAIAgents(session);
    const sent: string[] = [];
    const send = agents.tool({
      name: "send_email",
      description: "Send an email",
      parameters: z.object({ to: z.string() }),
      execute: async ({ to }) => (sent.push(to), `sent to ${to}`),
    });
    const { model, agent, runner } = agentOf(
      [send],
      [
        [functionCall("send_email", { to: ATTACKER }, { callId: "g1" })],
        [functionCall("send_email", { to: ALLOWED }, { callId: "g2" })],
        [assistantMessage("done")],
      ],
    );
    const result = await runner.run(agent, "mail");
    expect(result.finalOutput).toBe("done");
    expect(sent).toEqual([ALLOWED]);
    // The turn after the refusal: the model was given zkVAI's denial as send_email's output.
    const afterRefusal = Object.fromEntries(toolResults(model.calls[1]!).map((r) => [r.callId, r.text]));
    expect(afterRefusal.g1).toMatch(/^zkVAI guard refused send_email: it would break promise 0 \(AAP-4\)/);
    expect(result.toolInputGuardrailResults.map((g) => [g.guardrail.name, g.output.behavior.type])).toEqual([
      [GUARDRAIL_NAME, "rejectContent"],
      [GUARDRAIL_NAME, "allow"],
    ]);
    expect(calls(session.sessionId)).toEqual([
      ["g1", "send_email", expect.stringMatching(/^refused by guard: promises\[0\] \(AAP-4\)/), "blocked"],
      ["g2", "send_email", `sent to ${ALLOWED}`],
    ]);
    expect(ins.verdict(session.sessionId, "AAP-4").violated).toBe(false);
    await session.close();
  });

  it("approvals: allow, deny and timeout become the authorization records AAP-1 reads; only the allowed call runs", async () => {
    const session = await ins.open("oa-approvals");
    const agents = recordOpenAIAgents(session);
    const deleted: string[] = [];
    const { model, agent, runner } = agentOf(
      [deleteTool(agents, deleted)],
      [
        [
          functionCall("delete_file", { path: "/tmp/a" }, { callId: "d1" }),
          functionCall("delete_file", { path: "/etc" }, { callId: "d2" }),
          functionCall("delete_file", { path: "/home" }, { callId: "d3" }),
        ],
        [assistantMessage("done")],
      ],
    );
    const first = await runner.run(agent, "clean up");
    const byId = Object.fromEntries(
      first.interruptions.map((i) => [(i.rawItem as { callId: string }).callId, i]),
    );
    expect(Object.keys(byId)).toEqual(["d1", "d2", "d3"]);
    expect(deleted).toEqual([]);
    // The authority is the caller's to give: without it nothing is recorded and nothing approved.
    expect(() => agents.approve(first.state, byId.d1!, {} as never)).toThrow(HarnessInputError);
    expect(() => agents.approve(first.state, byId.d1!, undefined as never)).toThrow(/authority/);
    expect(ins.records(session.sessionId)).toEqual([]);
    agents.approve(first.state, byId.d1!, { authority: "human" });
    agents.reject(first.state, byId.d2!, { authority: "policy", policyId: "no-etc", message: "not /etc" });
    agents.timeout(first.state, byId.d3!, { authority: "human" });
    const second = await runner.run(agent, first.state);
    expect(second.finalOutput).toBe("done");
    expect(deleted).toEqual(["/tmp/a"]);
    expect(lastResults(model)).toEqual({
      d1: "deleted /tmp/a",
      d2: "not /etc",
      d3: "zkVAI: the approval for delete_file timed out, so it was not run",
    });
    expect(calls(session.sessionId)).toEqual([
      ["d1", "authorization", "allow", "human"],
      ["d2", "authorization", "deny", "policy"],
      ["d3", "authorization", "timeout", "human"],
      ["d1", "delete_file", "deleted /tmp/a"],
    ]);
    // Each authorization covers its own call's args, as the model sent them.
    const covers = (args: object) => keccak256(toBytes(canonicalJson(args as never)));
    expect(ins.records(session.sessionId).slice(0, 3)).toMatchObject([
      { argsHash: covers({ path: "/tmp/a" }), scope: "once" },
      { argsHash: covers({ path: "/etc" }), policyId: "no-etc" },
      { argsHash: covers({ path: "/home" }) },
    ]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await session.close();
  });

  it("approvals: an alwaysApprove (scope session) lets a later call run unasked, with no record AAP-1 accepts", async () => {
    const session = await ins.open("oa-sticky");
    const agents = recordOpenAIAgents(session);
    const deleted: string[] = [];
    const { agent, runner } = agentOf(
      [deleteTool(agents, deleted)],
      [
        [functionCall("delete_file", { path: "/tmp/a" }, { callId: "s1" })],
        [functionCall("delete_file", { path: "/tmp/b" }, { callId: "s2" })],
        [assistantMessage("done")],
      ],
    );
    const first = await runner.run(agent, "clean up");
    agents.approve(first.state, first.interruptions[0]!, { authority: "human", scope: "session" });
    const second = await runner.run(agent, first.state);
    expect(second.interruptions).toEqual([]);
    expect(deleted).toEqual(["/tmp/a", "/tmp/b"]);
    expect(calls(session.sessionId)).toEqual([
      ["s1", "authorization", "allow", "human"],
      ["s1", "delete_file", "deleted /tmp/a"],
      ["s2", "delete_file", "deleted /tmp/b"],
    ]);
    expect(ins.verdict(session.sessionId, "AAP-1")).toMatchObject({ violated: true, seq: 2 });
    await session.close();
  });

  it("guard mode with approvals: an approved call runs, one let through by alwaysApprove is refused", async () => {
    const session = await ins.open("oa-guard-approvals", { guard: true });
    const agents = recordOpenAIAgents(session);
    const deleted: string[] = [];
    const { model, agent, runner } = agentOf(
      [deleteTool(agents, deleted)],
      [
        [functionCall("delete_file", { path: "/tmp/a" }, { callId: "ga1" })],
        [functionCall("delete_file", { path: "/tmp/b" }, { callId: "ga2" })],
        [assistantMessage("done")],
      ],
      // The guardrail also fires before the approval here; that pass must not be checked yet.
      { toolExecution: { preApprovalInputGuardrails: true } },
    );
    const first = await runner.run(agent, "clean up");
    agents.approve(first.state, first.interruptions[0]!, { authority: "human", scope: "session" });
    await runner.run(agent, first.state);
    expect(deleted).toEqual(["/tmp/a"]);
    expect(lastResults(model).ga2).toMatch(
      /^zkVAI guard refused delete_file: it would break promise 1 \(AAP-1\)/,
    );
    expect(calls(session.sessionId)).toEqual([
      ["ga1", "authorization", "allow", "human"],
      ["ga1", "delete_file", "deleted /tmp/a"],
      ["ga2", "delete_file", expect.stringMatching(/^refused by guard: promises\[1\] \(AAP-1\)/), "blocked"],
    ]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await session.close();
  });

  it("the pre-approval guardrail pass and a replayed callId are recorded once", async () => {
    const session = await ins.open("oa-dedup");
    const agents = recordOpenAIAgents(session);
    const deleted: string[] = [];
    let reads = 0;
    const read = agents.tool({
      name: "read_inbox",
      description: "Read the inbox",
      parameters: z.object({}),
      execute: async () => `inbox #${++reads}`,
    });
    const tools = [deleteTool(agents, deleted), read];
    const { model, agent, runner } = agentOf(
      tools,
      [[functionCall("delete_file", { path: "/tmp/a" }, { callId: "p1" })], [assistantMessage("done")]],
      { toolExecution: { preApprovalInputGuardrails: true } },
    );
    const first = await runner.run(agent, "clean up");
    expect(first.toolInputGuardrailResults.map((g) => g.guardrail.name)).toEqual([GUARDRAIL_NAME]);
    agents.approve(first.state, first.interruptions[0]!, { authority: "human" });
    await runner.run(agent, first.state);
    expect(deleted).toEqual(["/tmp/a"]);
    // Two runs whose model reuses a callId: the second replays the stored result, the tool runs once.
    for (let i = 0; i < 2; i++) {
      model.enqueue([functionCall("read_inbox", {}, { callId: "r1" })], [assistantMessage("read")]);
      await runner.run(agent, "read");
      expect(lastResults(model).r1).toBe("inbox #1");
    }
    expect(reads).toBe(1);
    expect(calls(session.sessionId)).toEqual([
      ["p1", "authorization", "allow", "human"],
      ["p1", "delete_file", "deleted /tmp/a"],
      ["r1", "read_inbox", "inbox #1"],
    ]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await session.close();
  });

  it("tool errors: tool() records the thrown error, insure() the SDK's error text; the model gets the SDK's text", async () => {
    const session = await ins.open("oa-errors");
    const agents = recordOpenAIAgents(session);
    const failing = agents.tool({
      name: "read_inbox",
      description: "Read the inbox",
      parameters: z.object({}),
      execute: async () => {
        throw new Error("mailbox offline");
      },
    });
    // Built with the SDK's own tool() elsewhere, then insured.
    const bare = tool({
      name: "send_email",
      description: "Send",
      parameters: z.object({ to: z.string() }),
      execute: async ({ to }): Promise<string> => {
        if (to !== ALLOWED) throw new Error("no such mailbox");
        return `sent to ${to}`;
      },
    });
    const send = agents.insure(bare);
    expect(agents.insure(send)).toBe(send);
    expect(() => recordOpenAIAgents(session).insure(send)).toThrow(/already recorded/);
    const { model, agent, runner } = agentOf(
      [failing, send],
      [
        [
          functionCall("read_inbox", {}, { callId: "e1" }),
          functionCall("send_email", { to: "nobody@acme.example" }, { callId: "e2" }),
          functionCall("send_email", { to: ALLOWED }, { callId: "e3" }),
        ],
        [assistantMessage("done")],
      ],
    );
    await runner.run(agent, "go");
    expect(lastResults(model)).toEqual({
      e1: SDK_TOOL_ERROR_TEXT,
      e2: SDK_TOOL_ERROR_TEXT,
      e3: `sent to ${ALLOWED}`,
    });
    // A tool with errorFunction null throws out of invoke: the run fails, and the record keeps the error.
    const raw = agents.insure(
      tool({
        name: "read_inbox",
        description: "Read",
        parameters: z.object({}),
        errorFunction: null,
        execute: async (): Promise<string> => {
          throw new Error("disk on fire");
        },
      }),
    );
    const fatal = agentOf([raw], [[functionCall("read_inbox", {}, { callId: "e4" })]]);
    await expect(fatal.runner.run(fatal.agent, "go")).rejects.toBeInstanceOf(ToolCallError);
    // Invoked outside a run (no guardrail, no callId): recorded under a minted actionId.
    expect(await send.invoke(new RunContext(), JSON.stringify({ to: ALLOWED }))).toBe(`sent to ${ALLOWED}`);
    expect(await agents.finishPending()).toBe(0);
    // The three calls of one turn run concurrently, so their records come in either order.
    const byAction = calls(session.sessionId).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(byAction.slice(0, 4)).toEqual([
      ["e1", "read_inbox", "mailbox offline"],
      ["e2", "send_email", SDK_TOOL_ERROR_TEXT],
      ["e3", "send_email", `sent to ${ALLOWED}`],
      ["e4", "read_inbox", "disk on fire"],
    ]);
    expect(ins.records(session.sessionId)[4]).toMatchObject({
      tool: "send_email",
      actionId: expect.stringMatching(/^openai-agents:/),
      result: `sent to ${ALLOWED}`,
    });
    await session.close();
  });

  it("a run that stops after a call's guardrail leaves it open until finishPending()", async () => {
    const session = await ins.open("oa-pending");
    const agents = recordOpenAIAgents(session);
    const read = agents.tool({
      name: "read_inbox",
      description: "Read",
      parameters: z.object({}),
      execute: async () => "inbox",
    });
    const { agent, runner } = agentOf([read], [[functionCall("read_inbox", {}, { callId: "x1" })]]);
    runner.on("agent_tool_start", () => {
      throw new Error("listener failed");
    });
    await expect(runner.run(agent, "go")).rejects.toThrow(/listener failed/);
    expect(agents.recorder.open).toBe(1);
    expect(await agents.finishPending()).toBe(1);
    expect(calls(session.sessionId)).toEqual([
      ["x1", "read_inbox", "the harness reported no outcome for this call"],
    ]);
    await session.close();
  });

  it("refuses what it cannot record: a non-function tool, an approval item of another kind, a missing state", async () => {
    const session = await ins.open("oa-inputs");
    const agents = recordOpenAIAgents(session);
    expect(() => agents.insure({ type: "hosted_tool", name: "web_search" } as never)).toThrow(
      HarnessInputError,
    );
    const shellItem = { type: "tool_approval_item", rawItem: { type: "shell_call" } } as never;
    const state = { approve() {}, reject() {} } as unknown as RunResult<any, any>["state"];
    expect(() => agents.approve(state, shellItem, { authority: "human" })).toThrow(/shell_call approvals/);
    expect(() => agents.reject(undefined as never, shellItem, { authority: "human" })).toThrow(/RunState/);
    await session.close();
  });
});
