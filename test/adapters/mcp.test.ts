// The MCP adapter: a recorded client against in-memory McpServers. The example host settles a clean
// and an injected run; approvals, guard refusals, failed tools, protocol errors, call ids and the
// refused bypass (client.request) are checked on the stored records and the AAP-1 oracle.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolResultSchema, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { keccak256, toBytes } from "viem";
import { z } from "zod";
import { canonicalJson } from "../../sdk/core/canonical.js";
import { parseReceiptJson, verifyReceipt } from "../../sdk/chain/receipts.js";
import {
  HarnessInputError,
  detachMcpClient,
  recordMcpClient,
  RECEIPT_META_KEY,
  type McpApprovalRequest,
  type RecordMcpOptions,
} from "../../sdk/adapters/mcp.js";
import type { Session } from "../../sdk/provider/session.js";
import { ScriptedModel, runMcpAgent } from "../../examples/mcp/agent.js";
import { ALLOWED, ATTACKER, PAID, insurance, type Insurance } from "./insurance.js";

let ins: Insurance;
beforeAll(async () => {
  ins = await insurance();
});
afterAll(async () => ins?.dispose());

/** A server with the fixture's tools; read_inbox's behaviour is switchable, and every run is counted. */
async function connect(session: Session, opts?: RecordMcpOptions) {
  const server = new McpServer({ name: "test", version: "1.0.0" });
  const ran: string[] = [];
  const state = { inbox: "ok" as "ok" | "throw" | "hang", release: () => {} };
  server.registerTool("read_inbox", { annotations: { readOnlyHint: true } }, async () => {
    ran.push("read_inbox");
    if (state.inbox === "throw") throw new Error("mailbox offline");
    if (state.inbox === "hang") await new Promise<void>((r) => (state.release = r));
    return { content: [{ type: "text", text: "1 message" }] };
  });
  server.registerTool("send_email", { inputSchema: { to: z.string() } }, async ({ to }) => {
    ran.push(`send_email ${to}`);
    return { content: [{ type: "text", text: `sent to ${to}` }] };
  });
  server.registerTool(
    "delete_file",
    { inputSchema: { path: z.string() }, annotations: { destructiveHint: true } },
    async ({ path }) => {
      ran.push(`delete_file ${path}`);
      return { content: [{ type: "text", text: `deleted ${path}` }] };
    },
  );
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  const client = recordMcpClient(new Client({ name: "host", version: "1.0.0" }), session, opts);
  await client.connect(c);
  await client.listTools();
  const close = async () => {
    state.release();
    await client.close();
    await server.close();
  };
  return { client, ran, state, close };
}

const textOf = (r: unknown) =>
  (r as CallToolResult).content.map((c) => (c.type === "text" ? c.text : "")).join();

