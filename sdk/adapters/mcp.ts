// zkVAI for the MCP TypeScript SDK (@modelcontextprotocol/sdk 1.32): a recording MCP client, for any server.
//
// What is recorded: every tools/call made with `client.callTool` on a client given to recordMcpClient():
// the tool, its arguments, and the CallToolResult as the client returned it, or the error. A result with
// `isError: true` (the server's tool failed, or the server does not know the tool) is recorded as the
// call's error with the result's text and returned unchanged; an McpError (a JSON-RPC error, a request
// timeout, an abort, an output that fails the tool's outputSchema) is recorded and re-thrown. The record
// is stored before callTool settles.
// Call ids: MCP has none a recorder could use. JSON-RPC ids are per-connection counters, so two clients
// (or one reconnected) reuse them; the actionId is the host's own id for the invocation
// (`{ callId }` in callTool's options, e.g. the model's tool_use id) or one minted here.
// The other ways to send tools/call: `client.request({ method: "tools/call" })` and
// `client.experimental.tasks.callToolStream()` (which goes through request) skip callTool. They are
// refused with a HarnessInputError, not recorded at the transport: a recorder that misses a path
// breaks the insurance silently, and recording below the Protocol would need forged JSON-RPC replies
// to refuse a call, the integrator's call id could not reach it, and task-augmented calls return a task
// handle instead of the tool's outcome. Refusing costs one string comparison per request.
// Where it can block: before the call leaves the client. A guard refusal (Session opened with guard),
// a store that is down, or a call zkVAI cannot record (a tool outside the profile) is not sent; callTool
// returns an `isError` result with refusalText, which is what the model reads as the tool's answer.
// Approvals: MCP has none in tools/call; the host decides before it calls. The optional `approve`
// callback is asked for every call, with the server's tool annotations (destructiveHint, …; the
// server's claims, not facts), and its Approval is recorded as an authorization record before the call.
// A deny or a timeout is not sent and comes back as an `isError` result. Who decided is whatever
// `approve` says: MCP cannot tell, so the authority is required and never assumed.
// Elicitation (a server asking the user for input during a call: accept | decline | cancel) is not
// recorded. Its request names no tools/call, so it could be tied to a call only by guessing among the
// calls in flight, and it is the server's own question after the host already sent the call, not an
// authorization before it. Its effect shows in the tool's result, which is recorded; hosts that need
// consent on record ask for it in `approve`. Sampling requests are not tool calls and not recorded.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { randomUUID } from "node:crypto";
import { receiptToJson } from "../chain/receipts.js";
import type { Session } from "../provider/session.js";
import {
  ApprovalTimeoutError,
  FailedResult,
  HarnessInputError,
  HarnessRecorder,
  isRefusal,
  refusalText,
  toolArgs,
  type Approval,
  type Authority,
  type HarnessCall,
  type ToolArgs,
} from "./recorder.js";

export { ApprovalTimeoutError, HarnessInputError, type Approval, type Authority } from "./recorder.js";

/** What `approve` is asked, once per call, before the call is sent. */
export interface McpApprovalRequest {
  callId: string;
  tool: string;
  args: ToolArgs;
  /** The server's hints from the last tools/list on this client; undefined if it never listed them. */
  annotations: ToolAnnotations | undefined;
  /** Aborted when approvalTimeout fires, so a prompt can be withdrawn. */
  signal: AbortSignal;
}

export interface RecordMcpOptions {
  /**
   * The host's decision before a call: an Approval to record (allow, or deny/timeout: not sent), or
   * undefined to send the call without an authorization record. A throw is re-thrown; nothing is sent.
   */
  approve?: (request: McpApprovalRequest) => Approval | undefined | Promise<Approval | undefined>;
  /** How long `approve` may take. Past it, a "timeout" by `authority` (who was asked) is recorded. */
  approvalTimeout?: { ms: number; authority: Authority; policyId?: string };
  /** Mints the actionId of a call made without options.callId. Default: "mcp:<uuid of this client>:<n>". */
  newCallId?: () => string;
  /**
   * Puts a receipt signed over every record so far into each recorded result's `_meta` (RECEIPT_META_KEY, in
   * receiptToJson's form), MCP's place for metadata beside a result: the host hands it to its user and passes
   * only `content` to the model. A receipt that cannot be signed is left out (the result is still returned).
   */
  receiptInMeta?: boolean;
}

