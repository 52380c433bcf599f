// What a failed chain call means, and how long to wait before the next try: the one place the SDK
// (checkpointer, close) and the prover (watcher, claim answerer) read errors from the node. A revert is
// the contract's answer and is read from viem's typed error chain, never from message text (which viem
// rewords between versions); a failure to reach or hear from the node is transient and may be retried.
import {
  BaseError,
  ChainDisconnectedError,
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  HttpRequestError,
  InternalRpcError,
  LimitExceededRpcError,
  ProviderDisconnectedError,
  ResourceUnavailableRpcError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
  TransactionReceiptNotFoundError,
  WaitForTransactionReceiptTimeoutError,
  WebSocketRequestError,
} from "viem";

/** revertName's answer for a revert whose custom error could not be decoded (no data, or not in the ABI). */
export const UNKNOWN_REVERT = "unknown revert";

/** Exponential backoff: initialMs, doubling per failure, capped at maxMs. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** The wait before attempt + 1, after `attempt` failures (attempt ≥ 1; the exponent is capped, so no overflow). */
export function backoffMs(policy: Backoff, attempt: number): number {
  const doublings = Math.min(Math.max(0, attempt - 1), 30);
  return Math.min(policy.maxMs, policy.initialMs * 2 ** doublings);
}

/** The error and its causes, outermost first (bounded: a cause chain may be cyclic). */
function causes(e: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let x = e; x && typeof x === "object" && chain.length < 16; x = (x as { cause?: unknown }).cause) {
    chain.push(x);
  }
  return chain;
}

const isRevert = (x: unknown) =>
  x instanceof ContractFunctionRevertedError || x instanceof ExecutionRevertedError;

/**
 * The contract's custom error name (e.g. "ClaimNotOpen") when the node reported a revert, UNKNOWN_REVERT
 * for a revert it could not name, undefined when `e` is no revert. The first viem error in the chain is
 * walked with BaseError.walk, so a revert wrapped in one of our errors (as `cause`) is still found.
 */
export function revertName(e: unknown): string | undefined {
  const outer = causes(e).find((x): x is BaseError => x instanceof BaseError);
  const revert = outer?.walk(isRevert);
  if (revert instanceof ContractFunctionRevertedError)
    return revert.data?.errorName ?? revert.reason ?? UNKNOWN_REVERT;
  if (revert instanceof ExecutionRevertedError) return UNKNOWN_REVERT;
  return undefined;
}

const TRANSPORT_CLASSES = [
  HttpRequestError,
  RpcRequestError,
  TimeoutError,
  WebSocketRequestError,
  SocketClosedError,
  InternalRpcError,
  LimitExceededRpcError,
  ResourceUnavailableRpcError,
  ProviderDisconnectedError,
  ChainDisconnectedError,
  // The transaction may be pending or lost: the caller re-reads the chain before sending again.
  TransactionReceiptNotFoundError,
  WaitForTransactionReceiptTimeoutError,
];

const TRANSPORT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * True only for failures to reach or hear from the node (transient: retry later); anything else is an
 * answer (permanent: retrying sends the same question). Reverts are answers however they are wrapped (a
 * node may report one as an "internal error" carrying only revert text), so they are checked first. The
 * message tests are the last resort for errors that arrive untyped: Node's fetch and Hardhat's provider.
 */
export function isTransportError(e: unknown): boolean {
  if (revertName(e) !== undefined) return false;
  const chain = causes(e);
  if (chain.some((x) => /revert|VM Exception/i.test(String((x as Error).message ?? "")))) return false;
  return chain.some((x) => {
    if (TRANSPORT_CLASSES.some((cls) => x instanceof cls)) return true;
    const code = (x as { code?: unknown }).code;
    if (typeof code === "string" && TRANSPORT_CODES.has(code)) return true;
    return /fetch failed|socket hang up|ECONNREFUSED|ECONNRESET|ETIMEDOUT/.test(String((x as Error).message));
  });
}

/** One line for a person: a revert as `fn reverted: Error(args)`, else viem's short message, else the message. */
export function describeError(e: unknown): string {
  if (e instanceof BaseError) {
    const revert = e.walk((x) => x instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      const fn = (e as { functionName?: string }).functionName;
      const data = revert.data;
      const inputs = data?.abiItem && "inputs" in data.abiItem ? data.abiItem.inputs : [];
      const reason = data
        ? `${data.errorName}(${(data.args ?? []).map((a, i) => argText(a, inputs[i]?.name)).join(", ")})`
        : (revert.reason ?? revert.shortMessage);
      return `${fn ? `${fn} ` : ""}reverted: ${reason}`;
    }
    const details = e.details && e.details !== e.shortMessage ? ` (${e.details})` : "";
    return `${e.shortMessage}${details}`.split("\n")[0];
  }
  return String((e as Error)?.message ?? e).split("\n")[0];
}

/**
 * A revert argument for a person: the escrow's times (an input named `…At` or `deadline`, Unix seconds)
 * as an ISO date with the raw value after it, so that nobody has to convert a timestamp by hand.
 */
function argText(value: unknown, name: string | undefined): string {
  const isTime = name !== undefined && (/At$/.test(name) || name === "deadline");
  if (isTime && typeof value === "bigint" && value > 0n && value < 253_402_300_800n)
    return `${name}=${new Date(Number(value) * 1000).toISOString()} (${value})`;
  return String(value);
}
