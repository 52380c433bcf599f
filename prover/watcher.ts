// The provider's claim watcher: follows the escrow's ClaimFiled events and answers every claim on
// a session in the provider's trace store: proves it and settles it, or refuses it with a reason and sends
// nothing (the claim then defaults, the protocol's answer to a provider that cannot prove).
//
// What it must never do: settle a claim twice (one watcher per state file, and with a shared Postgres store one
// lease holder among all watchers, fenced before each step, see watcher-lease.ts; the on-chain status is read
// again before proving and before sending), miss a claim across a restart (cursor and claims commit together, see
// watcher-state.ts), or turn an RPC outage into an answer (rpc-retry.ts tells outages from refusals; an
// outage only postpones the claim).
import type { Hex } from "viem";
import { ClaimStatus, type EscrowClient } from "../sdk/chain/escrow.js";
import { jsonLogger, type Logger } from "../sdk/provider/log.js";
import type { TraceStore } from "../sdk/provider/store.js";
import { ClaimAnswerer, type Outcome } from "./claim-answerer.js";
import { MemoryBudget } from "./memory-budget.js";
import { LocalSegmentPool, type SegmentProver } from "./segments/pool.js";
import { backoffMs, DEFAULT_RETRY, firstLine, sleep, withRpcRetry, type RetryPolicy } from "./rpc-retry.js";
import {
  RequeueError,
  WatcherState,
  type FoundClaim,
  type WatchedClaim,
  type WatchedStatus,
} from "./watcher-state.js";
import { verdictLabel, type VerdictLabel } from "../sdk/core/claim.js";
import type { WatcherLease } from "./watcher-lease.js";

export interface WatcherOptions {
  /** The provider's trace store (records, promises' θ). */
  store: TraceStore;
  /** With the provider's wallet, which pays for settle(). */
  escrow: EscrowClient;
  /** SQLite file for the watcher's own state; may be the trace store's file (tables are prefixed watcher_). */
  statePath: string;
  /** Pause between ticks in run(); default 2000. */
  pollMs?: number;
  /** Blocks behind the head to scan up to; default 0. */
  confirmations?: number;
  /** Bounds the proofs running at once (see memory-budget.ts); default 2048. */
  memoryBudgetMB?: number;
  /** RPC backoff; default 500 → 30_000 ms, 8 attempts per operation before a claim waits for a later tick. */
  retry?: RetryPolicy;
  log?: Logger;
  /**
   * Where the segments of claims too long for a whole-claim circuit are proven: a BullMQ queue
   * (prover/segments/queue.ts) or, by default, a local pool of `segmentWorkers` processes (1), no Redis.
   */
  segmentProver?: SegmentProver;
  segmentWorkers?: number;
  /**
   * With a Postgres store shared by several watchers: only the lease's holder scans and answers, renewing it
   * every ttlMs / 3 and checking it before each proof and each settle (watcher-lease.ts). The caller opens and
   * closes it. Without one (SQLite), the state file's lock is the only guard, as before.
   */
  lease?: WatcherLease;
}

export interface TickReport {
  /** The cursor after this tick: every ClaimFiled up to this block is recorded. */
  scannedTo: bigint;
  newClaims: bigint[];
  settled: bigint[];
  refused: bigint[];
  /** Left pending on purpose (session not closed yet, reserve short) and tried again later. */
  deferred: bigint[];
  /** Found no longer open on-chain: nothing sent. */
  resolvedElsewhere: bigint[];
  /** Left pending after an RPC outage or an unexpected error; tried again later. */
  retrying: bigint[];
  /** True when another watcher held the lease: this one scanned and answered nothing. */
  standby?: boolean;
}

export interface WatchedClaimView {
  claimId: bigint;
  status: WatchedStatus;
  attempts: number;
  lastError?: string;
  txHash?: Hex;
  sessionId: Hex;
  promiseId: bigint;
  verdict?: VerdictLabel;
  resolution?: string;
}

/** Blocks per eth_getLogs request: what public nodes commonly accept. */
export const SCAN_CHUNK_BLOCKS = 2000n;

export class ClaimWatcher {
  private readonly budget: MemoryBudget;
  private readonly retry: Required<RetryPolicy>;
  private readonly pollMs: number;
  private readonly confirmations: bigint;
  private readonly log: Logger;
  private readonly answerer: ClaimAnswerer;
  private readonly lease?: WatcherLease;
  private segmentProver?: SegmentProver;
  private ownsSegmentProver: boolean;
  private ticking = false;
  private running = false;
  private closed = false;

