// The LangChain.js adapter, offline: createAgent with @langchain/core's fakeModel, the zkVAI tool middleware,
// humanInTheLoopMiddleware for approvals, settled through the adapter fixture's chain and escrow.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAgent,
  createMiddleware,
  humanInTheLoopMiddleware,
  toolRetryMiddleware,
  tool,
  AIMessage,
  ToolMessage,
  type BaseMessage,
} from "langchain";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver, interrupt } from "@langchain/langgraph";
import { z } from "zod";
import {
  HarnessInputError,
  recordLangChain,
  type LangChainAdapterOptions,
} from "../../sdk/adapters/langchain.js";
import type { Session } from "../../sdk/provider/session.js";
import { exampleAgent, runAgent, scriptedModel } from "../../examples/langchain/agent.js";
import { ALLOWED, ATTACKER, PAID, insurance, type Insurance } from "./insurance.js";

let ins: Insurance;
beforeAll(async () => {
  ins = await insurance();
});
afterAll(async () => ins?.dispose());

const ask = { messages: [{ role: "user", content: "go" }] };
const calls = (session: Session) =>
  ins
    .records(session.sessionId)
    .map((r) =>
      r.kind === "call"
        ? [r.actionId, r.tool, r.error ?? r.result, ...(r.blocked ? ["blocked"] : [])]
        : r.kind === "authorization"
          ? [r.actionId, r.decision, r.authority]
          : [r.kind],
    );
const toolMessages = (messages: BaseMessage[]) =>
  messages.filter((m) => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m.text, m.status]);

/** delete_file behind humanInTheLoopMiddleware, a model that calls it once per script entry, then answers. */
function approvalsAgent(session: Session, deletes: { id: string; path: string }[]) {
  const deleted: string[] = [];
  const deleteFile = tool(async ({ path }) => (deleted.push(path), `deleted ${path}`), {
    name: "delete_file",
    description: "Delete a file.",
    schema: z.object({ path: z.string() }),
  });
  const model = fakeModel();
  for (const d of deletes)
    model.respondWithTools([{ name: "delete_file", args: { path: d.path }, id: d.id }]);
  model.respond(new AIMessage("done"));
  const zk = recordLangChain(session);
  const agent = createAgent({
    model,
    tools: [deleteFile],
    middleware: [zk.middleware, humanInTheLoopMiddleware({ interruptOn: { delete_file: true } })],
    checkpointer: new MemorySaver(),
  });
  return { agent, model, zk, deleted, config: { configurable: { thread_id: "t1" } } };
}

/** An agent whose read_inbox is `run`, and a model that calls it once (id r1), then answers. */
function inboxAgent(
  session: Session | undefined,
  run: () => Promise<unknown>,
  opts?: LangChainAdapterOptions,
) {
  const readInbox = tool(run, { name: "read_inbox", description: "Read the inbox.", schema: z.object({}) });
  const model = fakeModel()
    .respondWithTools([{ name: "read_inbox", args: {}, id: "r1" }])
    .respond(new AIMessage("ok"));
  const middleware = session ? [recordLangChain(session, opts).middleware] : [];
  return {
    model,
    agent: createAgent({ model, tools: [readInbox], middleware, checkpointer: new MemorySaver() }),
  };
}

