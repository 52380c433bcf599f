// The example agents, loaded on demand: each pulls in its framework, and a run needs only one.
import type { Framework, RunAgent } from "./agent.js";

export const AGENTS: Record<Framework, () => Promise<{ runAgent: RunAgent }>> = {
  ai: () => import("./ai/agent.js"),
  "openai-agents": () => import("./openai-agents/agent.js"),
  mcp: () => import("./mcp/agent.js"),
  langchain: () => import("./langchain/agent.js"),
  "claude-agent-sdk": () => import("./claude-agent-sdk/agent.js"),
  openclaw: () => import("./openclaw/agent.js"),
};
