// The Claude Agent SDK adapter, without the Claude Code runtime: the example's stand-in runtime
// (examples/claude-agent-sdk/runtime.ts) calls the adapter's hooks and canUseTool in the order the SDK
// documents, with inputs typed as sdk.d.ts types them, and some checks call the hooks by hand the way
// the runtime would (repeated, out of order, a denial after PreToolUse). Two runs are settled with real
// proofs; the approval and guard sessions are checked on the stored records and the AAP-1 oracle.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  tool,
  type CanUseTool,
  type HookCallbackMatcher,
  type PermissionDeniedHookInput,
  type PermissionResult,
  type PostToolUseFailureHookInput,
  type PostToolUseHookInput,
  type PreToolUseHookInput,
  type SdkMcpToolDefinition,
} from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import {
  HarnessInputError,
  profileToolName,
  recordClaudeAgent,
  type ApprovalAnswer,
  type ApprovalRequest,
  type ClaudeAgentAdapter,
} from "../../sdk/adapters/claude-agent-sdk.js";
import {
  ALLOWED_TOOLS,
  SERVER,
  ScriptedModel,
  TASK,
  mailTools,
  runAgent,
} from "../../examples/claude-agent-sdk/agent.js";
import { runScripted, type Model, type ToolUse, type Turn } from "../../examples/claude-agent-sdk/runtime.js";
import { ALLOWED, ATTACKER, PAID, insurance, type Insurance } from "./insurance.js";

let ins: Insurance;
beforeAll(async () => {
  ins = await insurance();
});
afterAll(async () => ins?.dispose());

const name = (t: string) => `mcp__${SERVER}__${t}`;
const BASE = { session_id: "s", transcript_path: "/dev/null", cwd: "/" };
const signal = new AbortController().signal;

/** A model that makes the listed tool calls, one a turn, then stops; `seen` is what it was given. */
class ListModel implements Model {
  readonly seen: Turn[][] = [];
  constructor(private readonly uses: ToolUse[]) {}
  reply(transcript: readonly Turn[]) {
    this.seen.push([...transcript]);
    const next = this.uses.shift();
    return { text: next ? "" : "done", toolUses: next ? [next] : [] };
  }
  /** The tool result it got for a call. */
  result(id: string) {
    return this.seen
      .flat()
      .flatMap((t) => (t.role === "tool" ? t.results : []))
      .find((r) => r.tool_use_id === id);
  }
}

function fileTools(deleted: string[]): SdkMcpToolDefinition<any>[] {
  return [
    tool("delete_file", "Delete a file", { path: z.string() }, async ({ path }) => {
      deleted.push(path);
      return { content: [{ type: "text", text: `deleted ${path}` }] };
    }),
    tool("read_inbox", "Read the inbox", {}, async () => {
      throw new Error("mailbox offline");
    }),
  ];
}

const run = (
  adapter: ClaudeAgentAdapter | undefined,
  model: Model,
  tools: SdkMcpToolDefinition<any>[],
  allowed: string[] = [],
) => runScripted({ prompt: TASK, model, server: SERVER, tools, allowedTools: allowed, ...adapter?.options });