/** Where receiptInMeta puts the receipt in a CallToolResult's `_meta`. */
export const RECEIPT_META_KEY = "zkvai/receipt";

/** callTool's options, plus the host's id for this invocation (the model's tool_use id), its actionId. */
export type RecordedCallOptions = RequestOptions & { callId?: string };

type CallTool = Client["callTool"];
type ToolResult = Awaited<ReturnType<CallTool>>;

/** The client recordMcpClient returns: itself, with a callTool that takes `{ callId }`. */
export type RecordedClient<C extends Client = Client> = C & {
  callTool(
    params: Parameters<CallTool>[0],
    resultSchema?: Parameters<CallTool>[1],
    options?: RecordedCallOptions,
  ): Promise<ToolResult>;
};

/** The client's own methods, restored on detach; undefined where the client had only the prototype's. */
interface Attached {
  callTool?: CallTool;
  request?: Client["request"];
  listTools?: Client["listTools"];
}
const PATCHED = ["callTool", "request", "listTools"] as const;
const ATTACHED = Symbol.for("zkvai.mcp.attached");
type Patched = Client & { [ATTACHED]?: Attached };

/**
 * Records every `callTool` of this client into the session, from now until detachMcpClient(). The
 * client may be connected already or later; one session per attachment (attach a client again for a
 * new session after detaching it).
 */
export function recordMcpClient<C extends Client>(
  client: C,
  session: Session,
  opts: RecordMcpOptions = {},
): RecordedClient<C> {
  const target = client as Patched;
  if (target[ATTACHED])
    throw new HarnessInputError(
      "recordMcpClient: this client is already recorded; detachMcpClient() it first",
    );
  if (opts.approvalTimeout && !opts.approve)
    throw new HarnessInputError("recordMcpClient: approvalTimeout needs an approve callback to time");
  const timeout = opts.approvalTimeout;
  if (timeout && !(Number.isFinite(timeout.ms) && timeout.ms > 0))
    throw new HarnessInputError("recordMcpClient: approvalTimeout.ms must be a positive number of ms");
  const own: Attached = {};
  for (const key of PATCHED) if (Object.hasOwn(client, key)) Object.assign(own, { [key]: client[key] });
  const original = { callTool: client.callTool, request: client.request, listTools: client.listTools };
  const recorder = new HarnessRecorder(session);
  // One random prefix per attachment, then a counter: unique across connections and across a
  // recovered session's earlier ids, with no per-call randomness.
  const prefix = `mcp:${randomUUID()}:`;
  let minted = 0;
  const newCallId = opts.newCallId ?? (() => prefix + minted++);
  const annotations = new Map<string, ToolAnnotations | undefined>();
  // The params objects callTool itself sends; any other tools/call request is refused below.
  const ours = new WeakSet<object>();

  target.listTools = async function (this: Client, ...args: Parameters<Client["listTools"]>) {
    const listed = await original.listTools.apply(this, args);
    // A paginated listing (a cursor) adds to what earlier pages said.
    if (args[0]?.cursor === undefined) annotations.clear();
    for (const tool of listed.tools) annotations.set(tool.name, tool.annotations);
    return listed;
  } as Client["listTools"];

  target.request = function (this: Client, ...args: Parameters<Client["request"]>) {
    const [req] = args;
    if (req.method === "tools/call" && !(req.params && ours.has(req.params)))
      return Promise.reject(
        new HarnessInputError(
          `tools/call ${JSON.stringify((req.params as { name?: unknown })?.name)} sent outside client.callTool ` +
            "(client.request or experimental.tasks.callToolStream) would not be recorded by zkVAI; use client.callTool",
        ),
      );
    return original.request.apply(this, args);
  } as Client["request"];

  target.callTool = async function (
    this: Client,
    params: Parameters<CallTool>[0],
    resultSchema?: Parameters<CallTool>[1],
    options?: RecordedCallOptions,
  ): Promise<ToolResult> {
    const { callId: given, ...requestOptions } = options ?? {};
    if (given !== undefined && (typeof given !== "string" || given.length === 0))
      throw new HarnessInputError(`callTool ${params?.name}: options.callId must be a non-empty string`);
    if (typeof params?.name !== "string")
      throw new HarnessInputError("callTool: params.name must be the tool's name");
    if ((requestOptions as { task?: unknown }).task !== undefined)
      throw new HarnessInputError(
        `callTool ${params.name}: a task-augmented call returns a task handle, not the tool's outcome, so zkVAI cannot record it; call it without options.task`,
      );
    // One copy, taken before any await: what is approved, recorded and sent is the same object, whatever
    // the caller does with its own arguments afterwards.
    const call: HarnessCall = {
      callId: given ?? newCallId(),
      tool: params.name,
      args: copyOf(params.name, toolArgs(params.name, params.arguments)),
    };
    if (opts.approve) {
      const approval = await decide(opts, call, annotations.get(call.tool));
      if (approval) {
        recorder.approve(call, approval);
        if (approval.decision !== "allow") return failure(approvalRefusal(call.tool, approval));
      }
    }
    const sent = { ...params, arguments: call.args };
    ours.add(sent);
    try {
      const result = await recorder.run(call, async () => {
        const result = await original.callTool.call(this, sent, resultSchema, requestOptions);
        if (result.isError) throw new FailedResult(result, errorMessage(call.tool, result));
        return result;
      });
      return opts.receiptInMeta ? await withReceipt(result, recorder.session) : result;
    } catch (e) {
      // The model reads a refusal as the tool's answer, as it reads any failed tool.
      if (isRefusal(e)) return failure(refusalText(call.tool, e));
      throw e;
    }
  } as CallTool;

  target[ATTACHED] = own;
  return client as RecordedClient<C>;
}

