// Tells a node that could not be reached from a node that said no, and retries only the first. The claim
// watcher depends on this split: an outage must delay an answer, never turn into one (a refusal sends
// nothing, and a claim left unanswered defaults to the user).
import {
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
import type { Logger } from "../sdk/log.js";

export interface RetryPolicy {
  initialMs: number;
  maxMs: number;
  /** Attempts of one operation before it gives up with RpcUnavailableError (the caller retries later). */
  maxAttempts?: number;
}

export const DEFAULT_RETRY: Required<RetryPolicy> = { initialMs: 500, maxMs: 30_000, maxAttempts: 8 };

/** The node stayed unreachable for every attempt; says nothing about the claim itself. */
export class RpcUnavailableError extends Error {
  override name = "RpcUnavailableError";
  constructor(
    readonly operation: string,
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(`${operation}: the RPC node failed ${attempts} times in a row (last: ${firstLine(cause)})`);
  }
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
  // The transaction may be pending or lost: the caller re-reads the claim before sending again.
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

function causes(e: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let x = e; x && typeof x === "object" && chain.length < 16; x = (x as { cause?: unknown }).cause) {
    chain.push(x);
  }
  return chain;
}

/** The contract's custom error name (e.g. "ClaimNotOpen") when the node reported a revert, else undefined. */
export function revertName(e: unknown): string | undefined {
  for (const x of causes(e)) {
    if (x instanceof ContractFunctionRevertedError) return x.data?.errorName ?? x.reason ?? "unknown revert";
    if (x instanceof ExecutionRevertedError) return "unknown revert";
  }
  return undefined;
}

/**
 * True only for failures to reach or hear from the node. Reverts are answers, however they are wrapped (a
 * node may report one as an "internal error" carrying revert data), so they are checked first.
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

export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt - 1));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `op`, retrying transport failures with exponential backoff and logging each as `rpc.retry`. Any other
 * error passes through at once; an abort stops the retries.
 */
export async function withRpcRetry<T>(
  operation: string,
  op: () => Promise<T>,
  opts: { policy: RetryPolicy; log: Logger; signal?: AbortSignal; fields?: Record<string, unknown> },
): Promise<T> {
  const maxAttempts = opts.policy.maxAttempts ?? DEFAULT_RETRY.maxAttempts;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!isTransportError(e) || opts.signal?.aborted) throw e;
      if (attempt >= maxAttempts) throw new RpcUnavailableError(operation, attempt, e);
      const delayMs = backoffMs(opts.policy, attempt);
      opts.log.log("warn", "rpc.retry", { operation, attempt, delayMs, error: firstLine(e), ...opts.fields });
      await sleep(delayMs, opts.signal);
    }
  }
}

export function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0];
}
