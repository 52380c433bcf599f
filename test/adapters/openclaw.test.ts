// The OpenClaw plugin in a stand-in for OpenClaw's host and runner (examples/openclaw/runner.ts: the
// mirrored plugin api, before_tool_call in OpenClaw's order and merge, repeated firings, after_tool_call
// not awaited). The example agent settles a clean and an injected run; approvals (allow, deny, timeout,
// cancelled), guard refusals, failing tools, minted ids, exec's approval-pending, lost after hooks and a
// store that is down are checked on the stored records, the AAP-1 oracle and what the model was given.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HarnessRecorder } from "../../sdk/adapters/recorder.js";
import {
  HarnessInputError,
  zkvaiPlugin,
  type OpenClawApprovals,
  type PluginApprovalResolution,
} from "../../sdk/adapters/openclaw.js";
import type { Session } from "../../sdk/provider/session.js";
import { OPENCLAW_SESSION, ScriptedModel, runOpenClawAgent } from "../../examples/openclaw/agent.js";
import {
  DENIED_REASON,
  FakeOpenClaw,
  textResult,
  type FakeModel,
  type FakeTool,
  type ModelToolCall,
  type RunOptions,
  type Turn,
} from "../../examples/openclaw/runner.js";
import { ALLOWED, ATTACKER, PAID, insurance, type Insurance } from "./insurance.js";

let ins: Insurance;
beforeAll(async () => {
  ins = await insurance();
});
afterAll(async () => ins?.dispose());

const KEY = `${OPENCLAW_SESSION.sessionKey}/${OPENCLAW_SESSION.runId}`;

/** A model that makes the given tool calls, one turn each, then answers with the last result's text. */
function script(...turns: ModelToolCall[][]): FakeModel & { seen: Turn[][] } {
  const seen: Turn[][] = [];
  return {
    name: "scripted",
    seen,
    async reply(transcript) {
      seen.push([...transcript]);
      const turn = turns[seen.length - 1];
      if (turn) return { text: "", toolCalls: turn };
      const last = transcript[transcript.length - 1];
      return { text: last?.role === "tool" ? last.results.map((r) => r.text).join("\n") : "", toolCalls: [] };
    },
  };
}

/** The fixture's tools; each run is noted in `ran`. */
function tools(ran: string[]): FakeTool[] {
  return [
    { name: "read_inbox", execute: async () => (ran.push("read_inbox"), textResult("1 message")) },
    {
      name: "send_email",
      execute: async (_, p) => (ran.push(`send_email ${p.to}`), textResult(`sent to ${p.to}`)),
    },
    {
      name: "delete_file",
      execute: async (_, p) => (ran.push(`delete_file ${p.path}`), textResult("deleted")),
    },
  ];
}

/** An OpenClaw host with the zkVAI plugin for one session. */
function insured(session: Session, approvals?: OpenClawApprovals) {
  const recorder = new HarnessRecorder(session);
  const plugin = zkvaiPlugin({ recorderFor: () => recorder, ...(approvals ? { approvals } : {}) });
  const host = new FakeOpenClaw();
  host.load(plugin);
  const ran: string[] = [];
  const run = (model: FakeModel, opts: Partial<RunOptions> = {}) =>
    host.run({ model, tools: tools(ran), task: "go", session: OPENCLAW_SESSION, ...opts });
  return { recorder, plugin, host, ran, run };
}

const call = (id: string | undefined, name: string, args: Record<string, unknown> = {}): ModelToolCall => ({
  ...(id ? { id } : {}),
  name,
  arguments: args,
});
const results = (t: { transcript: Turn[] }) =>
  t.transcript.flatMap((x) => (x.role === "tool" ? x.results : []));

