// Commits chain heads on-chain while the agent runs, so records cannot be edited or
// dropped later than one checkpoint interval (docs/SOUNDNESS.md): a checkpoint of the
// prefix is queued after everyRecords new records, or everyMs after the first record no
// checkpoint covers yet, or on checkpointNow(). Submissions are serialised, and each
// attempt takes the newest queued prefix, so after an outage the next landing one catches
// up instead of replaying stale heads (queued prefixes merge). Calls never wait on the
// chain; failures retry with exponential backoff until close() supersedes them.
// There is no cap. The escrow takes the k-th checkpoint only at more than
// CHECKPOINT_INTERVAL·(k−1) records (sdk/core/checkpoints.ts): a prefix the budget does
// not cover yet (time triggers spent it early) waits for the records that earn it.
import type { Hex } from "viem";
import type { EscrowClient, TxResult } from "../chain/escrow.js";
import type { Logger } from "./log.js";
import type { TraceStore } from "./store.js";
import { CheckpointBudgetError, CheckpointMismatchError, SessionClosedError } from "../core/errors.js";
import { checkpointAffordable } from "../core/checkpoints.js";
import { backoffMs, revertName, type Backoff } from "../chain/retry.js";

export interface CheckpointPolicy {
  /** Checkpoint once this many records are not covered by one yet (Infinity: never by count). */
  everyRecords: number;
  /** Checkpoint this long after the first record not covered yet (Infinity: never by time). */
  everyMs: number;
  /** Backoff after a failed submission: initialMs, doubling, capped at maxMs. */
  retry: Backoff;
}

export const DEFAULT_POLICY: CheckpointPolicy = {
  everyRecords: 10,
  everyMs: 30_000,
  retry: { initialMs: 250, maxMs: 10_000 },
};

export function resolvePolicy(p: Partial<CheckpointPolicy> = {}): CheckpointPolicy {
  const policy = { ...DEFAULT_POLICY, ...p, retry: { ...DEFAULT_POLICY.retry, ...p.retry } };
  const positive = (x: number, what: string, allowInfinity: boolean) => {
    const ok = allowInfinity && x === Infinity ? true : Number.isFinite(x) && x > 0;
    if (!ok) throw new RangeError(`checkpoint policy: ${what} must be a positive number, got ${x}`);
  };
  positive(policy.everyRecords, "everyRecords", true);
  positive(policy.everyMs, "everyMs", true);
  positive(policy.retry.initialMs, "retry.initialMs", false);
  positive(policy.retry.maxMs, "retry.maxMs", false);
  if (policy.retry.maxMs < policy.retry.initialMs)
    throw new RangeError("checkpoint policy: retry.maxMs must be at least retry.initialMs");
  return policy;
}

// One backoff formula for the checkpointer, close() and the watcher (sdk/chain/retry.ts).
export { backoffMs };

export interface CheckpointerDeps {
  escrow: EscrowClient;
  store: TraceStore;
  sessionId: Hex;
  log: Logger;
  policy: CheckpointPolicy;
  /** The escrow's CHECKPOINT_INTERVAL: the k-th checkpoint needs more than interval·(k−1) records. */
  checkpointInterval: number;
  /** Records acknowledged so far. */
  count(): number;
  /** The chain head of the first n records (LeafLog.head). */
  headOf(n: number): bigint;
  /** What the chain already holds for the session. */
  onChain: { lastN: number; checkpoints: number };
}

// The escrow's custom errors that mean the chain moved without us (a "failed" send that landed, or a close).
const DIVERGED = new Set(["CheckpointNotIncreasing", "CheckpointBudget", "AlreadyClosed"]);

