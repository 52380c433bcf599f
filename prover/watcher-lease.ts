// Which of several claim watchers answers, when they share one Postgres trace store and one escrow: the one
// holding the lease, a row of watcher_lease (store-postgres-schema.ts, migration 2) naming its holder and an
// expiry on the database's clock. The holder renews it every ttl/3; a standby takes it only once it expired,
// which bumps its token. Fencing: before proving a claim and again before sending its settle, the holder
// checks, in one transaction that locks the lease row, that it still holds the lease under its token, and
// records the claim's answer (watcher_answers) as being sent by that token; once settled, the row says so and
// no watcher answers that claim again. A holder paused past its expiry between that check and its send is
// still stopped by the chain: settle() of a claim no longer open reverts, and the watcher reads it resolved.
// With a SQLite store none of this runs: the state file's OS lock keeps one watcher per host (watcher-state.ts).
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import pg from "pg";
import { ZkvaiError } from "../sdk/core/errors.js";
import type { Logger } from "../sdk/provider/log.js";
import { redactUrl } from "../sdk/provider/store-postgres.js";

/** How long a lease lasts unless renewed (renewed every ttl/3); `vai watch --lease-ms`. */
export const DEFAULT_LEASE_MS = 15_000;

/** This watcher no longer holds the lease: it sends nothing more until it takes it again. */
export class LeaseLostError extends ZkvaiError {
  static override readonly code: string = "WATCHER_LEASE_LOST";
  override name = "LeaseLostError";
}

/** Another watcher recorded this claim settled: nothing to send. */
export class AnsweredElsewhereError extends ZkvaiError {
  static override readonly code: string = "CLAIM_ANSWERED_ELSEWHERE";
  override name = "AnsweredElsewhereError";
}

export interface LeaseHolder {
  holder: string;
  host: string;
  pid: number;
  token: bigint;
  expiresAt: Date;
}

export interface WatcherLease {
  /** How long the lease lasts unless renewed; the watcher renews it every ttlMs / 3. */
  readonly ttlMs: number;
  /** Takes the lease if free or expired, renews it if held; true when this watcher holds it now. */
  hold(): Promise<boolean>;
  /** Throws LeaseLostError unless the lease is still held; before "settle" also records the claim as being sent. */
  fence(claimId: bigint, step: "prove" | "settle"): Promise<void>;
  /** Records the claim settled by this holder (no watcher answers it again). */
  settled(claimId: bigint, txHash: string): Promise<void>;
  /** Gives the lease up at once (a clean stop), so a standby need not wait for its expiry. */
  release(): Promise<void>;
  close(): Promise<void>;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    application_name: `zkvai-watcher ${hostname()}:${process.pid}`,
    keepAlive: true,
  });
  // A lost connection fails the next query, which hold() answers by connecting again.
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

export interface PostgresLeaseOptions {
  url: string;
  escrow: string;
  chainId: number;
  ttlMs?: number;
  log: Logger;
}

export class PostgresWatcherLease implements WatcherLease {
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  readonly ttlMs: number;
  private token: bigint | undefined;
  private held = false;
  private lastStandby = "";
  /** One statement or transaction at a time on the one connection. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly escrow: string;

  private constructor(
    private client: pg.Client,
    private readonly opts: PostgresLeaseOptions,
  ) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_LEASE_MS;
    this.escrow = opts.escrow.toLowerCase();
  }

  static async open(opts: PostgresLeaseOptions): Promise<PostgresWatcherLease> {
    if (opts.ttlMs !== undefined && !(Number.isInteger(opts.ttlMs) && opts.ttlMs >= 300))
      throw new RangeError(`the lease must last at least 300 ms, got ${opts.ttlMs}`);
    try {
      return new PostgresWatcherLease(await connect(opts.url), opts);
    } catch (e) {
      throw new ZkvaiError(
        `watcher lease: cannot connect to ${redactUrl(opts.url)}: ${(e as Error).message}`,
      );
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private get key(): [string, number] {
    return [this.escrow, this.opts.chainId];
  }

  hold(): Promise<boolean> {
    return this.serial(async () => {
      let rows: { token: string }[];
      try {
        rows = (
          await this.client.query<{ token: string }>(
            `INSERT INTO watcher_lease (escrow, chain_id, holder, host, pid, token, expires_at)
             VALUES ($1, $2, $3, $4, $5, 1, now() + $6 * interval '1 millisecond')
             ON CONFLICT (escrow, chain_id) DO UPDATE SET
               holder = EXCLUDED.holder, host = EXCLUDED.host, pid = EXCLUDED.pid,
               token = CASE WHEN watcher_lease.holder = EXCLUDED.holder THEN watcher_lease.token
                            ELSE watcher_lease.token + 1 END,
               expires_at = EXCLUDED.expires_at
             WHERE watcher_lease.holder = EXCLUDED.holder OR watcher_lease.expires_at < now()
             RETURNING token`,
            [...this.key, this.holder, hostname(), process.pid, this.ttlMs],
          )
        ).rows;
      } catch (e) {
        if (this.held)
          this.opts.log.log("warn", "lease.unreachable", { error: (e as Error).message.split("\n")[0] });
        this.held = false;
        // A connection the server ended stays dead: the next hold() starts on a new one.
        const old = this.client;
        void old.end().catch(() => undefined);
        this.client = await connect(this.opts.url).catch(() => old);
        return false;
      }
      const row = rows[0];
      if (row) {
        const token = BigInt(row.token);
        if (!this.held || this.token !== token)
          this.opts.log.log("info", "lease.acquired", {
            message: `took over the lease (token ${token}, ttl ${this.ttlMs} ms)`,
            holder: this.holder,
            token,
          });
        this.held = true;
        this.token = token;
        this.lastStandby = "";
        return true;
      }
      if (this.held)
        this.opts.log.log("warn", "lease.lost", { message: "lost the lease", holder: this.holder });
      this.held = false;
      const other = await this.current().catch(() => undefined);
      if (other && other.holder !== this.lastStandby) {
        this.lastStandby = other.holder;
        this.opts.log.log("info", "lease.standby", {
          message: `standby: lease held by host ${other.host} pid ${other.pid} until ${other.expiresAt.toISOString()}`,
          holder: other.holder,
          token: other.token,
        });
      }
      return false;
    });
  }

  /** The lease's row as stored, whoever holds it. */
  async current(): Promise<LeaseHolder | undefined> {
    const r = (
      await this.client.query<{ holder: string; host: string; pid: number; token: string; expires_at: Date }>(
        "SELECT holder, host, pid, token, expires_at FROM watcher_lease WHERE escrow = $1 AND chain_id = $2",
        this.key,
      )
    ).rows[0];
    return (
      r && { holder: r.holder, host: r.host, pid: r.pid, token: BigInt(r.token), expiresAt: r.expires_at }
    );
  }

