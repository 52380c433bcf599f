// The Postgres trace store's worker thread: one pg connection, and every store operation as a transaction on
// it (store-postgres.ts is the synchronous facade the caller holds; sync-worker.ts carries each call).
//
// Isolation: READ COMMITTED, and every write to a session first locks that session's row (FOR NO KEY
// UPDATE). Writers of one session so queue on one row lock, and each statement after the lock sees every
// record committed before it, so the next seq is computed from the committed tail: contiguous seqs without
// SERIALIZABLE's whole-transaction retries, while writers of different sessions never wait on each other.
// A serialization failure, a deadlock or a lost unique race is still retried (RETRYABLE), from the start.
// synchronous_commit is on: a reply is sent after COMMIT returned, so acknowledged means durable.
//
// One writer per session across hosts: a session-level advisory lock on this connection (it dies with the
// connection, so a crashed recorder's session can be recovered at once), plus the writers row that names the
// holder (host, pid) for the refusal message. The connection is never replaced: once it is lost, its
// locks are gone and another recorder may have taken the session over, so every later call fails.
import { hostname } from "node:os";
import { workerData } from "node:worker_threads";
import pg from "pg";
import { checkSchema, WRITER_LOCK_SEED } from "./store-postgres-schema.js";
import { StoreConflictError, StoreError } from "./store-model.js";
import { serveSync } from "./sync-worker.js";

/** SQLSTATEs worth a fresh attempt: serialization_failure, deadlock_detected, unique_violation (a lost race). */
const RETRYABLE = new Set(["40001", "40P01", "23505"]);
const ATTEMPTS = 5;
/** How long a statement waits for a row lock another connection holds (SQLite's 3 × 5 s busy timeout). */
const LOCK_TIMEOUT_MS = 15_000;

const { url, where } = workerData as { url: string; where: string };
const client = new pg.Client({
  connectionString: url,
  application_name: `zkvai-store ${hostname()}:${process.pid}`,
  // The other way round: a server that went away is noticed by this side's probes too.
  keepAlive: true,
});
/** Set once the connection failed: what every later call throws. */
let lost: StoreError | undefined;
const markLost = (why: string) => {
  lost ??= new StoreError(
    `trace store ${where}: the connection was lost (${why}); its writer locks went with it, so nothing more ` +
      "is written through it (reopen the store and recover the session)",
  );
};
client.on("error", (e) => markLost(e.message));
// A connection the server ended while a query ran rejects that query and then ends, without an 'error' event.
client.on("end", () => markLost("the server closed it"));
/** Sessions whose advisory writer lock this connection holds (a session-level lock stacks if taken twice). */
const held = new Set<string>();

type Client = pg.Client;

async function tx<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (lost) throw lost;
    await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
    try {
      const value = await fn(client);
      await client.query("COMMIT");
      return value;
    } catch (e) {
      await client.query("ROLLBACK").catch(() => undefined);
      const code = (e as { code?: string }).code;
      if (code && RETRYABLE.has(code) && attempt < ATTEMPTS) continue;
      if (code === "55P03")
        throw new StoreError(
          `trace store ${where}: another connection held a lock through ${LOCK_TIMEOUT_MS} ms`,
        );
      throw e;
    }
  }
}

async function query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
  if (lost) throw lost;
  return (await client.query<R>(sql, params)).rows;
}

/** Locks the session's row for this transaction, or throws when there is no such session. */
async function lockSession(c: Client, id: string): Promise<void> {
  const rows = await c.query("SELECT 1 FROM sessions WHERE session_id = $1 FOR NO KEY UPDATE", [id]);
  if (rows.rowCount !== 1) throw new StoreError(`unknown session ${id}; create it before appending`);
}

async function nextSeq(c: Client, id: string): Promise<number> {
  const rows = await c.query<{ next: number }>(
    "SELECT COALESCE(MAX(seq) + 1, 0)::int AS next FROM records WHERE session_id = $1",
    [id],
  );
  return rows.rows[0]!.next;
}

