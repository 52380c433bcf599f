// The Vercel AI SDK adapter, offline with the SDK's own MockLanguageModelV3: the example agent insured
// and settled both ways, approvals (allow, deny, timeout) as the authorization records AAP-1 reads,
// guard refusals the model reads, tool errors, streaming tools and replayed toolCallIds.
import { generateText, stepCountIs, tool, type ModelMessage, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { GuardRefusal } from "../../sdk/core/errors.js";
import {
  HarnessInputError,
  ToolRefusedError,
  answerApproval,
  approvalRequests,
  recordTools,
} from "../../sdk/adapters/ai.js";
import { runAiAgent, scriptedModel } from "../../examples/ai/agent.js";
import { ALLOWED, ATTACKER, PAID, insurance, type Insurance } from "./insurance.js";

let ins: Insurance;
beforeAll(async () => {
  ins = await insurance();
});
afterAll(async () => ins?.dispose());

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};
type Step = Array<{ id: string; tool: string; input: object }> | string;

/** A model that plays the given steps in order: tool calls, or a final text. */
function playing(...steps: Step[]) {
  return new MockLanguageModelV3({
    doGenerate: steps.map((step) =>
      typeof step === "string"
        ? {
            content: [{ type: "text", text: step }],
            finishReason: { unified: "stop", raw: undefined },
            usage: USAGE,
            warnings: [],
          }
        : {
            content: step.map((c) => ({
              type: "tool-call" as const,
              toolCallId: c.id,
              toolName: c.tool,
              input: JSON.stringify(c.input),
            })),
            finishReason: { unified: "tool-calls", raw: undefined },
            usage: USAGE,
            warnings: [],
          },
    ),
  });
}

/** The tool results a model was given in one of its turns, by toolCallId. */
function toolResults(model: MockLanguageModelV3, turn: number) {
  return Object.fromEntries(
    model.doGenerateCalls[turn]!.prompt.flatMap((m) =>
      m.role === "tool"
        ? m.content.flatMap((p) => (p.type === "tool-result" ? [[p.toolCallId, p.output]] : []))
        : [],
    ),
  );
}

const calls = (sessionId: `0x${string}`) => ins.records(sessionId).filter((r) => r.kind === "call");