/** The result with a receipt of the session so far in its `_meta`; the result unchanged if none can be signed. */
async function withReceipt(result: ToolResult, session: Session): Promise<ToolResult> {
  let receipt: string;
  try {
    receipt = receiptToJson(await session.receipt());
  } catch {
    return result;
  }
  const meta = (result as { _meta?: Record<string, unknown> })._meta;
  return { ...result, _meta: { ...meta, [RECEIPT_META_KEY]: JSON.parse(receipt) as unknown } } as ToolResult;
}

function copyOf(tool: string, args: ToolArgs): ToolArgs {
  try {
    return structuredClone(args);
  } catch (e) {
    throw new HarnessInputError(`callTool ${tool}: its arguments cannot be copied: ${(e as Error).message}`);
  }
}

/** Gives the client back its own callTool, request and listTools. */
export function detachMcpClient(client: Client): void {
  const target = client as Patched;
  const own = target[ATTACHED];
  if (!own) throw new HarnessInputError("detachMcpClient: this client is not recorded");
  for (const key of PATCHED) {
    if (own[key]) Object.assign(target, { [key]: own[key] });
    else delete (target as Partial<Client>)[key];
  }
  delete target[ATTACHED];
}

/** Asks `approve`, bounded by approvalTimeout; a timeout is the decision "timeout" by its authority. */
async function decide(
  opts: RecordMcpOptions,
  call: HarnessCall,
  annotations: ToolAnnotations | undefined,
): Promise<Approval | undefined> {
  const abort = new AbortController();
  const asked = Promise.resolve(
    opts.approve!({ ...call, args: { ...call.args }, annotations, signal: abort.signal }),
  );
  const limit = opts.approvalTimeout;
  if (!limit) return asked;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<Approval>((resolve) => {
    timer = setTimeout(() => {
      abort.abort(
        new ApprovalTimeoutError(`approval of ${call.tool} timed out after ${limit.ms} ms`, {
          details: { tool: call.tool, timeoutMs: limit.ms },
        }),
      );
      const { authority, policyId } = limit;
      resolve({ decision: "timeout", authority, ...(policyId !== undefined ? { policyId } : {}) });
    }, limit.ms);
  });
  try {
    return await Promise.race([asked, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function approvalRefusal(tool: string, approval: Approval): string {
  const why = approval.decision === "timeout" ? "its approval timed out" : "its approval was denied";
  return `zkVAI refused ${tool}: ${why} (${approval.authority}${approval.policyId ? `, ${approval.policyId}` : ""}), so it was not run`;
}

/** A result the model reads as a failed tool, as MCP servers report one. */
function failure(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** An isError result's text, as the call's recorded error. */
function errorMessage(tool: string, result: ToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content
    .map((c) => (c && c.type === "text" ? c.text : undefined))
    .filter((t): t is string => typeof t === "string" && t.length > 0)
    .join("\n");
  return text.length > 0 ? text : `${tool} returned isError with no text`;
}
