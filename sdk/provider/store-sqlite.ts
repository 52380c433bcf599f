// The provider's trace store on SQLite, append-only (P7): the default, for a file path (store.ts opens it).
// Triggers refuse UPDATE and DELETE on records, so even code that bypasses this
// class cannot rewrite history; a second write of a seq must be byte-identical
// (idempotent retry) or it is refused. WAL with synchronous=FULL makes an
// acknowledged append survive a crash.
// Every write is an IMMEDIATE transaction: it takes the write lock when it begins, waiting for
// another connection's (busy timeout), and a lock held past that is retried a bounded number
// of times. A DEFERRED one that reads first would get SQLITE_BUSY on upgrade, without waiting.
// Any number of connections, in any processes of one host, may share a file. Before a record
// is acknowledged the path must still name the file opened: a store unlinked or replaced under
// a running session would take records that no later process can read back.
// Guard mode reserves a call's record before its tool runs (reserve): a `pending` row holding the
// record to keep if the real one never comes (an "outcome unknown" error record), so a full disk,
// a held lock or a lost file refuses the call before the tool runs. complete() stores the real
// record at the next seq and deletes the row in one transaction; settlePending() (recovery) stores
// the fallbacks. Pending rows are reservations, not records: they take no seq (other records go on
// being appended while a tool runs), they are deleted, and no head or root ever includes them.
import { mkdirSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { canonicalJson } from "../core/canonical.js";
import { parseProfile, profileHash } from "../core/profile.js";
import { parseRecord, recordBytes, type TraceRecord } from "../core/records.js";
import { alive, retryBusy, SCHEMA } from "./store-sqlite-support.js";
import {
  BUSY_TIMEOUT_MS,
  StoreConflictError,
  StoreError,
  type StoredCheckpoint,
  type StoredPromise,
  type NewSession,
  type StoredSession,
  type TraceStoreApi,
} from "./store-model.js";

export class SqliteTraceStore implements TraceStoreApi {
  // Every tool call goes through append, so its statements are prepared once, and the next seq
  // comes from the primary-key index (MAX) rather than a COUNT that scans the session: O(log n),
  // not O(n), per record. Contiguity makes the two equal; close() still counts (count()).
  private readonly appendTx: Database.Transaction<
    (id: string, seq: number, body: string, reservation?: number) => "inserted" | "duplicate"
  >;
  /** Set once the path stopped naming the file opened; every later write is refused with it. */
  private lost: StoreError | undefined;

  private constructor(
    private readonly db: Database.Database,
    /** The absolute path opened, or undefined for an in-memory store. */
    readonly path: string | undefined,
    /** The file's identity at open: the path must keep naming this file. */
    private readonly identity: { dev: number; ino: number } | undefined,
  ) {
    this.appendTx = db.transaction((id: string, seq: number, body: string, reservation?: number) => {
      if (!this.sql("SELECT 1 FROM sessions WHERE session_id = ?").get(id)) {
        throw new StoreError(`unknown session ${id}; create it before appending`);
      }
      const existing = this.sql("SELECT body FROM records WHERE session_id = ? AND seq = ?").get(id, seq) as
        { body: string } | undefined;
      if (existing) {
        if (existing.body === body) return "duplicate" as const;
        throw new StoreConflictError(
          `session ${id} seq ${seq} is already stored with other content; records are never overwritten`,
        );
      }
      const next = this.nextSeq(id);
      if (seq !== next) throw new StoreError(`session ${id}: expected seq ${next}, got ${seq}`);
      if (
        reservation !== undefined &&
        this.sql("DELETE FROM pending WHERE id = ? AND session_id = ?").run(reservation, id).changes !== 1
      )
        throw new StoreError(
          `session ${id}: reservation ${reservation} is settled already (recovered: its "outcome unknown" record stands)`,
        );
      this.sql("INSERT INTO records (session_id, seq, body) VALUES (?, ?, ?)").run(id, seq, body);
      return "inserted" as const;
    });
  }

  static open(path: string): SqliteTraceStore {
    const memory = path === ":memory:" || path === "";
    const absolute = memory ? undefined : resolve(path);
    let db: Database.Database;
    try {
      // A store's folder (`.vai/` by default) is made on first use, as a fresh checkout has none.
      if (absolute) mkdirSync(dirname(absolute), { recursive: true });
      db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = FULL");
      db.pragma("foreign_keys = ON");
      retryBusy(() => db.exec(SCHEMA), `trace store ${path}`);
    } catch (e) {
      throw new StoreError(`cannot open trace store at ${path}: ${(e as Error).message}`);
    }
    let identity: { dev: number; ino: number } | undefined;
    if (absolute) {
      const st = statSync(absolute);
      identity = { dev: st.dev, ino: st.ino };
    }
    return new SqliteTraceStore(db, absolute, identity);
  }

  /**
   * Throws a StoreError unless the path still names the file this store opened: unlinked,
   * renamed away or replaced, the records written here could never be read back from it.
   */
  checkFile(): void {
    if (this.lost) throw this.lost;
    if (!this.path || !this.identity) return;
    let st: { dev: number; ino: number } | undefined;
    try {
      st = statSync(this.path);
    } catch {
      st = undefined;
    }
    if (st && st.dev === this.identity.dev && st.ino === this.identity.ino) return;
    this.lost = new StoreError(
      `trace store ${this.path} was ${st ? "replaced by another file" : "unlinked or moved"} after it was opened; ` +
        "records written now would be lost when this process exits, so none is acknowledged (restore the file and recover the session)",
    );
    throw this.lost;
  }

  /** fn in an IMMEDIATE transaction, retried while another connection holds the write lock. */
  private write<T>(fn: () => T): T {
    return retryBusy(() => this.db.transaction(fn).immediate(), `trace store ${this.path ?? ":memory:"}`);
  }

  close(): void {
    this.db.close();
  }

  /**
   * Throws a StoreError unless the store can take a write now: open, writable, and its write
   * lock obtainable. It writes nothing, so it cannot tell a full disk: guard mode reserves each
   * call's record instead (reserve).
   */
  ping(): void {
    try {
      if (!this.db.open) throw new Error("the database connection is closed");
      if (this.db.readonly) throw new Error("the database is open read-only");
      this.checkFile();
      this.db.exec("BEGIN IMMEDIATE");
      this.db.exec("ROLLBACK");
    } catch (e) {
      throw new StoreError(`trace store unavailable: ${(e as Error).message}`, { cause: e });
    }
  }

  createSession(s: NewSession): StoredSession {
    const profile = parseProfile(s.profile);
    const row = {
      session_id: s.sessionId.toLowerCase(),
      secret: s.secret.toString(),
      profile: canonicalJson(profile),
      profile_hash: profileHash(profile).toString(),
      user: s.user.toLowerCase(),
      created_at: s.createdAt ?? Date.now(),
    };
    this.write(() => {
      const existing = this.db.prepare("SELECT * FROM sessions WHERE session_id = ?").get(row.session_id) as
        typeof row | undefined;
      if (existing) {
        const same = (["secret", "profile", "user"] as const).every((k) => existing[k] === row[k]);
        if (!same)
          throw new StoreConflictError(`session ${row.session_id} already exists with other parameters`);
      } else {
        this.db
          .prepare(
            "INSERT INTO sessions VALUES (@session_id, @secret, @profile, @profile_hash, @user, @created_at)",
          )
          .run(row);
      }
    });
    this.checkFile();
    return this.session(s.sessionId)!;
  }

  session(sessionId: string): StoredSession | undefined {
    const row = this.db
      .prepare("SELECT * FROM sessions WHERE session_id = ?")
      .get(sessionId.toLowerCase()) as Record<string, string | number> | undefined;
    if (!row) return undefined;
    return {
      sessionId: row.session_id as `0x${string}`,
      secret: BigInt(row.secret),
      profile: parseProfile(JSON.parse(row.profile as string)),
      profileHash: BigInt(row.profile_hash),
      user: row.user as `0x${string}`,
      createdAt: row.created_at as number,
    };
  }

  /**
   * Appends the record at its seq, which must be the next one. Writing the same
   * bytes again is an idempotent no-op ("duplicate"); other bytes are refused. A record
   * over MAX_RECORD_BYTES is refused (RecordSizeError); so is any record once the path
   * no longer names the file opened (checkFile), even after it was written to that file.
   */
  append(sessionId: string, record: TraceRecord): "inserted" | "duplicate" {
    const id = sessionId.toLowerCase();
    const body = recordBytes(parseRecord(record));
    this.checkFile();
    const outcome = retryBusy(
      () => this.appendTx.immediate(id, record.seq, body),
      `trace store ${this.path ?? ":memory:"}`,
    );
    this.checkFile();
    return outcome;
  }

  /**
   * Reserves a record for a call about to run (guard mode, P8): a write before the tool runs, so a
   * full disk, a held lock or a lost file refuses the call then. `fallback` is the record kept if
   * complete() never comes (settlePending); it is checked like any record, and its seq is replaced
   * by the one it is stored at. Returns the reservation's id.
   */
  reserve(sessionId: string, fallback: TraceRecord): number {
    const id = sessionId.toLowerCase();
    const body = recordBytes(parseRecord(fallback));
    this.checkFile();
    const reservation = retryBusy(
      () =>
        this.db
          .transaction(() => {
            if (!this.sql("SELECT 1 FROM sessions WHERE session_id = ?").get(id))
              throw new StoreError(`unknown session ${id}; create it before appending`);
            return Number(
              this.sql("INSERT INTO pending (session_id, fallback) VALUES (?, ?)").run(id, body)
                .lastInsertRowid,
            );
          })
          .immediate(),
      `trace store ${this.path ?? ":memory:"}`,
    );
    this.checkFile();
    return reservation;
  }

  /** Stores a reserved call's record at its seq (the next one) and drops the reservation, in one transaction. */
  complete(sessionId: string, record: TraceRecord, reservation: number): "inserted" | "duplicate" {
    const id = sessionId.toLowerCase();
    const body = recordBytes(parseRecord(record));
    this.checkFile();
    const outcome = retryBusy(
      () => this.appendTx.immediate(id, record.seq, body, reservation),
      `trace store ${this.path ?? ":memory:"}`,
    );
    this.checkFile();
    return outcome;
  }

  /** The session's reservations whose record is not stored, oldest first. */
  pending(sessionId: string): { reservation: number; fallback: TraceRecord }[] {
    const rows = this.sql("SELECT id, fallback FROM pending WHERE session_id = ? ORDER BY id").all(
      sessionId.toLowerCase(),
    ) as { id: number; fallback: string }[];
    return rows.map((r) => ({ reservation: r.id, fallback: parseRecord(JSON.parse(r.fallback)) }));
  }

  /**
   * Stores the fallback of every reservation left by a process that stopped while its tool ran (an
   * "outcome unknown" error record) at the next seqs, oldest first, for Session.recover; returns them.
   */
  settlePending(sessionId: string): TraceRecord[] {
    return this.pending(sessionId).map(({ reservation, fallback }) => {
      const record = parseRecord({ ...fallback, seq: this.nextSeq(sessionId.toLowerCase()) });
      this.complete(sessionId, record, reservation);
      return record;
    });
  }

  /**
   * Marks this process as the one recording sessionId, refusing (StoreConflictError) while
   * another live process on this host holds it: two recorders on one session would both
   * write its next seq, and one of them would lose a record of a tool that already ran.
   * A holder that exited without releasing (a crash) is taken over. Sessions differ: any
   * number of processes may record different sessions in one file.
   */
  claimWriter(sessionId: string): void {
    const id = sessionId.toLowerCase();
    const me = { host: hostname(), pid: process.pid };
    this.write(() => {
      const holder = this.sql("SELECT host, pid, since FROM writers WHERE session_id = ?").get(id) as
        { host: string; pid: number; since: number } | undefined;
      if (holder && holder.host === me.host && holder.pid !== me.pid && alive(holder.pid)) {
        throw new StoreConflictError(
          `session ${id} is being recorded by process ${holder.pid} since ${new Date(holder.since).toISOString()} ` +
            `(store ${this.path ?? ":memory:"}); a second recorder on one session would lose records, so stop that one first`,
        );
      }
      // Another host's holder cannot be alive: SQLite's WAL does not work across hosts.
      this.sql("INSERT OR REPLACE INTO writers (session_id, host, pid, since) VALUES (?, ?, ?, ?)").run(
        id,
        me.host,
        me.pid,
        Date.now(),
      );
    });
  }

  /** Gives up this process's claim on sessionId (the session closed). */
  releaseWriter(sessionId: string): void {
    const id = sessionId.toLowerCase();
    this.write(() =>
      this.sql("DELETE FROM writers WHERE session_id = ? AND host = ? AND pid = ?").run(
        id,
        hostname(),
        process.pid,
      ),
    );
  }

  private nextSeq(id: string): number {
    return (
      this.sql("SELECT COALESCE(MAX(seq) + 1, 0) AS next FROM records WHERE session_id = ?").get(id) as {
        next: number;
      }
    ).next;
  }

  private readonly statements = new Map<string, Database.Statement>();
  private sql(source: string): Database.Statement {
    let statement = this.statements.get(source);
    if (!statement) this.statements.set(source, (statement = this.db.prepare(source)));
    return statement;
  }

  records(sessionId: string): TraceRecord[] {
    const rows = this.db
      .prepare("SELECT body FROM records WHERE session_id = ? ORDER BY seq")
      .all(sessionId.toLowerCase()) as { body: string }[];
    return rows.map((r) => parseRecord(JSON.parse(r.body)));
  }

  /** The record at seq, or undefined when none is stored there. */
  record(sessionId: string, seq: number): TraceRecord | undefined {
    const row = this.sql("SELECT body FROM records WHERE session_id = ? AND seq = ?").get(
      sessionId.toLowerCase(),
      seq,
    ) as { body: string } | undefined;
    return row && parseRecord(JSON.parse(row.body));
  }

  count(sessionId: string): number {
    const row = this.db
      .prepare("SELECT COUNT(*) AS n FROM records WHERE session_id = ?")
      .get(sessionId.toLowerCase()) as { n: number };
    return row.n;
  }

  addCheckpoint(sessionId: string, c: StoredCheckpoint): void {
    const id = sessionId.toLowerCase();
    this.write(() => {
      const existing = this.db
        .prepare("SELECT root FROM checkpoints WHERE session_id = ? AND n = ? AND final = ?")
        .get(id, c.n, c.final ? 1 : 0) as { root: string } | undefined;
      if (existing) {
        if (BigInt(existing.root) !== c.root)
          throw new StoreConflictError(`checkpoint ${c.n} of ${id} differs from the stored one`);
        return;
      }
      this.db
        .prepare("INSERT INTO checkpoints VALUES (?, ?, ?, ?)")
        .run(id, c.n, c.root.toString(), c.final ? 1 : 0);
    });
  }

  checkpoints(sessionId: string): StoredCheckpoint[] {
    const rows = this.db
      .prepare("SELECT n, root, final FROM checkpoints WHERE session_id = ? ORDER BY final, n")
      .all(sessionId.toLowerCase()) as { n: number; root: string; final: number }[];
    return rows.map((r) => ({ n: r.n, root: BigInt(r.root), final: r.final === 1 }));
  }

  putPromise(p: StoredPromise): void {
    const row = [p.promiseId.toString(), p.predicate, canonicalJson(p.theta), p.paramsHash.toString()];
    this.write(() => {
      const existing = this.db.prepare("SELECT * FROM promises WHERE promise_id = ?").get(row[0]) as
        Record<string, string> | undefined;
      if (existing) {
        if (existing.theta !== row[2] || existing.predicate !== row[1]) {
          throw new StoreConflictError(`promise ${row[0]} is already stored with other θ`);
        }
        return;
      }
      this.db.prepare("INSERT INTO promises VALUES (?, ?, ?, ?)").run(...row);
    });
  }

  promise(promiseId: bigint): StoredPromise | undefined {
    const row = this.db.prepare("SELECT * FROM promises WHERE promise_id = ?").get(promiseId.toString()) as
      Record<string, string> | undefined;
    if (!row) return undefined;
    return {
      promiseId: BigInt(row.promise_id),
      predicate: row.predicate,
      theta: JSON.parse(row.theta),
      paramsHash: BigInt(row.params_hash),
    };
  }
}
