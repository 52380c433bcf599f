// The part of OpenClaw's native plugin API the zkVAI plugin uses, as types only. OpenClaw needs Node
// >= 24.16 and is not a dependency here, so these shapes mirror the declarations published in the npm
// package openclaw@2026.9.6 (its `openclaw/plugin-sdk/plugin-entry` export), field for field where a
// field is kept, with the same names; fields this plugin never reads are left out, which keeps each
// type a subset the real one is assignable to. Source files inside the package:
// - dist/hook-runner-global-CDmmGFJp.d.ts: PluginApprovalResolutions and PluginHookBeforeToolCallResult
//   (region src/plugins/hook-before-tool-call-result.d.ts); PluginHookName, PluginHookRegistrationOptions,
//   PluginHookToolRequesterContext, PluginHookToolContext, PluginHookBeforeToolCallEvent,
//   PluginHookAfterToolCallEvent and the before/after_tool_call rows of PluginHookHandlerMap
//   (region src/plugins/hook-types.d.ts).
// - dist/approvals-B-zk4kd_.d.ts: ApprovalScopeSchema, whose TypeBox Static is ApprovalScope.
// - dist/agent-harness-runtime-wMciqZ6Z.d.ts: PluginLogger (src/plugins/logger-types.d.ts),
//   OpenClawPluginApi.on (src/plugins/plugin-api.types.d.ts), OpenClawPluginDefinition
//   (src/plugins/plugin-definition.types.d.ts) and DefinePluginEntryOptions (src/plugin-sdk/plugin-entry.d.ts).
// One shape is not declared in any .d.ts: the result an exec tool returns while its command waits for an
// exec approval. ExecApprovalPendingDetails follows what the embedded runner reads from it
// (readExecApprovalPendingDetails in dist/builtin-openclaw-q1hiFm14.mjs).

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginApprovalResolutions` (a const object there). */
export type PluginApprovalResolution = "allow-once" | "allow-always" | "deny" | "timeout" | "cancelled";

/** dist/approvals-B-zk4kd_.d.ts, `Static<typeof ApprovalScopeSchema>`: what an approval is about. */
export type ApprovalScope =
  | {
      kind: "message-send";
      target: string;
      recipientCount: number;
      recipients?: string[];
      audience?: "internal" | "external";
    }
  | { kind: "payment"; amount: string; currency: string; target: string }
  | { kind: "external-post"; target: string; visibility: "public" | "restricted" }
  | { kind: "standing-grant"; automation: string; command: string; expiresInDays?: number };

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginHookBeforeToolCallResult`. */
export type PluginHookBeforeToolCallResult = {
  params?: Record<string, unknown>;
  block?: boolean;
  blockReason?: string;
  requireApproval?: {
    title: string;
    description: string;
    scope?: ApprovalScope;
    severity?: "info" | "warning" | "critical";
    timeoutMs?: number;
    /** Override timeout text and return the timeout as a blocked tool result. */
    timeoutReason?: string;
    allowedDecisions?: Array<"allow-once" | "allow-always" | "deny">;
    pluginId?: string;
    onResolution?: (decision: PluginApprovalResolution) => Promise<void> | void;
  };
};

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginHookName`: only the two hooks this plugin registers. */
export type PluginHookName = "before_tool_call" | "after_tool_call";

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginToolMatcher`. */
export type PluginToolMatcher = readonly [string, ...string[]];

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginHookRegistrationOptions<K>` for the tool hooks. */
export type PluginHookRegistrationOptions = {
  priority?: number;
  registrationId?: string;
  timeoutMs?: number;
  matcher?: PluginToolMatcher;
};

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginHookToolRequesterContext`. */
export type PluginHookToolRequesterContext = {
  readonly channel?: string;
  readonly accountId?: string;
  readonly senderId?: string;
  /** True only when the host resolved the sender as an owner. */
  readonly senderIsOwner?: boolean;
  readonly roleIds?: readonly string[];
};

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginHookToolContext` (less `trace`, `toolKind`, `toolInputKind`). */
export type PluginHookToolContext = {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  runId?: string;
  /** Aborts when the owning tool call is cancelled. Hook timeout expiry does not abort this signal. */
  abortSignal?: AbortSignal;
  toolName: string;
  toolCallId?: string;
  getSessionExtension?: (namespace: string) => unknown;
  channelId?: string;
  /** Message requester for this turn; absent for non-message runs and harnesses that cannot prove it. */
  requester?: PluginHookToolRequesterContext;
};

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginHookBeforeToolCallEvent` (less `toolKind`, `toolInputKind`). */
export type PluginHookBeforeToolCallEvent = {
  toolName: string;
  params: Record<string, unknown>;
  runId?: string;
  toolCallId?: string;
  derivedPaths?: readonly string[];
};

/** dist/hook-runner-global-CDmmGFJp.d.ts, `PluginHookAfterToolCallEvent`. */
export type PluginHookAfterToolCallEvent = {
  toolName: string;
  params: Record<string, unknown>;
  runId?: string;
  toolCallId?: string;
  result?: unknown;
  error?: string;
  durationMs?: number;
};

/** dist/hook-runner-global-CDmmGFJp.d.ts, the tool rows of `PluginHookHandlerMap`. */
export type PluginHookHandlerMap = {
  before_tool_call: (
    event: PluginHookBeforeToolCallEvent,
    ctx: PluginHookToolContext,
  ) => Promise<PluginHookBeforeToolCallResult | void> | PluginHookBeforeToolCallResult | void;
  after_tool_call: (event: PluginHookAfterToolCallEvent, ctx: PluginHookToolContext) => Promise<void> | void;
};

/** dist/agent-harness-runtime-wMciqZ6Z.d.ts, `PluginLogger$1`. */
export type PluginLogger = {
  debug?: (message: string) => void;
  info: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string) => void;
};

/**
 * dist/agent-harness-runtime-wMciqZ6Z.d.ts, `OpenClawPluginApi`: identity, logger and `on`. There `on` is
 * `<K extends PluginHookName>(hookName: K, handler: PluginHookHandlerMap[K], opts?) => void`; here it is
 * one overload per tool hook, which the generic original is assignable to (a generic over a narrower
 * PluginHookName is not).
 */
export type OpenClawPluginApi = {
  id: string;
  name: string;
  logger: PluginLogger;
  /** Register a lifecycle hook handler */
  on: {
    (
      hookName: "before_tool_call",
      handler: PluginHookHandlerMap["before_tool_call"],
      opts?: PluginHookRegistrationOptions,
    ): void;
    (
      hookName: "after_tool_call",
      handler: PluginHookHandlerMap["after_tool_call"],
      opts?: PluginHookRegistrationOptions,
    ): void;
  };
};

/** dist/agent-harness-runtime-wMciqZ6Z.d.ts, `DefinePluginEntryOptions`: what definePluginEntry() takes. */
export type DefinePluginEntryOptions = {
  id: string;
  name: string;
  description: string;
  register: (api: OpenClawPluginApi) => void;
};

/**
 * Not in a .d.ts: `details` of an exec tool's result while its command waits for an exec approval
 * (`readExecApprovalPendingDetails`, dist/builtin-openclaw-q1hiFm14.mjs). The runner also accepts these
 * fields on the result itself.
 */
export type ExecApprovalPendingDetails = {
  status: "approval-pending";
  approvalId?: string;
  approvalSlug?: string;
  command?: string;
  host?: "gateway" | "node";
  expiresAtMs?: number;
};
