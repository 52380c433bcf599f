// Tells a node that could not be reached from a node that said no, and retries only the first. The claim
// watcher depends on this split: an outage must delay an answer, never turn into one (a refusal sends
// nothing, and a claim left unanswered defaults to the user).
import { backoffMs, isTransportError, revertName } from "../sdk/chain/retry.js";
import type { Logger } from "../sdk/provider/log.js";
import { withDetails, ZkvaiError, type ZkvaiErrorOptions } from "../sdk/core/errors.js";

export interface RetryPolicy {
  initialMs: number;
  maxMs: number;
  /** Attempts of one operation before it gives up with RpcUnavailableError (the caller retries later). */
  maxAttempts?: number;
}

// The classification and the backoff live in sdk/chain/retry.ts, shared with the SDK's checkpointer.
export { backoffMs, isTransportError, revertName };

export const DEFAULT_RETRY: Required<RetryPolicy> = { initialMs: 500, maxMs: 30_000, maxAttempts: 8 };

/** The node stayed unreachable for every attempt; says nothing about the claim itself. */
export class RpcUnavailableError extends ZkvaiError {
  static override readonly code: string = "RPC_UNAVAILABLE";
  override name = "RpcUnavailableError";
  constructor(
    readonly operation: string,
    readonly attempts: number,
    override readonly cause: unknown,
    options?: ZkvaiErrorOptions,
  ) {
    super(
      `${operation}: the RPC node failed ${attempts} times in a row (last: ${firstLine(cause)})`,
      withDetails({ ...options, cause }, { operation, attempts }),
    );
  }
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