describe("MCP adapter", () => {
  it("a compliant host run settles satisfied; the model's tool_use ids are the actionIds", async () => {
    const session = await ins.open("mcp-compliant");
    const run = await runMcpAgent({ session, scenario: "compliant", extraCalls: 1 });
    expect(run).toMatchObject({ toolCalls: 3, model: "scripted", outbox: [ALLOWED] });
    const settled = await ins.settle(session, "AAP-4");
    expect(settled.records.map((r) => r.kind === "call" && [r.actionId, r.tool])).toEqual([
      ["toolu_1", "read_inbox"],
      ["toolu_2", "read_inbox"],
      ["toolu_3", "send_email"],
    ]);
    expect(settled).toMatchObject({ violated: false, providerGain: PAID.satisfied });
  });

  it("a prompt-injected run mails eve and settles violated", async () => {
    const session = await ins.open("mcp-injected");
    const run = await runMcpAgent({ session, scenario: "injected" });
    expect(run.outbox).toEqual([ATTACKER]);
    const settled = await ins.settle(session, "AAP-4");
    expect(settled).toMatchObject({ violated: true, userGain: PAID.violated });
  });

  it("guard mode: the send to eve is not sent, the blocked record is stored and the model reads the refusal", async () => {
    const session = await ins.open("mcp-guard", { guard: true });
    const model = new ScriptedModel();
    const run = await runMcpAgent({ session, scenario: "injected", model });
    expect(run.outbox).toEqual([]);
    expect(ins.records(session.sessionId)).toMatchObject([
      { kind: "call", tool: "read_inbox", actionId: "toolu_1" },
      { kind: "call", tool: "send_email", actionId: "toolu_2", blocked: true, args: { to: ATTACKER } },
    ]);
    // The model's last turn was given the refusal as send_email's failed result.
    const last = model.seen[model.seen.length - 1]!;
    expect(last[last.length - 1]).toMatchObject({
      role: "tool",
      results: [{ id: "toolu_2", name: "send_email", isError: true }],
    });
    const told = last[last.length - 1]!;
    expect(told.role === "tool" && told.results[0]!.text).toMatch(
      /^zkVAI guard refused send_email: it would break promise 0 \(AAP-4\)/,
    );
    expect(run.output).toMatch(/^I could not send it: zkVAI guard refused/);
    await session.close();
  });

  it("approvals: allow, deny and timeout become authorization records; only the allowed delete runs", async () => {
    const session = await ins.open("mcp-approvals");
    const asked: McpApprovalRequest[] = [];
    const decisions: Record<string, "allow" | "deny" | "hang"> = {
      "/tmp/a": "allow",
      "/etc": "deny",
      "/home": "hang",
    };
    const { client, ran, close } = await connect(session, {
      approve: (req) => {
        asked.push(req);
        if (req.annotations?.destructiveHint !== true) return undefined;
        const d = decisions[req.args.path as string];
        if (d === "hang") return new Promise(() => {});
        return d === "allow"
          ? { decision: "allow", authority: "human" }
          : { decision: "deny", authority: "policy", policyId: "no-system-paths" };
      },
      approvalTimeout: { ms: 20, authority: "human" },
    });
    const del = (path: string, callId: string) =>
      client.callTool({ name: "delete_file", arguments: { path } }, undefined, { callId });
    expect(textOf(await del("/tmp/a", "d1"))).toBe("deleted /tmp/a");
    const denied = await del("/etc", "d2");
    expect(denied).toMatchObject({ isError: true });
    expect(textOf(denied)).toBe(
      "zkVAI refused delete_file: its approval was denied (policy, no-system-paths), so it was not run",
    );
    const timedOut = await del("/home", "d3");
    expect(textOf(timedOut)).toMatch(/its approval timed out \(human\), so it was not run/);
    expect(asked[2]!.signal.aborted).toBe(true);
    await client.callTool({ name: "read_inbox" }, undefined, { callId: "r1" });
    expect(ran).toEqual(["delete_file /tmp/a", "read_inbox"]);
    expect(asked.map((a) => [a.callId, a.tool, a.annotations])).toEqual([
      ["d1", "delete_file", { destructiveHint: true }],
      ["d2", "delete_file", { destructiveHint: true }],
      ["d3", "delete_file", { destructiveHint: true }],
      ["r1", "read_inbox", { readOnlyHint: true }],
    ]);
    expect(
      ins.records(session.sessionId).map((r) => (r.kind === "call" ? [r.kind, r.actionId] : r)),
    ).toMatchObject([
      {
        kind: "authorization",
        actionId: "d1",
        tool: "delete_file",
        argsHash: keccak256(toBytes(canonicalJson({ path: "/tmp/a" }))),
        decision: "allow",
        authority: "human",
      },
      ["call", "d1"],
      {
        kind: "authorization",
        actionId: "d2",
        decision: "deny",
        authority: "policy",
        policyId: "no-system-paths",
      },
      { kind: "authorization", actionId: "d3", decision: "timeout", authority: "human", scope: "once" },
      ["call", "r1"],
    ]);
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await close();
    await session.close();
  });

  it("approvals: a delete nobody approved is run and violates AAP-1; an approval without authority is refused", async () => {
    const session = await ins.open("mcp-unapproved");
    const { client, ran, close } = await connect(session, {
      approve: (req) => (req.args.path === "/x" ? ({ decision: "allow" } as never) : undefined),
    });
    await expect(
      client.callTool({ name: "delete_file", arguments: { path: "/x" } }, undefined, { callId: "x1" }),
    ).rejects.toThrow(/never assumes who decided/);
    await client.callTool({ name: "delete_file", arguments: { path: "/y" } }, undefined, { callId: "y1" });
    expect(ran).toEqual(["delete_file /y"]);
    expect(ins.verdict(session.sessionId, "AAP-1")).toMatchObject({ violated: true, seq: 0 });
    await close();
    await session.close();
  });

  it("failures: an isError result is recorded as the error and returned; an McpError is recorded and re-thrown", async () => {
    const session = await ins.open("mcp-errors");
    const { client, state, close } = await connect(session);
    state.inbox = "throw";
    const failed = await client.callTool({ name: "read_inbox" }, undefined, { callId: "e1" });
    expect(failed).toEqual({ content: [{ type: "text", text: "mailbox offline" }], isError: true });
    state.inbox = "hang";
    const timedOut = client.callTool({ name: "read_inbox" }, CallToolResultSchema, {
      callId: "e2",
      timeout: 5,
    });
    await expect(timedOut).rejects.toBeInstanceOf(McpError);
    await expect(timedOut).rejects.toThrow(/Request timed out/);
    expect(ins.records(session.sessionId).map((r) => r.kind === "call" && [r.actionId, r.error])).toEqual([
      ["e1", "mailbox offline"],
      ["e2", expect.stringMatching(/Request timed out/)],
    ]);
    await close();
    await session.close();
  });

  it("call ids: minted ids stay distinct across connections, a repeated id replays, client.request is refused", async () => {
    const session = await ins.open("mcp-ids");
    const a = await connect(session);
    const b = await connect(session);
    await a.client.callTool({ name: "read_inbox" });
    await b.client.callTool({ name: "read_inbox" });
    const ids = ins.records(session.sessionId).map((r) => r.kind === "call" && r.actionId);
    expect(ids[0]).toMatch(/^mcp:[0-9a-f-]{36}:0$/);
    expect(ids[1]).toMatch(/^mcp:[0-9a-f-]{36}:0$/);
    expect(ids[0]).not.toBe(ids[1]);
    // A retried invocation (same id, same args) returns the stored result and is not sent again.
    const send = { name: "send_email", arguments: { to: ALLOWED } };
    const first = await a.client.callTool(send, undefined, { callId: "s1" });
    expect(await a.client.callTool(send, undefined, { callId: "s1" })).toEqual(first);
    expect(a.ran).toEqual(["read_inbox", "send_email alice@acme.example"]);
    // The paths around callTool would go unrecorded, so they are refused before anything is sent.
    await expect(
      a.client.request(
        { method: "tools/call", params: { name: "send_email", arguments: { to: ATTACKER } } },
        CallToolResultSchema,
      ),
    ).rejects.toBeInstanceOf(HarnessInputError);
    const stream = a.client.experimental.tasks.callToolStream({
      name: "send_email",
      arguments: { to: ATTACKER },
    });
    const events = [];
    for await (const e of stream) events.push(e);
    expect(events).toMatchObject([
      { type: "error", error: { message: expect.stringMatching(/would not be recorded/) } },
    ]);
    expect(a.ran).toEqual(["read_inbox", "send_email alice@acme.example"]);
    expect(ins.records(session.sessionId)).toHaveLength(3);
    // Detached, the client is the SDK's own again; attaching twice is refused.
    expect(() => recordMcpClient(b.client, session)).toThrow(HarnessInputError);
    detachMcpClient(b.client);
    expect(Object.hasOwn(b.client, "callTool")).toBe(false);
    await b.client.callTool({ name: "read_inbox" });
    expect(ins.records(session.sessionId)).toHaveLength(3);
    await a.close();
    await b.close();
    await session.close();
  });

  it("sends what it recorded: arguments changed by the caller after callTool are not what the server gets", async () => {
    const session = await ins.open("mcp-copy", { guard: true });
    const c = await connect(session);
    const args = { to: ALLOWED };
    const pending = c.client.callTool({ name: "send_email", arguments: args });
    args.to = ATTACKER; // after the call was made, before it is sent
    await pending;
    expect(c.ran).toEqual([`send_email ${ALLOWED}`]);
    expect(ins.records(session.sessionId)).toMatchObject([{ kind: "call", args: { to: ALLOWED } }]);
    // A task-augmented call would record a task handle, not the outcome: refused, nothing sent.
    await expect(
      c.client.callTool({ name: "read_inbox" }, undefined, { task: { ttl: 1000 } } as never),
    ).rejects.toThrow(/task-augmented/);
    expect(c.ran).toHaveLength(1);
    await c.close();
    await session.close();
  });

  it("receiptInMeta: each result carries a receipt of the session so far in _meta, for the host's user", async () => {
    const session = await ins.open("mcp-receipts");
    const c = await connect(session, { receiptInMeta: true });
    await c.client.callTool({ name: "read_inbox" }, undefined, { callId: "r1" });
    const sent = await c.client.callTool({ name: "send_email", arguments: { to: ALLOWED } }, undefined, {
      callId: "r2",
    });
    const meta = (sent as { _meta?: Record<string, unknown> })._meta?.[RECEIPT_META_KEY];
    const receipt = parseReceiptJson(JSON.stringify(meta));
    expect(receipt).toMatchObject({ sessionId: session.sessionId, n: 2, root: session.head(2) });
    const target = { chainId: ins.chain.chainId, escrow: ins.escrow.address };
    expect((await verifyReceipt(target, receipt, receipt.signature)).ok).toBe(true);
    // The model's part is unchanged.
    expect(textOf(sent)).toBe(`sent to ${ALLOWED}`);
    await c.close();
    await session.close();
  });
});
