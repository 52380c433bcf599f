// Which `results` shape (sdk/core/observations.ts readableResult) reads a tool's result AS EACH ADAPTER
// RECORDS IT. Every harness runs here for real or through the stand-in its own tests use, with a tool
// `list_files` that returns { files: [...] }, and the profile's fact `$.files[*]` is read from the stored
// record (encodeTrace's obs), not from a hand-built value:
//   mcp               real McpServer + Client in memory: the CallToolResult          -> "mcp"
//   ai                real generateText over MockLanguageModelV3: execute's value     -> "ai-sdk" (and "json")
//   langchain         real createAgent over fakeModel: the ToolMessage content (text) -> "langchain"
//   openai-agents     real Runner over ScriptedModel, agents.tool(): execute's value  -> "json"
//   openclaw          the FakeOpenClaw stand-in host: { content: [text], details }    -> "mcp" (text), "json" (details)
//   claude-agent-sdk  the stand-in runtime (examples/claude-agent-sdk/runtime.ts): for an MCP tool it reports
//                     tool_response as the content ARRAY; no shape parses its text as JSON (see the last test).
// Sessions are on an offline escrow: nothing is checkpointed or proven.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, toHex, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { generateText, stepCountIs, tool as aiTool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { createAgent, tool as lcTool, AIMessage } from "langchain";
import { fakeModel } from "@langchain/core/testing";
import { Agent, Runner, setTracingDisabled } from "@openai/agents";
import { ScriptedModel, assistantMessage, functionCall } from "@openai/agents/testing";
import { tool as casTool } from "@anthropic-ai/claude-agent-sdk";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { stringToField } from "../../sdk/core/hash.js";
import type { ResultShape } from "../../sdk/core/observations.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { recordMcpClient } from "../../sdk/adapters/mcp.js";
import { recordTools } from "../../sdk/adapters/ai.js";
import { recordLangChain } from "../../sdk/adapters/langchain.js";
import { recordOpenAIAgents } from "../../sdk/adapters/openai-agents.js";
import { recordClaudeAgent } from "../../sdk/adapters/claude-agent-sdk.js";
import { HarnessRecorder } from "../../sdk/adapters/recorder.js";
import { zkvaiPlugin } from "../../sdk/adapters/openclaw.js";
import { runScripted, type Model, type ToolUse } from "../../examples/claude-agent-sdk/runtime.js";
import { FakeOpenClaw, textResult, type FakeModel } from "../../examples/openclaw/runner.js";
import { NO_CHECKPOINTS, offlineEscrow } from "../sdk/offline-escrow.js";

const FILES = ["a.txt", "b.txt"];
const LISTING = { files: FILES };
const EXPECTED = FILES.map((f) => stringToField(f));

/** A profile whose list_files observes `path` in its result, read as `results`. */
const profileFor = (results: ResultShape, path = "$.files[*]"): EncodingProfile => ({
  version: 1,
  tools: { list_files: { observe: { fact: "file", from: "result", path } } },
  results,
});

let ids = 0;
async function openSession() {
  const store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-shapes-")), "trace.sqlite"));
  const sessionId: Hex = keccak256(toHex(`shapes:${process.pid}:${ids++}`));
  const session = await Session.open({
    store,
    escrow: offlineEscrow(),
    sessionId,
    user: "0x1111111111111111111111111111111111111111",
    // The recording profile's shape does not change what is stored; each check below re-reads the record.
    profile: profileFor("json"),
    policy: NO_CHECKPOINTS,
  });
  return { session, records: () => store.records(sessionId) };
}

/** What the fact reads from the stored records under a profile with `results` (path as given). */
function observed(records: TraceRecord[], results: ResultShape, path?: string): bigint[][] {
  return encodeTrace(records, profileFor(results, path), 1n).map((r) => r.obs);
}

/** The one stored call of list_files, with its result as the adapter recorded it. */
function onlyCall(records: TraceRecord[]) {
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({ kind: "call", tool: "list_files" });
  return records[0]!;
}