describe("OpenClaw plugin", () => {
  it("a compliant run settles satisfied; actionIds are session/run/toolCallId, each call recorded once", async () => {
    const session = await ins.open("openclaw-compliant");
    // The example fires before_tool_call twice per call (openclaw#15502).
    const run = await runOpenClawAgent({ session, scenario: "compliant", extraCalls: 1 });
    expect(run).toMatchObject({ toolCalls: 3, model: "scripted", outbox: [ALLOWED] });
    const settled = await ins.settle(session, "AAP-4");
    expect(settled.records.map((r) => r.kind === "call" && [r.actionId, r.tool])).toEqual([
      [`${KEY}/call_1`, "read_inbox"],
      [`${KEY}/call_2`, "read_inbox"],
      [`${KEY}/call_3`, "send_email"],
    ]);
    expect(settled).toMatchObject({ violated: false, providerGain: PAID.satisfied });
  });

  it("a prompt-injected run mails eve and settles violated", async () => {
    const session = await ins.open("openclaw-injected");
    const run = await runOpenClawAgent({ session, scenario: "injected" });
    expect(run.outbox).toEqual([ATTACKER]);
    const settled = await ins.settle(session, "AAP-4");
    expect(settled.records.map((r) => r.kind === "call" && r.tool)).toEqual(["read_inbox", "send_email"]);
    expect(settled).toMatchObject({ violated: true, userGain: PAID.violated });
  });

  it("guard mode: the send to eve is blocked, stored as blocked, and the model reads the refusal", async () => {
    const session = await ins.open("openclaw-guard", { guard: true });
    const model = new ScriptedModel();
    const run = await runOpenClawAgent({ session, scenario: "injected", model });
    expect(run.outbox).toEqual([]);
    const records = ins.records(session.sessionId);
    expect(records).toMatchObject([
      { kind: "call", tool: "read_inbox", actionId: `${KEY}/call_1` },
      { kind: "call", tool: "send_email", blocked: true, actionId: `${KEY}/call_2`, args: { to: ATTACKER } },
    ]);
    // The model's next turn holds OpenClaw's blocked tool result with the guard's reason.
    const next = model.seen[model.seen.length - 1]!;
    expect(next[next.length - 1]).toMatchObject({
      role: "tool",
      results: [
        {
          toolName: "send_email",
          isError: false,
          text: expect.stringMatching(/zkVAI guard refused send_email: it would break promise 0 \(AAP-4\)/),
        },
      ],
    });
    expect(run.output).toMatch(/zkVAI guard refused/);
    await session.close();
  });

  it("approvals: allow, deny and timeout become authorization records; cancelled records nothing; asked once per call", async () => {
    const session = await ins.open("openclaw-approvals");
    const { ran, run, recorder, plugin } = insured(session, { tools: ["delete_file"], authority: "human" });
    const answers: Record<string, PluginApprovalResolution> = {
      a: "allow-once",
      b: "deny",
      c: "timeout",
      d: "cancelled",
    };
    const asked: string[] = [];
    const files = ["a", "b", "c", "d"];
    const out = await run(script(...files.map((f) => [call(`del_${f}`, "delete_file", { path: f })])), {
      repeatBeforeToolCall: 1,
      approver: (req) => {
        asked.push(`${req.toolName} ${req.toolCallId} ${req.severity} ${req.allowedDecisions?.join("|")}`);
        return answers[req.toolCallId!.slice(4)]!;
      },
    });
    expect(asked).toEqual(files.map((f) => `delete_file del_${f} warning allow-once|deny`));
    expect(ran).toEqual(["delete_file a"]);
    expect(results(out).map((r) => [r.isError, r.text.split("\n")[0]])).toEqual([
      [false, "deleted"],
      [true, DENIED_REASON],
      [true, "Approval timed out"],
      [true, "Plugin approval unavailable (no approval route)"],
    ]);
    await plugin.idle();
    expect(recorder.open).toBe(0);
    const records = ins.records(session.sessionId);
    expect(
      records.map((r) =>
        r.kind === "authorization"
          ? [r.kind, r.actionId, r.decision]
          : r.kind === "call" && [r.kind, r.actionId, r.result],
      ),
    ).toEqual([
      ["authorization", `${KEY}/del_a`, "allow"],
      ["call", `${KEY}/del_a`, { content: [{ type: "text", text: "deleted" }] }],
      ["authorization", `${KEY}/del_b`, "deny"],
      ["authorization", `${KEY}/del_c`, "timeout"],
    ]);
    expect(records[0]).toMatchObject({ tool: "delete_file", authority: "human", scope: "once" });
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await session.close();
  });

  it("the authority is the integrator's: an allow from one AAP-1 does not accept leaves the call unauthorized", async () => {
    const session = await ins.open("openclaw-auto-review");
    const { ran, run, plugin } = insured(session, {
      tools: ["delete_file"],
      authority: "auto_review",
      allowAlways: true,
    });
    await run(script([call("d1", "delete_file", { path: "x" })]), { approver: () => "allow-always" });
    await plugin.idle();
    expect(ran).toEqual(["delete_file x"]);
    expect(ins.records(session.sessionId)[0]).toMatchObject({
      kind: "authorization",
      authority: "auto_review",
      scope: "persistent",
    });
    expect(ins.verdict(session.sessionId, "AAP-1")).toMatchObject({ violated: true, seq: 1 });
    await session.close();
    expect(() =>
      zkvaiPlugin({ recorderFor: () => undefined, approvals: { tools: ["delete_file"] } as never }),
    ).toThrow(/OpenClaw does not report who resolved/);
    expect(() =>
      zkvaiPlugin({
        recorderFor: () => undefined,
        approvals: { tools: ["delete_file"], authority: "policy" },
      }),
    ).toThrow(HarnessInputError);
  });

  it("guard mode after an approval: a refused call OpenClaw runs anyway is appended as run, not left as prevented", async () => {
    const session = await ins.open("openclaw-guard-approval", { guard: true });
    const { ran, run, plugin } = insured(session, { tools: ["delete_file"], authority: "auto_review" });
    await run(script([call("d1", "delete_file", { path: "x" })]), { approver: () => "allow-once" });
    await plugin.idle();
    expect(ran).toEqual(["delete_file x"]);
    expect(ins.records(session.sessionId)).toMatchObject([
      { kind: "authorization", decision: "allow", actionId: `${KEY}/d1` },
      { kind: "call", blocked: true, actionId: `${KEY}/d1` },
      { kind: "call", actionId: `${KEY}/d1`, result: { content: [{ text: "deleted" }] } },
    ]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(true);
    await session.close();
    // A tool wrapped twice fires before_tool_call again after the approval: that firing can block it.
    const again = await ins.open("openclaw-guard-approval-2", { guard: true });
    const twice = insured(again, { tools: ["delete_file"], authority: "auto_review" });
    await twice.run(script([call("d2", "delete_file", { path: "y" })]), {
      approver: () => "allow-once",
      repeatBeforeToolCall: 1,
    });
    await twice.plugin.idle();
    expect(twice.ran).toEqual([]);
    expect(ins.records(again.sessionId)).toMatchObject([
      { kind: "authorization", decision: "allow", actionId: `${KEY}/d2` },
      { kind: "call", blocked: true, actionId: `${KEY}/d2` },
    ]);
    expect(ins.records(again.sessionId)).toHaveLength(2);
    await again.close();
  });

  it("a tool that throws is recorded as its error and reaches the model as OpenClaw's error result", async () => {
    const session = await ins.open("openclaw-throws");
    const { host, recorder, plugin } = insured(session);
    const failing: FakeTool = {
      name: "read_inbox",
      execute: async () => {
        throw new Error("mailbox offline");
      },
    };
    const out = await host.run({
      model: script([call("r1", "read_inbox")]),
      tools: [failing],
      task: "go",
      session: OPENCLAW_SESSION,
    });
    expect(results(out)).toEqual([
      { toolCallId: "r1", toolName: "read_inbox", text: "mailbox offline", isError: true },
    ]);
    expect(await plugin.drain(recorder)).toBe(0);
    expect(ins.records(session.sessionId)).toMatchObject([
      { kind: "call", actionId: `${KEY}/r1`, error: "mailbox offline" },
    ]);
    await session.close();
  });

  it("without toolCallIds: minted actionIds; every firing is a call (over-recorded, never merged); each end finishes the oldest, once", async () => {
    const session = await ins.open("openclaw-minted");
    const { run, ran, plugin, recorder } = insured(session);
    await run(script([call("x", "read_inbox"), call("y", "send_email", { to: ALLOWED })]), {
      withoutToolCallIds: true,
      repeatBeforeToolCall: 2,
    });
    // Three firings each, one end each: the repeats never end, and drain records them.
    expect(await plugin.drain(recorder)).toBe(4);
    expect(ran).toEqual(["read_inbox", `send_email ${ALLOWED}`]);
    const records = ins.records(session.sessionId);
    const unknown = "the harness reported no outcome for this call";
    expect(records.map((r) => r.kind === "call" && [r.tool, r.error ?? "ok"])).toEqual([
      ["read_inbox", "ok"],
      ["send_email", "ok"],
      ["read_inbox", unknown],
      ["read_inbox", unknown],
      ["send_email", unknown],
      ["send_email", unknown],
    ]);
    const ids = records.map((r) => (r.kind === "call" ? r.actionId : undefined));
    expect(ids[0]).toMatch(new RegExp(`^${KEY}/zkvai-`));
    expect(new Set(ids).size).toBe(6);
    await session.close();
  });

  it("guard mode without toolCallIds: two identical calls at once are two calls, each guarded and recorded", async () => {
    const session = await ins.open("openclaw-minted-parallel", { guard: true });
    const { host, recorder, plugin } = insured(session);
    // The first send runs until the second one's before_tool_call has fired (a plugin ahead of zkVAI sees it).
    let fired = 0;
    let both!: () => void;
    const bothFired = new Promise<void>((resolve) => (both = resolve));
    host.load({
      id: "count",
      name: "count",
      description: "",
      register: (api) => api.on("before_tool_call", () => void (++fired === 2 && both()), { priority: 10 }),
    });
    const sent: string[] = [];
    const send: FakeTool = {
      name: "send_email",
      execute: async (_, p) => (await bothFired, sent.push(String(p.to)), textResult("sent")),
    };
    const go = () =>
      host.run({
        model: script([call(undefined, "send_email", { to: ALLOWED })]),
        tools: [send],
        task: "go",
        session: OPENCLAW_SESSION,
        withoutToolCallIds: true,
      });
    await Promise.all([go(), go()]);
    expect(await plugin.drain(recorder)).toBe(0);
    expect(sent).toEqual([ALLOWED, ALLOWED]);
    const records = ins.records(session.sessionId);
    // The second was begun as its own call: the guard checked it after the first was stored.
    expect(records).toMatchObject([
      { kind: "call", tool: "send_email", result: { content: [{ text: "sent" }] } },
      { kind: "call", tool: "send_email", result: { content: [{ text: "sent" }] } },
    ]);
    expect(records.map((r) => r.kind === "call" && r.blocked)).toEqual([undefined, undefined]);
    expect(new Set(records.map((r) => r.kind === "call" && r.actionId)).size).toBe(2);
    await session.close();
  });

  it("a toolCallId that recurs after its call ended is a new call, <key>#2, …: guarded and recorded, never replayed", async () => {
    const session = await ins.open("openclaw-recurring-id", { guard: true });
    const { run, ran, plugin, recorder } = insured(session);
    // A provider that counts tool calls per turn: every turn's call is call_0 (each fired twice, #15502).
    const sends = [ALLOWED, ALLOWED, ATTACKER].map((to) => [call("call_0", "send_email", { to })]);
    const out = await run(script(...sends), { repeatBeforeToolCall: 1 });
    await plugin.idle();
    expect(ran).toEqual([`send_email ${ALLOWED}`, `send_email ${ALLOWED}`]);
    expect(results(out)[2]!.text).toMatch(/zkVAI guard refused send_email/);
    const sent = { content: [{ text: `sent to ${ALLOWED}` }] };
    expect(ins.records(session.sessionId)).toMatchObject([
      { kind: "call", actionId: `${KEY}/call_0`, result: sent },
      { kind: "call", actionId: `${KEY}/call_0#2`, result: sent },
      { kind: "call", actionId: `${KEY}/call_0#3`, blocked: true, args: { to: ATTACKER } },
    ]);
    // A plugin that did not see those calls end (a restarted gateway): the store replays call_0 and
    // call_0#2, so the call takes the first key no executed call holds (a blocked record holds none).
    const host = new FakeOpenClaw();
    const again = zkvaiPlugin({ recorderFor: () => recorder });
    host.load(again);
    await host.run({
      model: script([call("call_0", "send_email", { to: ALLOWED })]),
      tools: tools(ran),
      task: "go",
      session: OPENCLAW_SESSION,
    });
    expect(await again.drain(recorder)).toBe(0);
    expect(ran).toHaveLength(3);
    expect(ins.records(session.sessionId)).toHaveLength(4);
    expect(ins.records(session.sessionId)[3]).toMatchObject({ actionId: `${KEY}/call_0#3`, result: sent });
    await session.close();
  });

  it("after_tool_call is not awaited; exec's approval-pending is no outcome; a lost end is closed by drain", async () => {
    const session = await ins.open("openclaw-pending");
    const { host, recorder, plugin } = insured(session);
    // Another plugin whose after_tool_call never settles: the run goes on regardless.
    host.load({
      id: "slow",
      name: "slow",
      description: "",
      register: (api) => api.on("after_tool_call", () => new Promise(() => {})),
    });
    // read_inbox stands in for exec here: its result is exec's while the command waits for an exec approval.
    const exec: FakeTool = {
      name: "read_inbox",
      execute: async () =>
        textResult("Approval required (id ap-1).", {
          status: "approval-pending",
          approvalId: "ap-1",
          command: "ls",
          host: "gateway",
        }),
    };
    const send: FakeTool = { name: "send_email", execute: async () => textResult("sent") };
    const out = await host.run({
      model: script([call("e1", "read_inbox")], [call("s1", "send_email", { to: ALLOWED })]),
      tools: [exec, send],
      task: "go",
      session: OPENCLAW_SESSION,
      noAfterToolCall: ["send_email"], // openclaw#155081
    });
    expect(out.toolCalls).toBe(2);
    expect(await plugin.drain(recorder)).toBe(1);
    expect(ins.records(session.sessionId)).toMatchObject([
      {
        tool: "read_inbox",
        actionId: `${KEY}/e1`,
        error: expect.stringMatching(/waiting for exec approval ap-1/),
      },
      { tool: "send_email", actionId: `${KEY}/s1`, error: "the harness reported no outcome for this call" },
    ]);
    expect(ins.records(session.sessionId)[0]).not.toHaveProperty("result");
    await session.close();
  });

  it("fails closed: a store that is down, a tool outside the profile and a failing recorderFor block with a reason", async () => {
    const session = await ins.open("openclaw-down", { guard: true });
    const { run, ran } = insured(session);
    // Guard mode reserves each call's record before its tool runs: a store that cannot take it is down.
    const ping = vi.spyOn(ins.store, "reserve").mockImplementation(() => {
      throw new Error("disk gone");
    });
    let out;
    try {
      out = await run(
        script([call("s1", "send_email", { to: ALLOWED }), call("x1", "exec", { command: "ls" })]),
      );
    } finally {
      ping.mockRestore();
    }
    expect(ran).toEqual([]);
    expect(results(out).map((r) => r.text)).toEqual([
      "zkVAI refused send_email: the trace store is unavailable, so it was not run",
      expect.stringMatching(/^zkVAI refused exec: .*exec/),
    ]);
    expect(ins.records(session.sessionId)).toEqual([]);
    await session.close();

    const host = new FakeOpenClaw();
    host.load(
      zkvaiPlugin({
        recorderFor: () => {
          throw new Error("no zkVAI session for agent:main:main");
        },
      }),
    );
    const blocked = await host.run({
      model: script([call("r1", "read_inbox")]),
      tools: tools(ran),
      task: "go",
    });
    expect(results(blocked)[0]!.text).toMatch(/no zkVAI session for agent:main:main/);
    expect(ran).toEqual([]);
  });
});