export class Checkpointer {
  private confirmedN: number;
  private confirmed: number;
  private failures = 0;
  private lastTx: TxResult | undefined;
  /** The newest prefix queued (landed or not): what the record and time triggers count from. */
  private target: number;
  private state: "active" | "stopped" = "active";
  /** A trigger fired for a prefix the budget did not cover yet: the next record that earns it sends it. */
  private deferred = false;
  private stopReason: Error | undefined;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private backoff: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  private waiters: { n: number; resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor(private readonly deps: CheckpointerDeps) {
    this.confirmedN = deps.onChain.lastN;
    this.confirmed = deps.onChain.checkpoints;
    this.target = deps.onChain.lastN;
  }

  get stats() {
    return {
      checkpoints: this.confirmed,
      checkpointFailures: this.failures,
      lastCheckpointN: this.confirmedN,
      lastCheckpointTx: this.lastTx,
    };
  }

  /** A record was acknowledged: apply the policy. */
  recorded(): void {
    if (this.state !== "active") return;
    const n = this.deps.count();
    if (this.deferred && this.affordable(n)) this.request(n);
    else if (n - this.target >= this.deps.policy.everyRecords) this.request(n);
    else this.armTimer();
  }

  /** Whether the escrow takes a checkpoint of n records after the ones confirmed. */
  private affordable(n: number): boolean {
    return checkpointAffordable(this.confirmed, n, this.deps.checkpointInterval);
  }

  /** Checkpoint the current prefix now and wait until it (or a longer one) has landed. */
  now(): Promise<void> {
    const n = this.deps.count();
    if (n <= this.confirmedN) return Promise.resolve();
    if (!this.running && !this.affordable(n)) return Promise.reject(this.budgetError(n));
    if (this.state === "stopped")
      return Promise.reject(
        this.stopReason ??
          new SessionClosedError("checkpointing has stopped", {
            details: { sessionId: this.deps.sessionId },
          }),
      );
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ n, resolve, reject }));
    this.request(n);
    return done;
  }

  /** Resolves once nothing is queued, in flight or waiting to retry. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * close(): the final commitment covers everything, so queued checkpoints and retries are
   * dropped; a transaction already sent is waited for, since it may still land first.
   */
  async supersede(): Promise<void> {
    this.state = "stopped";
    this.clearTimer();
    this.backoff?.wake();
    await this.drain();
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  /**
   * Brings the local view in line with the chain's fold entries: checkpoints (a send that
   * "failed" but landed) and receipts the user posted, each checked against our chain head,
   * stored when the store lacks it, and counted, since both spend the escrow's budget.
   */
  async reconcile(): Promise<void> {
    const { escrow, sessionId, store, log } = this.deps;
    const onChain = await escrow.checkpointsOf(sessionId);
    for (const [i, c] of onChain.entries()) {
      const count = this.deps.count();
      if (c.n > count) {
        throw new CheckpointMismatchError(
          `session ${sessionId}: on-chain ${c.kind} ${i} commits ${c.n} records, but only ${count} are recorded: acknowledged records were lost`,
          i,
        );
      }
      const mine = this.deps.headOf(c.n);
      if (mine !== c.root) {
        throw new CheckpointMismatchError(
          `session ${sessionId}: on-chain ${c.kind} ${i} (first ${c.n} records) has head 0x${c.root.toString(16)}, but the recorded records give 0x${mine.toString(16)}`,
          i,
        );
      }
      store.addCheckpoint(sessionId, { n: c.n, root: c.root, final: false });
      if (i >= this.confirmed) {
        log.log("info", "checkpoint.confirmed", { sessionId, n: c.n, root: c.root, reconciled: true });
        this.confirmed = i + 1;
        // A spare receipt may name an earlier prefix: the escrow's lastN is the largest n.
        this.confirmedN = Math.max(this.confirmedN, c.n);
        this.target = Math.max(this.target, c.n);
      }
    }
    this.settleWaiters();
  }

  /** Queues the prefix of n records; a newer one supersedes any older one not sent yet. */
  private request(n: number): void {
    this.target = Math.max(this.target, n);
    if (this.running) return;
    if (this.deferred && !this.affordable(this.target)) return;
    this.deferred = false;
    this.running = this.run(this.target);
  }

  /** `first`: the prefix this run was started for, fixed now so checkpoints land where the policy put them. */
  private async run(first: number): Promise<void> {
    try {
      // The root may have leaves left to hash: on the next turn, not on the triggering call's path.
      await new Promise<void>((resolve) => setImmediate(resolve));
      let pinned: number | undefined = first;
      while (this.target > this.confirmedN && this.state === "active" && !this.deferred) {
        this.clearTimer();
        await this.submitNewest(pinned);
        pinned = undefined;
      }
    } catch (e) {
      // Not the chain (submitNewest retries that): the store, most likely. Nothing sensible to retry.
      this.deps.log.log("error", "checkpoint.error", { sessionId: this.deps.sessionId, error: String(e) });
      this.stop(e as Error);
    } finally {
      // Same synchronous step as the loop's last check, so no request() can slip between.
      this.running = undefined;
    }
  }

  /** Sends the prefix `pinned` (first attempt only) or else the newest queued one, retrying until it lands. */
  private async submitNewest(pinned?: number): Promise<void> {
    const { escrow, sessionId, log, policy } = this.deps;
    for (let attempt = 1; this.state === "active"; attempt++) {
      const n = attempt === 1 && pinned !== undefined ? pinned : this.target;
      if (n <= this.confirmedN) return this.settleWaiters();
      if (!this.affordable(n)) return this.defer(n);
      this.deferred = false;
      const root = this.deps.headOf(n);
      log.log("info", "checkpoint.submitted", { sessionId, n, attempt });
      try {
        const tx = await escrow.checkpoint(sessionId, n, root);
        this.deps.store.addCheckpoint(sessionId, { n, root, final: false });
        this.confirmed++;
        this.confirmedN = n;
        this.lastTx = { txHash: tx.txHash, gasUsed: tx.gasUsed };
        log.log("info", "checkpoint.confirmed", {
          sessionId,
          n,
          root,
          attempt,
          txHash: tx.txHash,
          gasUsed: tx.gasUsed,
        });
        this.settleWaiters();
        this.armTimer();
        return;
      } catch (e) {
        this.failures++;
        // Superseded while in flight: the final commitment covers this prefix.
        if (this.state !== "active") return;
        const message = (e as Error)?.message ?? String(e);
        const delayMs = backoffMs(policy.retry, attempt);
        log.log("warn", "checkpoint.failed", { sessionId, n, attempt, delayMs, error: message });
        if (DIVERGED.has(revertName(e) ?? "")) await this.resync();
        if (this.state !== "active") return;
        await this.sleep(delayMs);
      }
    }
  }

  /** After a revert that says the chain moved: adopt what landed, or stop if the session closed. */
  private async resync(): Promise<void> {
    try {
      const info = await this.deps.escrow.session(this.deps.sessionId);
      await this.reconcile();
      if (info.closed)
        this.stop(
          new SessionClosedError(`session ${this.deps.sessionId} was closed on-chain`, {
            details: { sessionId: this.deps.sessionId },
          }),
        );
    } catch (e) {
      if (e instanceof CheckpointMismatchError) {
        this.deps.log.log("error", "checkpoint.mismatch", {
          sessionId: this.deps.sessionId,
          error: e.message,
        });
        this.stop(e);
      }
      // Otherwise the chain is unreachable; the next attempt tries again.
    }
  }

  /** The budget does not cover n yet: wait for the records that earn it (recorded() sends it then). */
  private defer(n: number): void {
    if (!this.deferred)
      this.deps.log.log("info", "checkpoint.deferred", {
        sessionId: this.deps.sessionId,
        n,
        checkpoints: this.confirmed,
        sendsAt: this.confirmed * this.deps.checkpointInterval + 1,
      });
    this.deferred = true;
    this.clearTimer();
    for (const w of this.waiters.filter((w) => !this.affordable(w.n))) w.reject(this.budgetError(w.n));
    this.waiters = this.waiters.filter((w) => this.affordable(w.n));
  }

  private stop(reason: Error): void {
    this.state = "stopped";
    this.stopReason = reason;
    this.clearTimer();
    for (const w of this.waiters.splice(0)) w.reject(reason);
  }

  private budgetError(n: number): CheckpointBudgetError {
    const at = this.confirmed * this.deps.checkpointInterval + 1;
    return new CheckpointBudgetError(
      `session ${this.deps.sessionId}: ${this.confirmed} checkpoints already cover ${n} records' budget; the escrow takes the next one at ${at} records (one per ${this.deps.checkpointInterval})`,
    );
  }

  private settleWaiters(): void {
    this.waiters = this.waiters.filter((w) => (w.n <= this.confirmedN ? (w.resolve(), false) : true));
  }

  private armTimer(): void {
    const { everyMs } = this.deps.policy;
    if (this.timer || this.state !== "active" || everyMs === Infinity) return;
    if (this.deps.count() <= this.target) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const n = this.deps.count();
      if (n > this.target) this.request(n);
    }, everyMs);
    // A pending checkpoint must not keep the process alive; close() commits everything anyway.
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.backoff = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.backoff = { timer, wake };
    });
  }
}