async function append(id: string, seq: number, body: string, reservation?: number) {
  return tx(async (c) => {
    await lockSession(c, id);
    const existing = await c.query<{ body: string }>(
      "SELECT body FROM records WHERE session_id = $1 AND seq = $2",
      [id, seq],
    );
    if (existing.rows[0]) {
      if (existing.rows[0].body === body) return "duplicate" as const;
      throw new StoreConflictError(
        `session ${id} seq ${seq} is already stored with other content; records are never overwritten`,
      );
    }
    const next = await nextSeq(c, id);
    if (seq !== next) throw new StoreError(`session ${id}: expected seq ${next}, got ${seq}`);
    if (reservation !== undefined) {
      const gone = await c.query("DELETE FROM pending WHERE id = $1 AND session_id = $2", [reservation, id]);
      if (gone.rowCount !== 1)
        throw new StoreError(
          `session ${id}: reservation ${reservation} is settled already (recovered: its "outcome unknown" record stands)`,
        );
    }
    await c.query("INSERT INTO records (session_id, seq, body) VALUES ($1, $2, $3)", [id, seq, body]);
    return "inserted" as const;
  });
}

type SessionRow = {
  session_id: string;
  secret: string;
  profile: string;
  profile_hash: string;
  user_address: string;
  created_at: string;
};

async function writerHolder(id: string) {
  const rows = await query<{ host: string; pid: number; since: string }>(
    "SELECT host, pid, since FROM writers WHERE session_id = $1",
    [id],
  );
  return rows[0];
}