describe("each harness's recorded result is read by its shape", () => {
  it("MCP: the CallToolResult, structuredContent first, else its text content as JSON ('mcp')", async () => {
    const { session, records } = await openSession();
    const server = new McpServer({ name: "files", version: "1.0.0" });
    server.registerTool("list_files", { outputSchema: { files: z.array(z.string()) } }, async () => ({
      // structuredContent wins over a text that says otherwise.
      content: [{ type: "text", text: JSON.stringify({ files: ["decoy"] }) }],
      structuredContent: LISTING,
    }));
    const [c, s] = InMemoryTransport.createLinkedPair();
    await server.connect(s);
    const client = recordMcpClient(new Client({ name: "host", version: "1.0.0" }), session);
    await client.connect(c);
    await client.callTool({ name: "list_files", arguments: {} });
    const structured = onlyCall(records());
    expect(structured.kind === "call" && structured.result).toMatchObject({ structuredContent: LISTING });
    expect(observed(records(), "mcp")).toEqual([EXPECTED]);
    expect(observed(records(), "json")).toEqual([[0n, 0n]]); // the raw CallToolResult has no $.files

    await client.close();
    await server.close();
  });

  it("MCP: a text-only CallToolResult is read from its text as JSON ('mcp')", async () => {
    const { session, records } = await openSession();
    const server = new McpServer({ name: "files", version: "1.0.0" });
    server.registerTool("list_files", {}, async () => ({
      content: [{ type: "text", text: JSON.stringify(LISTING) }],
    }));
    const [c, s] = InMemoryTransport.createLinkedPair();
    await server.connect(s);
    const client = recordMcpClient(new Client({ name: "host", version: "1.0.0" }), session);
    await client.connect(c);
    await client.callTool({ name: "list_files", arguments: {} });
    await client.close();
    await server.close();
    const record = onlyCall(records());
    expect(record.kind === "call" && record.result).toMatchObject({ content: [{ type: "text" }] });
    expect(observed(records(), "mcp")).toEqual([EXPECTED]);
  });

  it("AI SDK: what execute returned ('ai-sdk', the same as 'json' for a plain value)", async () => {
    const { session, records } = await openSession();
    const tools = recordTools(session, {
      list_files: aiTool({ inputSchema: z.object({}), execute: async () => LISTING }),
    });
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "list_files", input: "{}" }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage: USAGE,
          warnings: [],
        },
        {
          content: [{ type: "text", text: "ok" }],
          finishReason: { unified: "stop", raw: undefined },
          usage: USAGE,
          warnings: [],
        },
      ],
    });
    await generateText({ model, tools, prompt: "list", stopWhen: stepCountIs(3) });
    expect(onlyCall(records())).toMatchObject({ actionId: "c1", result: LISTING });
    expect(observed(records(), "ai-sdk")).toEqual([EXPECTED]);
    expect(observed(records(), "json")).toEqual([EXPECTED]);
  });

  it("LangChain: the ToolMessage content, a JSON text for an object the tool returned ('langchain')", async () => {
    const { session, records } = await openSession();
    const listFiles = lcTool(async () => LISTING, {
      name: "list_files",
      description: "List files.",
      schema: z.object({}),
    });
    const model = fakeModel()
      .respondWithTools([{ name: "list_files", args: {}, id: "l1" }])
      .respond(new AIMessage("ok"));
    const agent = createAgent({
      model,
      tools: [listFiles],
      middleware: [recordLangChain(session).middleware],
    });
    await agent.invoke({ messages: [{ role: "user", content: "list" }] });
    const record = onlyCall(records());
    expect(record).toMatchObject({ actionId: "l1", result: JSON.stringify(LISTING) });
    expect(observed(records(), "langchain")).toEqual([EXPECTED]);
    expect(observed(records(), "json")).toEqual([[0n, 0n]]); // a text has no $.files
  });

  it("OpenAI Agents: agents.tool() records what execute returned ('json')", async () => {
    setTracingDisabled(true);
    const { session, records } = await openSession();
    const agents = recordOpenAIAgents(session);
    const listFiles = agents.tool({
      name: "list_files",
      description: "List files",
      parameters: z.object({}),
      execute: async () => LISTING,
    });
    const model = new ScriptedModel([
      [functionCall("list_files", {}, { callId: "o1" })],
      [assistantMessage("ok")],
    ]);
    const agent = new Agent({ name: "files", instructions: "list", model, tools: [listFiles] });
    await new Runner({ tracingDisabled: true }).run(agent, "list");
    expect(onlyCall(records())).toMatchObject({ actionId: "o1", result: LISTING });
    expect(observed(records(), "json")).toEqual([EXPECTED]);
  });

  it("OpenClaw: after_tool_call's AgentToolResult; its text as JSON ('mcp') or its details ('json')", async () => {
    const { session, records } = await openSession();
    const recorder = new HarnessRecorder(session);
    const plugin = zkvaiPlugin({ recorderFor: () => recorder });
    const host = new FakeOpenClaw();
    host.load(plugin);
    const model: FakeModel = {
      name: "scripted",
      turns: 0,
      async reply() {
        return this.turns++ === 0
          ? { text: "", toolCalls: [{ id: "k1", name: "list_files", arguments: {} }] }
          : { text: "ok", toolCalls: [] };
      },
    } as FakeModel & { turns: number };
    const tools = [{ name: "list_files", execute: async () => textResult(JSON.stringify(LISTING), LISTING) }];
    await host.run({ model, tools, task: "list", session: { sessionKey: "k", runId: "r" } });
    await plugin.drain(recorder);
    expect(onlyCall(records())).toMatchObject({
      result: { content: [{ type: "text", text: JSON.stringify(LISTING) }], details: LISTING },
    });
    expect(observed(records(), "mcp")).toEqual([EXPECTED]);
    expect(observed(records(), "json", "$.details.files[*]")).toEqual([EXPECTED]);
  });

  it("Claude Agent SDK (stand-in runtime): an MCP tool's tool_response is its content array, which mcp reads", async () => {
    const { session, records } = await openSession();
    const adapter = recordClaudeAgent(session);
    const listFiles = casTool("list_files", "List files", {}, async () => ({
      content: [{ type: "text" as const, text: JSON.stringify(LISTING) }],
      structuredContent: LISTING,
    }));
    const uses: ToolUse[] = [{ id: "toolu_1", name: "mcp__files__list_files", input: {} }];
    const model: Model = {
      reply: () => {
        const next = uses.shift();
        return { text: next ? "" : "ok", toolUses: next ? [next] : [] };
      },
    };
    await runScripted({
      prompt: "list",
      model,
      server: "files",
      tools: [listFiles],
      allowedTools: ["mcp__files__list_files"],
      ...adapter.options,
    });
    const record = onlyCall(records());
    // What the stand-in reports as tool_response (out.content): the blocks alone, structuredContent dropped.
    expect(record).toMatchObject({
      actionId: "toolu_1",
      result: [{ type: "text", text: JSON.stringify(LISTING) }],
    });
    // The mcp shape reads a bare content array as a CallToolResult's content (its text, parsed as JSON).
    expect(observed(records(), "mcp")).toEqual([EXPECTED]);
    for (const shape of ["json", "ai-sdk", "langchain"] as const)
      expect(observed(records(), shape), shape).toEqual([[0n, 0n]]);
    // A pattern over the blocks' text reads it too, as identifiers in text.
    const byPattern: EncodingProfile = {
      version: 1,
      tools: {
        list_files: {
          observe: { fact: "file", from: "result", path: "$[*].text", pattern: '"([^"]+\\.txt)"' },
        },
      },
      results: "json",
    };
    expect(encodeTrace(records(), byPattern, 1n).map((r) => r.obs)).toEqual([EXPECTED]);
  });

  it("Claude Agent SDK: a built-in tool's tool_response, an object, is read as it is ('json'; hand-written record)", () => {
    // Claude Code reports a built-in tool's structured output (e.g. Glob's { filenames, numFiles, … }) as
    // tool_response, which the adapter records unchanged; running the real runtime is not possible offline.
    const record: TraceRecord = {
      kind: "call",
      seq: 0,
      ts: 0,
      tool: "list_files",
      args: { pattern: "*.txt" },
      result: { filenames: FILES, numFiles: 2, truncated: false },
    };
    expect(observed([record], "json", "$.filenames[*]")).toEqual([EXPECTED]);
  });
});

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};