  private constructor(
    private readonly store: TraceStore,
    private readonly escrow: EscrowClient,
    private readonly state: WatcherState,
    opts: WatcherOptions,
  ) {
    this.pollMs = opts.pollMs ?? 2000;
    this.confirmations = BigInt(opts.confirmations ?? 0);
    this.budget = new MemoryBudget((opts.memoryBudgetMB ?? 2048) * 2 ** 20);
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.log = opts.log ?? jsonLogger();
    this.lease = opts.lease;
    const lease = opts.lease;
    this.answerer = new ClaimAnswerer({
      ...(lease && { fence: (claimId: bigint, step: "prove" | "settle") => lease.fence(claimId, step) }),
      store,
      escrow,
      budget: this.budget,
      log: this.log,
      retry: this.retry,
      segmentProver: () =>
        (this.segmentProver ??=
          opts.segmentProver ?? new LocalSegmentPool({ workers: opts.segmentWorkers ?? 1 })),
    });
    this.ownsSegmentProver = !opts.segmentProver;
  }

  /** Takes the state file's lock (WatcherLockedError when another watcher holds it); no RPC yet. */
  static open(opts: WatcherOptions): ClaimWatcher {
    if (!opts.escrow.wallet)
      throw new Error("the claim watcher needs an EscrowClient with the provider's wallet");
    if (
      opts.confirmations !== undefined &&
      !(Number.isInteger(opts.confirmations) && opts.confirmations >= 0)
    )
      throw new RangeError(`confirmations must be a non-negative integer, got ${opts.confirmations}`);
    const state = WatcherState.open(opts.statePath, {
      escrow: opts.escrow.address,
      chainId: opts.escrow.chain.chainId,
      startBlock: opts.escrow.fromBlock,
    });
    const watcher = new ClaimWatcher(opts.store, opts.escrow, state, opts);
    watcher.log.log("info", "watcher.started", {
      escrow: opts.escrow.address,
      provider: opts.escrow.wallet.account.address,
      statePath: opts.statePath,
      cursor: state.cursor(),
      pending: state.all().filter((c) => c.status === "pending").length,
      memoryBudgetMB: opts.memoryBudgetMB ?? 2048,
      // With a shared Postgres store: answers only while it holds the lease (lease.acquired / lease.standby).
      ...(opts.lease && { leaseMs: opts.lease.ttlMs }),
    });
    return watcher;
  }