serveSync({
  async open() {
    await client.connect();
    await client.query("SET synchronous_commit = on");
    // A recorder whose host dies (power, network) closes no socket: the server finds the connection dead, and
    // frees its writer locks, once its keepalive probes go unanswered, about 10 + 3 × 5 s rather than the
    // operating system's default of hours. A killed process's socket is closed by its kernel at once.
    await client.query("SET tcp_keepalives_idle = 10");
    await client.query("SET tcp_keepalives_interval = 5");
    await client.query("SET tcp_keepalives_count = 3");
    await client.query(`SET lock_timeout = ${LOCK_TIMEOUT_MS}`);
    await checkSchema(client, where);
  },
  async close() {
    await client.end().catch(() => undefined);
  },
  async ping() {
    const rows = await query<{ transaction_read_only: string }>("SHOW transaction_read_only");
    if (rows[0]?.transaction_read_only !== "off")
      throw new StoreError("the database takes no writes (read-only)");
  },
  async checkLost() {
    if (lost) throw lost;
  },
  async createSession(row: SessionRow) {
    await tx(async (c) => {
      await c.query(
        `INSERT INTO sessions (session_id, secret, profile, profile_hash, user_address, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session_id) DO NOTHING`,
        [row.session_id, row.secret, row.profile, row.profile_hash, row.user_address, row.created_at],
      );
      const stored = (
        await c.query<SessionRow>("SELECT * FROM sessions WHERE session_id = $1", [row.session_id])
      ).rows[0]!;
      if (!(["secret", "profile", "user_address"] as const).every((k) => stored[k] === row[k]))
        throw new StoreConflictError(`session ${row.session_id} already exists with other parameters`);
    });
  },
  async session(id: string) {
    return (await query<SessionRow>("SELECT * FROM sessions WHERE session_id = $1", [id]))[0];
  },
  append: (id: string, seq: number, body: string) => append(id, seq, body),
  complete: (id: string, seq: number, body: string, reservation: number) =>
    append(id, seq, body, reservation),
  async reserve(id: string, body: string) {
    return tx(async (c) => {
      await lockSession(c, id);
      const rows = await c.query<{ id: string }>(
        "INSERT INTO pending (session_id, fallback) VALUES ($1, $2) RETURNING id",
        [id, body],
      );
      return Number(rows.rows[0]!.id);
    });
  },
  async pending(id: string) {
    const rows = await query<{ id: string; fallback: string }>(
      "SELECT id, fallback FROM pending WHERE session_id = $1 ORDER BY id",
      [id],
    );
    return rows.map((r) => ({ reservation: Number(r.id), fallback: r.fallback }));
  },
  async nextSeq(id: string) {
    return nextSeq(client, id);
  },
  async claimWriter(id: string, since: number) {
    const me = { host: hostname(), pid: process.pid };
    if (!held.has(id)) {
      const [lock] = await query<{ got: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended($2, $1)) AS got",
        [WRITER_LOCK_SEED, id],
      );
      if (!lock!.got) {
        const holder = await writerHolder(id);
        // Another connection of this very process (a second store object): one recorder still, as in SQLite.
        if (holder && holder.host === me.host && holder.pid === me.pid) return;
        throw new StoreConflictError(
          `session ${id} is being recorded by ` +
            (holder
              ? `process ${holder.pid} on host ${holder.host} since ${new Date(Number(holder.since)).toISOString()}`
              : "another connection") +
            ` (store ${where}); a second recorder on one session would lose records, so stop that one first`,
          { details: holder ? { host: holder.host, pid: holder.pid } : {} },
        );
      }
      held.add(id);
    }
    await tx(async (c) => {
      await c.query(
        `INSERT INTO writers (session_id, host, pid, since) VALUES ($1, $2, $3, $4)
         ON CONFLICT (session_id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, since = EXCLUDED.since`,
        [id, me.host, me.pid, since],
      );
    });
  },
  async releaseWriter(id: string) {
    await tx(async (c) => {
      await c.query("DELETE FROM writers WHERE session_id = $1 AND host = $2 AND pid = $3", [
        id,
        hostname(),
        process.pid,
      ]);
    });
    if (held.delete(id))
      await query("SELECT pg_advisory_unlock(hashtextextended($2, $1))", [WRITER_LOCK_SEED, id]);
  },
  async records(id: string) {
    return (
      await query<{ body: string }>("SELECT body FROM records WHERE session_id = $1 ORDER BY seq", [id])
    ).map((r) => r.body);
  },
  async record(id: string, seq: number) {
    return (
      await query<{ body: string }>("SELECT body FROM records WHERE session_id = $1 AND seq = $2", [id, seq])
    )[0]?.body;
  },
  async count(id: string) {
    return (
      await query<{ n: number }>("SELECT COUNT(*)::int AS n FROM records WHERE session_id = $1", [id])
    )[0]!.n;
  },
  async addCheckpoint(id: string, n: number, root: string, final: boolean) {
    await tx(async (c) => {
      await c.query(
        "INSERT INTO checkpoints (session_id, n, root, final) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        [id, n, root, final],
      );
      const stored = await c.query<{ root: string }>(
        "SELECT root FROM checkpoints WHERE session_id = $1 AND n = $2 AND final = $3",
        [id, n, final],
      );
      if (stored.rows[0]!.root !== root)
        throw new StoreConflictError(`checkpoint ${n} of ${id} differs from the stored one`);
    });
  },
  async checkpoints(id: string) {
    return query<{ n: number; root: string; final: boolean }>(
      "SELECT n, root, final FROM checkpoints WHERE session_id = $1 ORDER BY final, n",
      [id],
    );
  },
  async putPromise(promiseId: string, predicate: string, theta: string, paramsHash: string) {
    await tx(async (c) => {
      await c.query(
        "INSERT INTO promises (promise_id, predicate, theta, params_hash) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        [promiseId, predicate, theta, paramsHash],
      );
      const stored = (
        await c.query("SELECT predicate, theta FROM promises WHERE promise_id = $1", [promiseId])
      ).rows[0] as { predicate: string; theta: string };
      if (stored.theta !== theta || stored.predicate !== predicate)
        throw new StoreConflictError(`promise ${promiseId} is already stored with other θ`);
    });
  },
  async promise(promiseId: string) {
    return (
      await query<{ promise_id: string; predicate: string; theta: string; params_hash: string }>(
        "SELECT * FROM promises WHERE promise_id = $1",
        [promiseId],
      )
    )[0];
  },
});
