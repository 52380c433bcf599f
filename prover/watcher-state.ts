// The claim watcher's own state, in SQLite (tables prefixed watcher_, so it may share the trace store's file):
// the last block scanned and every claim it has taken on. A scanned range and the claims found in it are
// written in one transaction, so a crash either keeps both or loses both and rescans: no claim is missed,
// and none is taken on twice.
import { hostname } from "node:os";
import Database from "better-sqlite3";
import type { Address, Hex } from "viem";
import { ZkvaiError } from "../sdk/core/errors.js";
import { type VerdictLabel } from "../sdk/core/claim.js";

export type WatchedStatus = "pending" | "settled" | "refused" | "resolved-elsewhere";

export interface WatchedClaim {
  claimId: bigint;
  sessionId: Hex;
  promiseId: bigint;
  /** Block of its ClaimFiled event. */
  block: bigint;
  status: WatchedStatus;
  attempts: number;
  lastError?: string;
  txHash?: Hex;
  verdict?: VerdictLabel;
  /** For resolved-elsewhere: the on-chain status found (Settled, Defaulted, Withdrawn, None). */
  resolution?: string;
  /** Epoch ms before which a pending claim is not tried again. */
  nextAt: number;
}

export interface FoundClaim {
  claimId: bigint;
  sessionId: Hex;
  promiseId: bigint;
  block: bigint;
}

export class WatcherLockedError extends ZkvaiError {
  static override readonly code: string = "WATCHER_LOCKED";
  override name = "WatcherLockedError";
}