  fence(claimId: bigint, step: "prove" | "settle"): Promise<void> {
    return this.serial(async () => {
      const c = this.client;
      try {
        await c.query("BEGIN");
        const lease = await c.query(
          `UPDATE watcher_lease SET expires_at = now() + $5 * interval '1 millisecond'
           WHERE escrow = $1 AND chain_id = $2 AND holder = $3 AND token = $4 AND expires_at > now()`,
          [...this.key, this.holder, String(this.token ?? -1n), this.ttlMs],
        );
        if (lease.rowCount !== 1) {
          this.held = false;
          throw new LeaseLostError(
            `claim ${claimId}: this watcher no longer holds the lease (before ${step}); the holder answers it`,
          );
        }
        const answer = await c.query<{ status: string; holder: string; tx_hash: string | null }>(
          `SELECT status, holder, tx_hash FROM watcher_answers
           WHERE escrow = $1 AND chain_id = $2 AND claim_id = $3 FOR UPDATE`,
          [...this.key, claimId.toString()],
        );
        const prior = answer.rows[0];
        if (prior?.status === "settled")
          throw new AnsweredElsewhereError(
            `claim ${claimId} is recorded settled by ${prior.holder} (tx ${prior.tx_hash})`,
          );
        if (step === "settle")
          await c.query(
            `INSERT INTO watcher_answers (escrow, chain_id, claim_id, holder, token, status)
             VALUES ($1, $2, $3, $4, $5, 'sending')
             ON CONFLICT (escrow, chain_id, claim_id) DO UPDATE SET
               holder = EXCLUDED.holder, token = EXCLUDED.token, status = 'sending', updated_at = now()`,
            [...this.key, claimId.toString(), this.holder, String(this.token)],
          );
        await c.query("COMMIT");
      } catch (e) {
        await c.query("ROLLBACK").catch(() => undefined);
        if (e instanceof LeaseLostError || e instanceof AnsweredElsewhereError) throw e;
        this.held = false;
        throw new LeaseLostError(`claim ${claimId}: cannot check the lease (${(e as Error).message})`);
      }
    });
  }

  settled(claimId: bigint, txHash: string): Promise<void> {
    return this.serial(async () => {
      await this.client.query(
        `INSERT INTO watcher_answers (escrow, chain_id, claim_id, holder, token, status, tx_hash)
         VALUES ($1, $2, $3, $4, $5, 'settled', $6)
         ON CONFLICT (escrow, chain_id, claim_id) DO UPDATE SET
           holder = EXCLUDED.holder, token = EXCLUDED.token, status = 'settled', tx_hash = EXCLUDED.tx_hash,
           updated_at = now()`,
        [...this.key, claimId.toString(), this.holder, String(this.token ?? 0n), txHash],
      );
    });
  }

  release(): Promise<void> {
    return this.serial(async () => {
      if (!this.held) return;
      this.held = false;
      await this.client
        .query(
          "UPDATE watcher_lease SET expires_at = now() WHERE escrow = $1 AND chain_id = $2 AND holder = $3",
          [...this.key, this.holder],
        )
        .catch(() => undefined);
      this.opts.log.log("info", "lease.released", { holder: this.holder });
    });
  }

  async close(): Promise<void> {
    await this.release();
    await this.client.end().catch(() => undefined);
  }
}