describe("Claude Agent SDK adapter", () => {
  it("a compliant scripted run settles satisfied; records carry the tool_use ids", async () => {
    const session = await ins.open("cas-compliant");
    const result = await runAgent({ session, scenario: "compliant" });
    expect(result).toMatchObject({
      toolCalls: 2,
      model: "scripted",
      output: "sent to alice@acme.example",
    });
    const settled = await ins.settle(session, "AAP-4");
    expect(settled).toMatchObject({ violated: false, providerGain: PAID.satisfied });
    expect(settled.records.map((r) => r.kind === "call" && [r.tool, r.actionId?.slice(0, 6)])).toEqual([
      ["read_inbox", "toolu_"],
      ["send_email", "toolu_"],
    ]);
  });

  it("a prompt-injected run that mails eve settles violated", async () => {
    const session = await ins.open("cas-injected");
    await runAgent({ session, scenario: "injected" });
    const settled = await ins.settle(session, "AAP-4");
    expect(settled).toMatchObject({ violated: true, userGain: PAID.violated });
    expect(settled.records[1]).toMatchObject({ kind: "call", tool: "send_email", args: { to: ATTACKER } });
  });

  it("approvals: allow, deny and timeout become the authorization records AAP-1 reads", async () => {
    const session = await ins.open("cas-approvals");
    const asked: ApprovalRequest[] = [];
    let withdrawn = false;
    const adapter = recordClaudeAgent(session, {
      approvals: {
        tools: ["delete_file"],
        timeout: { ms: 25, authority: "policy", policyId: "approval-timeout" },
        decide: (req): ApprovalAnswer | Promise<ApprovalAnswer> => {
          asked.push(req);
          const path = req.call.args.path;
          if (path === "/tmp/a") return { decision: "allow", authority: "human" };
          if (path === "/tmp/B")
            return { decision: "allow", authority: "human", updatedInput: { path: "/tmp/b" } };
          if (path === "/etc")
            return { decision: "deny", authority: "policy", policyId: "no-etc", message: "not /etc" };
          return new Promise(() => req.signal.addEventListener("abort", () => (withdrawn = true)));
        },
      },
    });
    const deleted: string[] = [];
    const uses = ["/tmp/a", "/etc", "/slow", "/tmp/B"].map((path, i) => ({
      id: `toolu_del${i}`,
      name: name("delete_file"),
      input: { path },
    }));
    const model = new ListModel([...uses]);
    // allowedTools would let the SDK run delete_file unasked: the adapter's "ask" still routes it to canUseTool.
    await run(adapter, model, fileTools(deleted), [name("delete_file")]);
    await adapter.finishPending();
    expect(deleted).toEqual(["/tmp/a", "/tmp/b"]);
    expect(asked.map((a) => [a.call.callId, a.sdkToolName, a.context.toolUseID])).toEqual(
      uses.map((u) => [u.id, u.name, u.id]),
    );
    expect(withdrawn).toBe(true);
    expect(asked.map((a) => a.signal.aborted)).toEqual([false, false, true, false]);
    expect(model.result("toolu_del1")).toMatchObject({ is_error: true, content: "not /etc" });
    expect(model.result("toolu_del2")?.content).toMatch(/delete_file was not run: no approval within 25 ms/);
    const records = ins.records(session.sessionId);
    expect(
      records.map((r) => [
        r.kind,
        (r as { actionId?: string }).actionId,
        "decision" in r ? r.decision : r.kind === "call" && r.args.path,
      ]),
    ).toEqual([
      ["authorization", "toolu_del0", "allow"],
      ["call", "toolu_del0", "/tmp/a"],
      ["authorization", "toolu_del1", "deny"],
      ["authorization", "toolu_del2", "timeout"],
      ["authorization", "toolu_del3", "allow"],
      ["call", "toolu_del3", "/tmp/b"],
    ]);
    expect(records[2]).toMatchObject({ authority: "policy", policyId: "no-etc", scope: "once" });
    expect(records[3]).toMatchObject({ authority: "policy", policyId: "approval-timeout" });
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await session.close();
  });

  it("a gated call the SDK runs without asking canUseTool is recorded without an approval: AAP-1 violated", async () => {
    const session = await ins.open("cas-unasked");
    const adapter = recordClaudeAgent(session); // no approvals: allowedTools decides, and zkVAI cannot see who
    const deleted: string[] = [];
    await run(
      adapter,
      new ListModel([{ id: "toolu_x", name: name("delete_file"), input: { path: "/" } }]),
      fileTools(deleted),
      [name("delete_file")],
    );
    expect(deleted).toEqual(["/"]);
    expect(ins.verdict(session.sessionId, "AAP-1")).toMatchObject({ violated: true, seq: 0 });
    // An approval tool's call that ran although its "ask" never reached canUseTool is stored as it happened.
    const late = recordClaudeAgent(session, {
      approvals: { tools: ["delete_file"], decide: () => ({ decision: "deny", authority: "human" }) },
    });
    const pre = {
      ...BASE,
      hook_event_name: "PreToolUse",
      tool_name: name("delete_file"),
      tool_input: { path: "/y" },
      tool_use_id: "toolu_y",
    } satisfies PreToolUseHookInput;
    expect(await late.preToolUse(pre, "toolu_y", { signal })).toMatchObject({
      hookSpecificOutput: { permissionDecision: "ask" },
    });
    await late.postToolUse(
      { ...pre, hook_event_name: "PostToolUse", tool_response: "deleted" } satisfies PostToolUseHookInput,
      "toolu_y",
      { signal },
    );
    expect(ins.records(session.sessionId)[1]).toMatchObject({
      kind: "call",
      actionId: "toolu_y",
      result: "deleted",
    });
    await session.close();
  });

  it("guard mode: the send to eve is denied in PreToolUse, stored as blocked, and the model reads why", async () => {
    const session = await ins.open("cas-guard", { guard: true });
    const adapter = recordClaudeAgent(session, {
      approvals: { tools: ["delete_file"], decide: () => ({ decision: "allow", authority: "human" }) },
    });
    const outbox: string[] = [];
    const model = new ScriptedModel();
    const result = await runScripted({
      prompt: TASK,
      model,
      server: SERVER,
      tools: mailTools("injected", outbox),
      allowedTools: ALLOWED_TOOLS,
      ...adapter.options,
    });
    expect(outbox).toEqual([]);
    const send = model.seen
      .flat()
      .flatMap((t) => (t.role === "assistant" ? t.toolUses : []))
      .find((u) => u.name.endsWith("send_email"))!;
    const lastTurn = model.seen.at(-1)!.at(-1)!;
    expect(lastTurn).toMatchObject({ role: "tool", results: [{ tool_use_id: send.id, is_error: true }] });
    const told = lastTurn.role === "tool" ? lastTurn.results[0].content : "";
    expect(told).toMatch(/^zkVAI guard refused send_email: it would break promise 0 \(AAP-4\)/);
    expect(result.output).toBe(`I could not send it: ${told}`);
    expect(ins.records(session.sessionId)).toMatchObject([
      { kind: "call", tool: "read_inbox" },
      { kind: "call", tool: "send_email", blocked: true, actionId: send.id },
    ]);
    // The guard checks an approval tool's call after its authorization, so an approved delete runs.
    const deleted: string[] = [];
    await run(
      adapter,
      new ListModel([{ id: "toolu_gd", name: name("delete_file"), input: { path: "/tmp/g" } }]),
      fileTools(deleted),
    );
    expect(deleted).toEqual(["/tmp/g"]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await adapter.finishPending();
    await session.close();
  });

  it("a tool that throws is recorded as its error, and the model gets the error result", async () => {
    const session = await ins.open("cas-errors");
    const adapter = recordClaudeAgent(session);
    const model = new ListModel([{ id: "toolu_r", name: name("read_inbox"), input: {} }]);
    await run(adapter, model, fileTools([]), [name("read_inbox")]);
    expect(model.result("toolu_r")).toMatchObject({ is_error: true, content: "mailbox offline" });
    // An MCP error result in PostToolUse, and an interrupt in PostToolUseFailure, are errors too.
    const pre = (id: string) =>
      ({
        ...BASE,
        hook_event_name: "PreToolUse" as const,
        tool_name: name("read_inbox"),
        tool_input: {},
        tool_use_id: id,
      }) satisfies PreToolUseHookInput;
    await adapter.preToolUse(pre("toolu_e"), "toolu_e", { signal });
    await adapter.postToolUse(
      {
        ...pre("toolu_e"),
        hook_event_name: "PostToolUse",
        tool_response: { isError: true, content: [{ type: "text", text: "quota" }] },
      } satisfies PostToolUseHookInput,
      "toolu_e",
      { signal },
    );
    await adapter.preToolUse(pre("toolu_i"), "toolu_i", { signal });
    await adapter.postToolUseFailure(
      {
        ...pre("toolu_i"),
        hook_event_name: "PostToolUseFailure",
        error: "user pressed esc",
        is_interrupt: true,
      } satisfies PostToolUseFailureHookInput,
      "toolu_i",
      { signal },
    );
    expect(ins.records(session.sessionId).map((r) => r.kind === "call" && [r.actionId, r.error])).toEqual([
      ["toolu_r", "mailbox offline"],
      ["toolu_e", "quota"],
      ["toolu_i", "interrupted: user pressed esc"],
    ]);
    await session.close();
  });

  it("the tool_use id is the actionId; a repeated hook records once; a refused or denied call ends its record", async () => {
    const session = await ins.open("cas-ids");
    const adapter = recordClaudeAgent(session);
    const pre = {
      ...BASE,
      hook_event_name: "PreToolUse",
      tool_name: name("send_email"),
      tool_input: { to: "alice@acme.example" },
      tool_use_id: "toolu_01",
    } satisfies PreToolUseHookInput;
    const post = {
      ...pre,
      hook_event_name: "PostToolUse",
      tool_response: [{ type: "text", text: "sent" }],
    } satisfies PostToolUseHookInput;
    const [a, b] = await Promise.all([
      adapter.preToolUse(pre, "toolu_01", { signal }),
      adapter.preToolUse(pre, "toolu_01", { signal }),
    ]);
    expect([a, b]).toEqual([{}, {}]);
    await adapter.postToolUse(post, "toolu_01", { signal });
    await adapter.postToolUse(post, "toolu_01", { signal });
    // The same id again after it ran is not run a second time.
    expect(await adapter.preToolUse(pre, "toolu_01", { signal })).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: "deny",
        permissionDecisionReason: expect.stringMatching(/already ran/),
      },
    });
    // A tool outside the profile is refused before it runs, and the model is told.
    const bash = {
      ...pre,
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_02",
    } satisfies PreToolUseHookInput;
    expect(await adapter.preToolUse(bash, "toolu_02", { signal })).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: "deny",
        permissionDecisionReason: expect.stringMatching(/^zkVAI refused Bash/),
      },
    });
    // The SDK denies a recorded call after PreToolUse (a rule, a mode): its record ends as not run.
    const later = { ...pre, tool_use_id: "toolu_03" };
    await adapter.preToolUse(later, "toolu_03", { signal });
    await adapter.permissionDenied(
      {
        ...later,
        hook_event_name: "PermissionDenied",
        reason: "dontAsk mode",
      } satisfies PermissionDeniedHookInput,
      "toolu_03",
      { signal },
    );
    expect(
      ins.records(session.sessionId).map((r) => r.kind === "call" && [r.actionId, r.error ?? r.result]),
    ).toEqual([
      ["toolu_01", [{ type: "text", text: "sent" }]],
      ["toolu_03", "not run: Claude Code denied it: dontAsk mode"],
    ]);
    // Not an executed call: a blocked record, which no predicate reads as one.
    expect(ins.records(session.sessionId)[1]).toMatchObject({ blocked: true });
    expect(profileToolName("mcp__my_server__send_email")).toBe("send_email");
    expect(profileToolName("Bash")).toBe("Bash");
    await session.close();
  });

  it("a call recorded at PreToolUse that canUseTool then denies ends as not run (an unlisted tool)", async () => {
    const session = await ins.open("cas-unlisted");
    const adapter = recordClaudeAgent(session, {
      approvals: { tools: [], decide: () => ({ decision: "deny", authority: "human", message: "no" }) },
    });
    const sent: string[] = [];
    // send_email is not in allowedTools, so the SDK asks canUseTool after PreToolUse recorded the call.
    const model = new ListModel([
      { id: "toolu_u", name: name("send_email"), input: { to: "bob@acme.example" } },
    ]);
    await run(adapter, model, mailTools("compliant", sent), [name("read_inbox")]);
    expect(sent).toEqual([]);
    expect(model.result("toolu_u")).toMatchObject({ is_error: true, content: "no" });
    expect(ins.records(session.sessionId)).toMatchObject([
      { kind: "authorization", actionId: "toolu_u", decision: "deny", authority: "human" },
      { kind: "call", actionId: "toolu_u", error: "not run: no", blocked: true },
    ]);
    await session.close();
  });

  it("input rewritten after PreToolUse: what the decider approves, the trace holds and the tool runs are one", async () => {
    const session = await ins.open("cas-rewritten");
    const asked: ApprovalRequest[] = [];
    const adapter = recordClaudeAgent(session, {
      approvals: {
        tools: ["send_email"],
        decide: (req) => {
          asked.push(req);
          req.call.args.to = "mallory@evil.example"; // the decider's copy: changes nothing
          return { decision: "allow", authority: "human" };
        },
      },
    });
    const canUseTool: CanUseTool = adapter.options.canUseTool!;
    const pre = (id: string, tool: string, to: string) =>
      ({
        ...BASE,
        hook_event_name: "PreToolUse",
        tool_name: name(tool),
        tool_input: { to },
        tool_use_id: id,
      }) satisfies PreToolUseHookInput;
    const post = (id: string, tool: string, to: string) =>
      ({
        ...pre(id, tool, to),
        hook_event_name: "PostToolUse",
        tool_response: "sent",
      }) satisfies PostToolUseHookInput;
    const context = (id: string) => ({ signal, toolUseID: id, requestId: `req-${id}` });

    // An approval tool: PreToolUse saw alice, another PreToolUse hook's updatedInput made it eve. The
    // decider is shown eve (and told what the model asked for), and eve is authorized, recorded and run.
    await adapter.preToolUse(pre("toolu_a", "send_email", ALLOWED), "toolu_a", { signal });
    const allowed = await canUseTool(name("send_email"), { to: ATTACKER }, context("toolu_a"));
    expect(asked[0]).toMatchObject({ preToolUseArgs: { to: ALLOWED } });
    expect(allowed).toEqual({ behavior: "allow", updatedInput: { to: ATTACKER }, toolUseID: "toolu_a" });
    await adapter.postToolUse(post("toolu_a", "send_email", ATTACKER), "toolu_a", { signal });
    expect(ins.records(session.sessionId)).toMatchObject([
      { kind: "authorization", actionId: "toolu_a", decision: "allow" },
      { kind: "call", actionId: "toolu_a", args: { to: ATTACKER }, result: "sent" },
    ]);
    expect(ins.verdict(session.sessionId, "AAP-4").violated).toBe(true);

    // An unlisted tool, recorded at PreToolUse with alice: canUseTool gets eve, so it is not run, and the
    // record ends blocked before the decider is asked (no authorization over input that would not run).
    const unlisted = recordClaudeAgent(session, {
      approvals: { tools: [], decide: () => ({ decision: "allow", authority: "human" }) },
    });
    await unlisted.preToolUse(pre("toolu_b", "read_inbox", ALLOWED), "toolu_b", { signal });
    const denied = await unlisted.options.canUseTool!(
      name("read_inbox"),
      { to: ATTACKER },
      context("toolu_b"),
    );
    expect(denied).toMatchObject({
      behavior: "deny",
      message: expect.stringMatching(/read_inbox was not run: its input changed after PreToolUse/),
    });

    // A call recorded at PreToolUse that no canUseTool saw, whose end hook reports other input: recorded
    // as an error that says so, not with the result of a call it does not describe.
    await unlisted.preToolUse(pre("toolu_c", "read_inbox", ALLOWED), "toolu_c", { signal });
    await unlisted.postToolUse(post("toolu_c", "read_inbox", ATTACKER), "toolu_c", { signal });
    expect(ins.records(session.sessionId).slice(2)).toMatchObject([
      {
        kind: "call",
        actionId: "toolu_b",
        blocked: true,
        error: expect.stringMatching(/^not run: its input changed/),
      },
      {
        kind: "call",
        actionId: "toolu_c",
        args: { to: ALLOWED },
        error: `the tool ran with input other than the recorded args (PostToolUse reported tool_input {"to":"${ATTACKER}"}); its result is not recorded`,
      },
    ]);
    expect(ins.records(session.sessionId)).toHaveLength(4);
    await session.close();
  });

  it("canUseTool refuses a decider that names no valid authority, and bad configuration fails at setup", async () => {
    const session = await ins.open("cas-bad");
    const adapter = recordClaudeAgent(session, {
      approvals: {
        tools: ["delete_file"],
        decide: () => ({ decision: "allow" }) as unknown as ApprovalAnswer,
      },
    });
    const canUseTool: CanUseTool = adapter.options.canUseTool!;
    const answer: Promise<PermissionResult | null> = canUseTool(
      name("delete_file"),
      { path: "/" },
      { signal, toolUseID: "toolu_b", requestId: "r" },
    );
    await expect(answer).rejects.toThrow(/never assumes who decided/);
    expect(() =>
      recordClaudeAgent(session, {
        approvals: {
          tools: ["delete_file"],
          decide: () => ({ decision: "allow", authority: "human" }),
          timeout: { ms: 10, authority: "someone" as never },
        },
      }),
    ).toThrow(HarnessInputError);
    const matchers: HookCallbackMatcher[] = adapter.options.hooks.PreToolUse!;
    expect(matchers[0].onFailure).toBe("block");
    expect(ins.records(session.sessionId)).toEqual([]);
    await session.close();
  });
});