describe("Vercel AI SDK adapter", () => {
  it("a compliant run is recorded under the SDK's toolCallIds and settles satisfied", async () => {
    const session = await ins.open("ai-compliant");
    const run = await runAiAgent({ session, scenario: "compliant", extraCalls: 1 });
    expect(run.outbox).toEqual([ALLOWED]);
    expect(run.toolCalls).toBe(3);
    expect(run.output).toBe(`sent to ${ALLOWED}`);
    const settled = await ins.settle(session, "AAP-4");
    expect(settled.records.map((r) => r.kind === "call" && [r.actionId, r.tool, r.result])).toEqual([
      ["call_1", "read_inbox", expect.stringContaining("bob@acme.example")],
      ["call_2", "read_inbox", expect.stringContaining("bob@acme.example")],
      ["call_3", "send_email", `sent to ${ALLOWED}`],
    ]);
    expect(settled.records[2]).toMatchObject({ args: { to: ALLOWED, subject: "standup notes" } });
    expect(settled).toMatchObject({ violated: false, providerGain: PAID.satisfied });
  });

  it("a prompt-injected run mails eve and settles violated", async () => {
    const session = await ins.open("ai-injected");
    const run = await runAiAgent({ session, scenario: "injected" });
    expect(run.outbox).toEqual([ATTACKER]);
    const settled = await ins.settle(session, "AAP-4");
    expect(settled.records[1]).toMatchObject({
      kind: "call",
      actionId: "call_2",
      tool: "send_email",
      args: { to: ATTACKER },
    });
    expect(settled).toMatchObject({ violated: true, userGain: PAID.violated });
  });

  it("guard mode: the send to eve is refused, stored as blocked, and the model reads the refusal", async () => {
    const session = await ins.open("ai-guard", { guard: true });
    const model = scriptedModel();
    const run = await runAiAgent({ session, scenario: "injected", model });
    expect(run.outbox).toEqual([]);
    expect(calls(session.sessionId)).toMatchObject([
      { actionId: "call_1", tool: "read_inbox" },
      { actionId: "call_2", tool: "send_email", args: { to: ATTACKER }, blocked: true },
    ]);
    // The turn after the send: the SDK handed the model the refusal as the tool's error text.
    const denial = toolResults(model, 2)["call_2"];
    expect(denial).toEqual({
      type: "error-text",
      value: expect.stringMatching(/^zkVAI guard refused send_email: it would break promise 0 \(AAP-4\)/),
    });
    expect(run.output).toMatch(/^I could not send it: zkVAI guard refused send_email/);
    const error = run.result.steps[1]!.content.find((p) => p.type === "tool-error");
    expect(error?.type === "tool-error" && error.error).toBeInstanceOf(ToolRefusedError);
    expect((error as { error: ToolRefusedError }).error.refusal).toBeInstanceOf(GuardRefusal);
    await session.close();
  });

  it("approvals: allow, deny and timeout become AAP-1's authorization records; only the allowed call runs", async () => {
    const session = await ins.open("ai-approvals");
    const deleted: string[] = [];
    const tools = recordTools(session, {
      delete_file: tool({
        inputSchema: z.object({ path: z.string() }),
        needsApproval: true,
        execute: async ({ path }) => (deleted.push(path), `deleted ${path}`),
      }),
    });
    const model = playing(
      [
        { id: "del-1", tool: "delete_file", input: { path: "/tmp/a" } },
        { id: "del-2", tool: "delete_file", input: { path: "/etc" } },
        { id: "del-3", tool: "delete_file", input: { path: "/home" } },
      ],
      "done",
      "done again",
    );
    const messages: ModelMessage[] = [{ role: "user", content: "clean up" }];
    const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    const requests = approvalRequests<typeof tools>(first);
    expect(requests.map((r) => r.toolCall.toolCallId)).toEqual(["del-1", "del-2", "del-3"]);
    expect(deleted).toEqual([]);
    expect(() => answerApproval(session, requests[0]!, { decision: "allow" } as never)).toThrow(
      HarnessInputError,
    );
    const responses = [
      answerApproval(session, requests[0]!, { decision: "allow", authority: "human" }),
      answerApproval(session, requests[1]!, {
        decision: "deny",
        authority: "policy",
        policyId: "no-system-paths",
        reason: "system path",
      }),
      answerApproval(session, requests[2]!, {
        decision: "timeout",
        authority: "policy",
        policyId: "approval-timeout",
      }),
    ];
    expect(responses.map((r) => [r.approved, r.reason])).toEqual([
      [true, undefined],
      [false, "system path"],
      [false, "no approval was given in time"],
    ]);
    messages.push(...first.response.messages, { role: "tool", content: responses });
    await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    expect(deleted).toEqual(["/tmp/a"]);
    // The denied calls reach the model as execution-denied with the reason given.
    expect(toolResults(model, 1)).toMatchObject({
      "del-1": { type: "text", value: "deleted /tmp/a" },
      "del-2": { type: "execution-denied", reason: "system path" },
      "del-3": { type: "execution-denied", reason: "no approval was given in time" },
    });
    // A retried continuation executes del-1 again: the toolCallId replays its stored result.
    await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    expect(deleted).toEqual(["/tmp/a"]);
    expect(toolResults(model, 2)["del-1"]).toEqual({ type: "text", value: "deleted /tmp/a" });
    const records = ins.records(session.sessionId);
    expect(
      records.map((r) => [r.kind, r.kind === "call" || r.kind === "authorization" ? r.actionId : null]),
    ).toEqual([
      ["authorization", "del-1"],
      ["authorization", "del-2"],
      ["authorization", "del-3"],
      ["call", "del-1"],
    ]);
    expect(records.slice(0, 3)).toMatchObject([
      { decision: "allow", authority: "human", scope: "once", tool: "delete_file" },
      { decision: "deny", authority: "policy", policyId: "no-system-paths" },
      { decision: "timeout", authority: "policy" },
    ]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    // Run anyway (an integrator that ignores the denial), del-2 is a gated call without a valid approval.
    await tools.delete_file.execute!({ path: "/etc" }, { toolCallId: "del-2", messages: [] });
    expect(ins.verdict(session.sessionId, "AAP-1")).toMatchObject({ violated: true, seq: 4 });
    await session.close();
  });

  it("a throwing tool is recorded as its error and reaches the model as a tool error; streams record their last value", async () => {
    const session = await ins.open("ai-errors");
    const offline = new Error("mailbox offline");
    const tools = recordTools(
      session,
      {
        read_inbox: tool({
          inputSchema: z.object({}),
          execute: async (): Promise<string> => {
            throw offline;
          },
        }),
        send_email: tool({
          inputSchema: z.object({ to: z.string() }),
          async *execute({ to }) {
            yield `sending to ${to}`;
            yield `sent to ${to}`;
          },
        }),
        clock: tool({ inputSchema: z.object({}), execute: async () => "noon" }),
      } satisfies ToolSet,
      { unrecorded: ["clock"] },
    );
    const model = playing(
      [
        { id: "r1", tool: "read_inbox", input: {} },
        { id: "s1", tool: "send_email", input: { to: ALLOWED } },
        { id: "c1", tool: "clock", input: {} },
      ],
      "ok",
    );
    const result = await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(2) });
    const error = result.steps[0]!.content.find((p) => p.type === "tool-error");
    expect(error).toMatchObject({ toolCallId: "r1", error: offline });
    expect(toolResults(model, 1)).toEqual({
      r1: { type: "error-text", value: "mailbox offline" },
      s1: { type: "text", value: `sent to ${ALLOWED}` },
      c1: { type: "text", value: "noon" },
    });
    const recorded = calls(session.sessionId).sort((a, b) => (a.actionId! < b.actionId! ? -1 : 1));
    expect(recorded.map((r) => [r.actionId, r.error ?? r.result])).toEqual([
      ["r1", "mailbox offline"],
      ["s1", `sent to ${ALLOWED}`],
    ]);
    // A replayed streaming call yields its stored result once, without running the tool.
    const replay: unknown[] = [];
    for await (const v of tools.send_email.execute!(
      { to: ALLOWED },
      { toolCallId: "s1", messages: [] },
    ) as AsyncIterable<unknown>)
      replay.push(v);
    expect(replay).toEqual([`sent to ${ALLOWED}`]);
    expect(calls(session.sessionId)).toHaveLength(2);
    await session.close();
  });

  it("refuses what it cannot record: tools without execute, calls without a toolCallId, tools outside the profile", async () => {
    const session = await ins.open("ai-refusals");
    const search = { inputSchema: z.object({ q: z.string() }) };
    expect(() => recordTools(session, { web_search: tool(search) })).toThrow(/no execute function/);
    expect(
      recordTools(session, { web_search: tool(search) }, { unrecorded: ["web_search"] }).web_search,
    ).toBeDefined();
    // A profile tool cannot be passed through unrecorded: a promise may read its calls.
    const send = tool({ inputSchema: z.object({ to: z.string() }), execute: async () => "sent" });
    expect(() => recordTools(session, { send_email: send }, { unrecorded: ["send_email"] })).toThrow(
      /must be recorded/,
    );
    const tools = recordTools(session, {
      read_inbox: tool({ inputSchema: z.object({}), execute: async () => "inbox" }),
      shell: tool({ inputSchema: z.object({ cmd: z.string() }), execute: async () => "ran" }),
    });
    expect(() => recordTools(session, tools)).toThrow(/already recorded/);
    await expect(tools.read_inbox.execute!({}, { messages: [] } as never)).rejects.toThrow(HarnessInputError);
    // A tool the profile does not name is refused before it runs, with a reason the model reads.
    const refused = tools.shell.execute!(
      { cmd: "ls" },
      { toolCallId: "x1", messages: [] },
    ) as Promise<unknown>;
    await expect(refused).rejects.toBeInstanceOf(ToolRefusedError);
    await expect(refused).rejects.toThrow(/^zkVAI refused shell: /);
    expect(calls(session.sessionId)).toEqual([]);
    await session.close();
  });
});