/** ClaimWatcher.requeue() of a claim the watcher has not recorded, or has not refused: nothing changed. */
export class RequeueError extends ZkvaiError {
  static override readonly code: string = "CANNOT_REQUEUE";
  override name = "RequeueError";
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS watcher_cursor (
  escrow TEXT NOT NULL,
  chain_id INTEGER NOT NULL,
  last_block TEXT NOT NULL,
  PRIMARY KEY (escrow, chain_id)
);
CREATE TABLE IF NOT EXISTS watcher_claims (
  escrow TEXT NOT NULL,
  chain_id INTEGER NOT NULL,
  claim_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  promise_id TEXT NOT NULL,
  block TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'settled', 'refused', 'resolved-elsewhere')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  tx_hash TEXT,
  verdict TEXT,
  resolution TEXT,
  next_at INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (escrow, chain_id, claim_id)
);
CREATE TABLE IF NOT EXISTS watcher_holder (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  started_at TEXT NOT NULL
);
`;

interface ClaimRow {
  claim_id: string;
  session_id: string;
  promise_id: string;
  block: string;
  status: WatchedStatus;
  attempts: number;
  last_error: string | null;
  tx_hash: string | null;
  verdict: string | null;
  resolution: string | null;
  next_at: number;
}

/**
 * One watcher per state file. The lock is an exclusive SQLite lock on a sidecar file, held for the watcher's
 * life: the OS drops it when the process dies, so a crash never leaves a stale lock behind, and SQLite refuses
 * a second holder in the same process as in another.
 */
function takeLock(statePath: string): Database.Database | undefined {
  if (statePath === ":memory:") return undefined;
  const lock = new Database(`${statePath}.watcher-lock`, { timeout: 0 });
  try {
    lock.pragma("locking_mode = EXCLUSIVE");
    lock.exec("CREATE TABLE IF NOT EXISTS held (x)");
    lock.exec("BEGIN EXCLUSIVE");
    return lock;
  } catch (e) {
    lock.close();
    if ((e as { code?: string }).code !== "SQLITE_BUSY") throw e;
    throw new WatcherLockedError(
      `another claim watcher is running on ${statePath}${describeHolder(statePath)}; ` +
        `stop it first (two watchers on one state could settle a claim twice)`,
    );
  }
}

function describeHolder(statePath: string): string {
  try {
    const db = new Database(statePath, { readonly: true, fileMustExist: true, timeout: 1000 });
    try {
      const h = db.prepare("SELECT pid, host, started_at FROM watcher_holder WHERE id = 1").get() as
        { pid: number; host: string; started_at: string } | undefined;
      return h ? ` (pid ${h.pid} on ${h.host}, since ${h.started_at})` : "";
    } finally {
      db.close();
    }
  } catch {
    return "";
  }
}

export class WatcherState {
  private constructor(
    private readonly db: Database.Database,
    private readonly lock: Database.Database | undefined,
    private readonly escrow: string,
    private readonly chainId: number,
  ) {}

  /** `startBlock`: where the first scan begins, when this state has no cursor for the escrow yet. */
  static open(
    statePath: string,
    scope: { escrow: Address; chainId: number; startBlock: bigint },
  ): WatcherState {
    const lock = takeLock(statePath);
    try {
      const db = new Database(statePath, { timeout: 5000 });
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = FULL");
      db.exec(SCHEMA);
      db.prepare("INSERT OR REPLACE INTO watcher_holder VALUES (1, ?, ?, ?)").run(
        process.pid,
        hostname(),
        new Date().toISOString(),
      );
      const state = new WatcherState(db, lock, scope.escrow.toLowerCase(), scope.chainId);
      db.prepare("INSERT OR IGNORE INTO watcher_cursor VALUES (?, ?, ?)").run(
        state.escrow,
        state.chainId,
        (scope.startBlock - 1n).toString(),
      );
      return state;
    } catch (e) {
      lock?.close();
      throw e;
    }
  }

  close(): void {
    this.db.prepare("DELETE FROM watcher_holder WHERE id = 1 AND pid = ?").run(process.pid);
    this.db.close();
    this.lock?.close();
  }

  /** The last block whose ClaimFiled events are all recorded. */
  cursor(): bigint {
    const row = this.db
      .prepare("SELECT last_block FROM watcher_cursor WHERE escrow = ? AND chain_id = ?")
      .get(this.escrow, this.chainId) as { last_block: string };
    return BigInt(row.last_block);
  }

  /** Records the claims found up to `to` and moves the cursor there, atomically; returns the new claim ids. */
  recordScan(to: bigint, found: FoundClaim[]): bigint[] {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO watcher_claims (escrow, chain_id, claim_id, session_id, promise_id, block, status, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
    );
    return this.db.transaction(() => {
      const added: bigint[] = [];
      for (const c of found) {
        const r = insert.run(
          this.escrow,
          this.chainId,
          c.claimId.toString(),
          c.sessionId.toLowerCase(),
          c.promiseId.toString(),
          c.block.toString(),
          Date.now(),
        );
        if (r.changes) added.push(c.claimId);
      }
      this.db
        .prepare("UPDATE watcher_cursor SET last_block = ? WHERE escrow = ? AND chain_id = ?")
        .run(to.toString(), this.escrow, this.chainId);
      return added;
    })();
  }

  all(): WatchedClaim[] {
    return this.select("1 = 1");
  }

  get(claimId: bigint): WatchedClaim | undefined {
    return this.select("claim_id = ?", claimId.toString())[0];
  }

  /** Pending claims whose next attempt is due, oldest first. */
  due(now: number): WatchedClaim[] {
    return this.select("status = 'pending' AND next_at <= ?", now);
  }

  /** Counts an attempt before it starts, so a crash mid-attempt still shows in `attempts`. */
  startAttempt(claimId: bigint): number {
    this.update(claimId, "attempts = attempts + 1");
    return this.get(claimId)!.attempts;
  }

  markPending(claimId: bigint, error: string, nextAt: number): void {
    this.update(claimId, "status = 'pending', last_error = ?, next_at = ?", error, nextAt);
  }

  markSettled(claimId: bigint, txHash: Hex, verdict: VerdictLabel): void {
    this.update(claimId, "status = 'settled', tx_hash = ?, verdict = ?, last_error = NULL", txHash, verdict);
  }

  markRefused(claimId: bigint, reason: string): void {
    this.update(claimId, "status = 'refused', last_error = ?", reason);
  }

  markResolvedElsewhere(claimId: bigint, resolution: string): void {
    this.update(claimId, "status = 'resolved-elsewhere', resolution = ?", resolution);
  }

  /** Puts a refused claim back in line, e.g. after the operator restored a missing θ. */
  requeue(claimId: bigint): void {
    this.update(claimId, "status = 'pending', next_at = 0");
  }

  private update(claimId: bigint, set: string, ...values: unknown[]): void {
    this.db
      .prepare(
        `UPDATE watcher_claims SET ${set}, updated_at = ? WHERE escrow = ? AND chain_id = ? AND claim_id = ?`,
      )
      .run(...values, Date.now(), this.escrow, this.chainId, claimId.toString());
  }

  private select(where: string, ...values: unknown[]): WatchedClaim[] {
    const rows = this.db
      .prepare(`SELECT * FROM watcher_claims WHERE escrow = ? AND chain_id = ? AND ${where}`)
      .all(this.escrow, this.chainId, ...values) as ClaimRow[];
    return rows
      .map((r) => ({
        claimId: BigInt(r.claim_id),
        sessionId: r.session_id as Hex,
        promiseId: BigInt(r.promise_id),
        block: BigInt(r.block),
        status: r.status,
        attempts: r.attempts,
        nextAt: r.next_at,
        ...(r.last_error !== null && { lastError: r.last_error }),
        ...(r.tx_hash !== null && { txHash: r.tx_hash as Hex }),
        ...(r.verdict !== null && { verdict: r.verdict as VerdictLabel }),
        ...(r.resolution !== null && { resolution: r.resolution }),
      }))
      .sort((a, b) => (a.claimId < b.claimId ? -1 : a.claimId > b.claimId ? 1 : 0));
  }
}