  /** One scan from the cursor to the head, then one attempt at every pending claim that is due. */
  async tick(signal?: AbortSignal): Promise<TickReport> {
    if (this.closed) throw new Error("the claim watcher is closed");
    if (this.ticking) throw new Error("a tick is already running");
    this.ticking = true;
    try {
      const report: TickReport = {
        scannedTo: 0n,
        newClaims: [],
        settled: [],
        refused: [],
        deferred: [],
        resolvedElsewhere: [],
        retrying: [],
      };
      if (this.lease && !(await this.lease.hold())) return { ...report, standby: true };
      try {
        await this.scan(report, signal);
      } catch (e) {
        // Claims already recorded can still be answered; the range is scanned again next tick.
        if (!signal?.aborted) this.log.log("warn", "scan.failed", { error: firstLine(e) });
      }
      report.scannedTo = this.state.cursor();
      const due = this.state.due(Date.now());
      await Promise.all(due.map((c) => this.process(c, report, signal)));
      return report;
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Ticks every pollMs until `signal` aborts. On abort, claims not yet proving are left pending for the next
   * run; a proof already running finishes and is sent once, without retries.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error("the claim watcher is already running");
    this.running = true;
    // The lease is renewed apart from ticks: a proof may take longer than the lease lasts.
    const lease = this.lease;
    const renew =
      lease &&
      setInterval(() => void lease.hold().catch(() => undefined), Math.max(100, Math.floor(lease.ttlMs / 3)));
    try {
      while (!signal.aborted) {
        try {
          await this.tick(signal);
        } catch (e) {
          if (!signal.aborted) this.log.log("error", "tick.failed", { error: firstLine(e) });
        }
        await sleep(this.pollMs, signal).catch(() => undefined);
      }
    } finally {
      if (renew) clearInterval(renew);
      this.running = false;
    }
  }

  /** Releases the state file. Abort run() and await it first. */
  close(): void {
    if (this.closed) return;
    if (this.ticking) throw new Error("a tick is running: abort run() and await it before close()");
    this.closed = true;
    this.state.close();
    // The local pool's workers exit when disconnected; nothing of a claim is lost (links on-chain stay).
    if (this.ownsSegmentProver) void this.segmentProver?.close();
    this.log.log("info", "watcher.stopped", { escrow: this.escrow.address });
  }

  claims(): WatchedClaimView[] {
    return this.state.all().map((c) => ({
      claimId: c.claimId,
      status: c.status,
      attempts: c.attempts,
      sessionId: c.sessionId,
      promiseId: c.promiseId,
      ...(c.lastError !== undefined && { lastError: c.lastError }),
      ...(c.txHash !== undefined && { txHash: c.txHash }),
      ...(c.verdict !== undefined && { verdict: c.verdict }),
      ...(c.resolution !== undefined && { resolution: c.resolution }),
    }));
  }

  /** Tries a refused claim again on the next tick (e.g. once a missing θ or circuit is in place). */
  requeue(claimId: bigint): void {
    const c = this.state.get(claimId);
    if (!c)
      throw new RequeueError(`claim ${claimId} is not one this watcher has recorded`, {
        details: { claimId: String(claimId) },
      });
    if (c.status !== "refused")
      throw new RequeueError(`claim ${claimId} is ${c.status}, not refused`, {
        details: { claimId: String(claimId), status: c.status },
      });
    this.state.requeue(claimId);
  }

  // ------------------------------------------------------------------------------------------ scanning

  private async scan(report: TickReport, signal?: AbortSignal): Promise<void> {
    const { publicClient } = this.escrow.chain;
    const head = await this.rpc(
      "getBlockNumber",
      () => publicClient.getBlockNumber({ cacheTime: 0 }),
      signal,
    );
    const to = head - this.confirmations;
    for (let from = this.state.cursor() + 1n; from <= to; from += SCAN_CHUNK_BLOCKS) {
      const chunkEnd = from + SCAN_CHUNK_BLOCKS - 1n < to ? from + SCAN_CHUNK_BLOCKS - 1n : to;
      const logs = await this.rpc("getLogs", () => this.escrow.claimsFiled(from, chunkEnd), signal);
      const mine: FoundClaim[] = [];
      for (const l of logs) {
        const a = l.args;
        // Only sessions in this provider's store are its business (another provider's, or one never recorded).
        if (!this.store.session(a.sessionId)) {
          this.log.log("debug", "claim.skipped", { claimId: a.claimId, sessionId: a.sessionId });
          continue;
        }
        mine.push({
          claimId: a.claimId,
          sessionId: a.sessionId,
          promiseId: a.promiseId,
          block: l.blockNumber,
        });
      }
      const added = this.state.recordScan(chunkEnd, mine);
      this.log.log(logs.length ? "info" : "debug", "scan", {
        from,
        to: chunkEnd,
        found: logs.length,
        mine: mine.length,
      });
      for (const claimId of added) {
        const c = mine.find((m) => m.claimId === claimId)!;
        this.log.log("info", "claim.new", { ...c });
        report.newClaims.push(claimId);
      }
    }
  }

  // ------------------------------------------------------------------------------------------ answering

  private async process(c: WatchedClaim, report: TickReport, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    const { claimId } = c;
    const attempt = this.state.startAttempt(claimId);
    const outcome = await this.answerer.attempt(claimId, attempt, signal);
    this.record(c, attempt, outcome, report);
    if (outcome.kind === "settled" && this.lease)
      await this.lease
        .settled(claimId, outcome.tx.txHash)
        .catch((e: unknown) => this.log.log("warn", "lease.record-failed", { claimId, error: firstLine(e) }));
  }

  private record(c: WatchedClaim, attempt: number, outcome: Outcome, report: TickReport): void {
    const { claimId } = c;
    switch (outcome.kind) {
      case "settled": {
        const { tx, proven } = outcome;
        const verdict = verdictLabel(proven.verdict.violated);
        this.state.markSettled(claimId, tx.txHash, verdict);
        this.log.log("info", "claim.settled", {
          claimId,
          verdict,
          seq: proven.verdict.seq,
          circuit: proven.circuit,
          proveSeconds: Number(proven.proveSeconds.toFixed(3)),
          ...(proven.segments ? { segments: proven.segments } : {}),
          gas: tx.gasUsed,
          txHash: tx.txHash,
        });
        report.settled.push(claimId);
        return;
      }
      case "resolved": {
        const resolution = ClaimStatus[outcome.status] ?? String(outcome.status);
        this.state.markResolvedElsewhere(claimId, resolution);
        this.log.log("info", "claim.resolved-elsewhere", { claimId, onChainStatus: resolution });
        report.resolvedElsewhere.push(claimId);
        return;
      }
      case "refused":
        this.state.markRefused(claimId, outcome.reason);
        this.log.log("error", "claim.refused", { claimId, sessionId: c.sessionId, reason: outcome.reason });
        report.refused.push(claimId);
        return;
      case "deferred": {
        const nextAt = Date.now() + backoffMs(this.retry, attempt);
        this.state.markPending(claimId, outcome.reason, nextAt);
        this.log.log("info", "claim.deferred", {
          claimId,
          reason: outcome.reason,
          retryInMs: nextAt - Date.now(),
        });
        report.deferred.push(claimId);
        return;
      }
      case "abandoned":
        this.state.markPending(claimId, `abandoned (shutdown or lease lost): ${outcome.reason}`, 0);
        this.log.log("info", "claim.abandoned", { claimId, reason: outcome.reason });
        return;
      case "retry": {
        const nextAt = Date.now() + backoffMs(this.retry, attempt);
        this.state.markPending(claimId, outcome.reason, nextAt);
        this.log.log("warn", outcome.event, {
          claimId,
          attempt,
          retryInMs: nextAt - Date.now(),
          error: outcome.reason,
        });
        report.retrying.push(claimId);
        return;
      }
    }
  }

  private rpc<T>(
    operation: string,
    op: () => Promise<T>,
    signal?: AbortSignal,
    fields?: Record<string, unknown>,
  ) {
    return withRpcRetry(operation, op, { policy: this.retry, log: this.log, signal, fields });
  }
}