describe("LangChain.js adapter", () => {
  it("a compliant run: every tool call recorded under its tool call id; the claim settles satisfied", async () => {
    const session = await ins.open("langchain-compliant");
    const run = await runAgent({ session, scenario: "compliant" });
    expect(run).toMatchObject({ toolCalls: 2, model: "scripted" });
    expect(calls(session)).toEqual([
      ["call_read_0", "read_inbox", expect.stringContaining("please send the standup notes")],
      ["call_send", "send_email", `sent "standup notes" to ${ALLOWED}`],
    ]);
    const settled = await ins.settle(session, "AAP-4");
    expect(settled).toMatchObject({ violated: false, providerGain: PAID.satisfied });
  });

  it("a prompt-injected run mails eve; the claim settles violated and pays the user", async () => {
    const session = await ins.open("langchain-injected");
    await runAgent({ session, scenario: "injected", extraCalls: 1 });
    expect(calls(session).map((c) => c[0])).toEqual(["call_read_0", "call_read_1", "call_send"]);
    expect(ins.records(session.sessionId)[2]).toMatchObject({ args: { to: ATTACKER } });
    const settled = await ins.settle(session, "AAP-4");
    expect(settled).toMatchObject({ violated: true, userGain: PAID.violated });
  });

  it("approve: an allow record for the interrupted call id and args, then the call; AAP-1 satisfied", async () => {
    const session = await ins.open("langchain-approve");
    const { agent, zk, deleted, config } = approvalsAgent(session, [
      { id: "del_1", path: "/tmp/a" },
      { id: "del_2", path: "/tmp/b" },
    ]);
    let result = await agent.invoke(ask, config);
    expect(zk.approvals.pending(result)).toMatchObject([
      { callId: "del_1", tool: "delete_file", args: { path: "/tmp/a" } },
    ]);
    // The authority is the integrator's to name: without one nothing is recorded.
    expect(() => zk.approvals.decide(result, [{ type: "approve" }], {} as never)).toThrow(HarnessInputError);
    expect(ins.records(session.sessionId)).toEqual([]);
    result = await agent.invoke(
      new Command({ resume: zk.approvals.decide(result, [{ type: "approve" }], { authority: "human" }) }),
      config,
    );
    // The next turn's call, approved with an edit: the allow covers the edited args, which then run.
    const [next] = zk.approvals.pending(result);
    expect(next).toMatchObject({ callId: "del_2", args: { path: "/tmp/b" } });
    const edit = {
      type: "edit" as const,
      editedAction: { name: "delete_file", args: { path: "/tmp/b.bak" } },
    };
    const resume = zk.approvals.decide(result, [{ ...edit, authority: "policy", policyId: "backups-only" }], {
      authority: "human",
    });
    expect(resume).toEqual({ decisions: [edit] });
    await agent.invoke(new Command({ resume }), config);
    expect(deleted).toEqual(["/tmp/a", "/tmp/b.bak"]);
    expect(calls(session)).toEqual([
      ["del_1", "allow", "human"],
      ["del_1", "delete_file", "deleted /tmp/a"],
      ["del_2", "allow", "policy"],
      ["del_2", "delete_file", "deleted /tmp/b.bak"],
    ]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await session.close();
  });

  it("reject: a deny record, the call is not run, the model gets the rejection; a gated call run anyway violates", async () => {
    const session = await ins.open("langchain-deny");
    const { agent, model, zk, deleted, config } = approvalsAgent(session, [{ id: "del_1", path: "/etc" }]);
    const result = await agent.invoke(ask, config);
    expect(() => zk.approvals.decide(result, [], { authority: "human" })).toThrow(
      /0 decisions for 1 pending/,
    );
    const resume = zk.approvals.decide(result, [{ type: "reject", message: "not /etc" }], {
      authority: "human",
    });
    await agent.invoke(new Command({ resume }), config);
    expect(deleted).toEqual([]);
    expect(toolMessages(model.calls.at(-1)!.messages)).toEqual([["del_1", "not /etc", "error"]]);
    expect(calls(session)).toEqual([["del_1", "deny", "human"]]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    // The same call id run without review (another agent, no HITL): AAP-1 reads the deny and is violated.
    const unreviewed = createAgent({
      model: fakeModel()
        .respondWithTools([{ name: "delete_file", args: { path: "/etc" }, id: "del_1" }])
        .respond(new AIMessage("x")),
      tools: [
        tool(async () => "deleted /etc", {
          name: "delete_file",
          description: "d",
          schema: z.object({ path: z.string() }),
        }),
      ],
      middleware: [recordLangChain(session).middleware],
    });
    await unreviewed.invoke(ask);
    expect(ins.verdict(session.sessionId, "AAP-1")).toMatchObject({ violated: true });
    await session.close();
  });

  it("timeout: decideWithin records a timeout and resumes with a reject, so the call is not run", async () => {
    const session = await ins.open("langchain-timeout");
    const { agent, model, zk, deleted, config } = approvalsAgent(session, [{ id: "del_1", path: "/tmp/c" }]);
    const result = await agent.invoke(ask, config);
    const never = () => new Promise<never>(() => {});
    const resume = await zk.approvals.decideWithin(result, never, {
      timeoutMs: 1,
      authority: "policy",
      policyId: "5-min-sla",
    });
    expect(resume.decisions).toEqual([{ type: "reject", message: expect.stringMatching(/timed out/) }]);
    await agent.invoke(new Command({ resume }), config);
    expect(deleted).toEqual([]);
    expect(toolMessages(model.calls.at(-1)!.messages)[0][2]).toBe("error");
    expect(calls(session)).toEqual([["del_1", "timeout", "policy"]]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await session.close();
  });

  it("guard mode: the send to eve is blocked and stored, the model receives the refusal, the run goes on", async () => {
    const session = await ins.open("langchain-guard", { guard: true });
    const model = scriptedModel();
    const result = await exampleAgent({ scenario: "injected", model, session }).invoke(ask);
    expect(calls(session)).toEqual([
      ["call_read_0", "read_inbox", expect.any(String)],
      ["call_send", "send_email", expect.stringMatching(/refused by guard/), "blocked"],
    ]);
    expect(model.callCount).toBe(3);
    const [, refused] = toolMessages(model.calls[2].messages);
    expect(refused).toEqual([
      "call_send",
      expect.stringMatching(/^zkVAI guard refused send_email: it would break promise 0 \(AAP-4\)/),
      "error",
    ]);
    expect((result.messages as BaseMessage[]).at(-1)?.text).toMatch(/^Done: zkVAI guard refused/);
    await session.close();
  });

  it("a tool that throws: recorded as its error, the model gets createAgent's own error message", async () => {
    const session = await ins.open("langchain-errors");
    const offline = async () => {
      throw new Error("mailbox offline");
    };
    const insured = inboxAgent(session, offline);
    await insured.agent.invoke(ask, { configurable: { thread_id: "e1" } });
    // What the model is given is what it is given without the adapter.
    const bare = inboxAgent(undefined, offline);
    await bare.agent.invoke(ask, { configurable: { thread_id: "e1" } });
    expect(toolMessages(insured.model.calls[1].messages)).toEqual(toolMessages(bare.model.calls[1].messages));
    expect(toolMessages(insured.model.calls[1].messages)).toEqual([
      ["r1", "Error: mailbox offline\n Please fix your mistakes.", "error"],
    ]);
    expect(calls(session)).toEqual([["r1", "read_inbox", "mailbox offline"]]);
    await session.close();

    // toolErrors: "throw" re-throws for an outer middleware (here none: the run fails), after recording.
    const thrown = await ins.open("langchain-errors-throw");
    await expect(
      inboxAgent(thrown, offline, { toolErrors: "throw" }).agent.invoke(ask, {
        configurable: { thread_id: "e2" },
      }),
    ).rejects.toThrow("mailbox offline");
    expect(calls(thrown)).toEqual([["r1", "read_inbox", "mailbox offline"]]);
    // An error ToolMessage the tool returns is recorded as the call's error; the model gets the message.
    const returned = fakeModel()
      .respondWithTools([{ name: "read_inbox", args: {}, id: "r2" }])
      .respond(new AIMessage("ok"));
    const agent = createAgent({
      model: returned,
      tools: [
        tool(
          async () => new ToolMessage({ content: "quota exceeded", tool_call_id: "r2", status: "error" }),
          { name: "read_inbox", description: "r", schema: z.object({}) },
        ),
      ],
      middleware: [recordLangChain(thrown).middleware],
    });
    await agent.invoke(ask);
    expect(toolMessages(returned.calls[1].messages)).toEqual([["r2", "quota exceeded", "error"]]);
    expect(calls(thrown)[1]).toEqual(["r2", "read_inbox", "quota exceeded"]);
    await thrown.close();
  });

  it("the tool call id is the actionId: the same id dispatched again replays, the tool runs once", async () => {
    const session = await ins.open("langchain-replay");
    let runs = 0;
    const read = async () => `inbox #${++runs}`;
    const first = inboxAgent(session, read);
    await first.agent.invoke(ask, { configurable: { thread_id: "a" } });
    const again = inboxAgent(session, read);
    await again.agent.invoke(ask, { configurable: { thread_id: "b" } });
    expect(runs).toBe(1);
    expect(toolMessages(again.model.calls[1].messages)).toEqual([["r1", "inbox #1", undefined]]);
    expect(calls(session)).toEqual([["r1", "read_inbox", "inbox #1"]]);
    // The id reused for other args is refused, not run; the model reads why.
    const model = fakeModel()
      .respondWithTools([{ name: "read_inbox", args: { folder: "spam" }, id: "r1" }])
      .respond(new AIMessage("ok"));
    const readInbox = tool(read, {
      name: "read_inbox",
      description: "r",
      schema: z.object({ folder: z.string() }),
    });
    await createAgent({
      model,
      tools: [readInbox],
      middleware: [recordLangChain(session).middleware],
    }).invoke(ask);
    expect(runs).toBe(1);
    expect(toolMessages(model.calls[1].messages)).toEqual([
      ["r1", expect.stringMatching(/^zkVAI refused read_inbox: actionId "r1" already names a call/), "error"],
    ]);
    await session.close();
  });

  it("a tool that calls interrupt(): the paused attempt is a blocked record; the resumed run is the call, under its id", async () => {
    const session = await ins.open("langchain-interrupt");
    const deleted: string[] = [];
    // An in-tool approval: the tool asks, the run pauses, the integrator records the decision and resumes.
    const deleteFile = tool(
      async ({ path }, runtime) => {
        const answer = interrupt({ callId: runtime.toolCall?.id, question: `delete ${path}?` });
        if (answer !== "yes") return `kept ${path}`;
        deleted.push(path);
        return `deleted ${path}`;
      },
      { name: "delete_file", description: "Delete a file.", schema: z.object({ path: z.string() }) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: "delete_file", args: { path: "/tmp/x" }, id: "del_1" }])
      .respond(new AIMessage("ok"));
    const zk = recordLangChain(session);
    const agent = createAgent({
      model,
      tools: [deleteFile],
      middleware: [zk.middleware],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "i1" } };
    const paused = await agent.invoke(ask, config);
    expect(paused.__interrupt__).toMatchObject([{ value: { callId: "del_1" } }]);
    expect(deleted).toEqual([]);
    // Not an execution: no predicate reads it as a call, and the actionId is still free.
    expect(calls(session)).toEqual([
      ["del_1", "delete_file", expect.stringMatching(/^not run: langgraph interrupt: /), "blocked"],
    ]);
    zk.recorder.approve(
      { callId: "del_1", tool: "delete_file", args: { path: "/tmp/x" } },
      { decision: "allow", authority: "human" },
    );
    await agent.invoke(new Command({ resume: "yes" }), config);
    expect(deleted).toEqual(["/tmp/x"]);
    expect(toolMessages(model.calls[1].messages)).toEqual([["del_1", "deleted /tmp/x", "success"]]);
    expect(calls(session)).toEqual([
      ["del_1", "delete_file", expect.stringMatching(/^not run: langgraph interrupt: /), "blocked"],
      ["del_1", "allow", "human"],
      ["del_1", "delete_file", "deleted /tmp/x"],
    ]);
    // The approval given while the tool waited precedes the one execution it covers.
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await session.close();
  });
  it("middleware order (docs): first records one call with the model's args; last records what ran", async () => {
    // An inner middleware that rewrites the args, and toolRetryMiddleware around a tool that fails twice.
    const rewrite = createMiddleware({
      name: "rewrite",
      wrapToolCall: (req, handler) =>
        handler({ ...req, toolCall: { ...req.toolCall, args: { folder: "spam" } } }),
    });
    const runWith = async (
      name: string,
      order: (zk: ReturnType<typeof recordLangChain>["middleware"]) => unknown[],
    ) => {
      const session = await ins.open(name);
      const ran: string[] = [];
      const flaky = tool(
        async ({ folder }) => {
          ran.push(folder);
          if (ran.length < 3) throw new Error(`flaky ${ran.length}`);
          return `inbox ${folder}`;
        },
        { name: "read_inbox", description: "r", schema: z.object({ folder: z.string() }) },
      );
      const model = fakeModel()
        .respondWithTools([{ name: "read_inbox", args: { folder: "in" }, id: "r1" }])
        .respond(new AIMessage("ok"));
      const middleware = order(recordLangChain(session).middleware) as [];
      await createAgent({ model, tools: [flaky], middleware }).invoke(ask);
      const records = ins.records(session.sessionId);
      await session.close();
      return { ran, records };
    };
    const retry = toolRetryMiddleware({ maxRetries: 3, initialDelayMs: 0 });
    // First (outermost): three runs with the rewritten args, one record with the model's args.
    const first = await runWith("langchain-order-first", (zk) => [zk, rewrite, retry]);
    expect(first.ran).toEqual(["spam", "spam", "spam"]);
    expect(first.records).toMatchObject([{ actionId: "r1", args: { folder: "in" }, result: "inbox spam" }]);
    // Last (innermost): the one run there is, with the args it ran with; the retry does not run it again.
    const last = await runWith("langchain-order-last", (zk) => [rewrite, retry, zk]);
    expect(last.ran).toEqual(["spam"]);
    expect(last.records).toMatchObject([{ actionId: "r1", args: { folder: "spam" }, error: "flaky 1" }]);
  });
});
