// The provider's trace store: SQLite, append-only (P7).
// Triggers refuse UPDATE and DELETE on records, so even code that bypasses this
// class cannot rewrite history; a second write of a seq must be byte-identical
// (idempotent retry) or it is refused. WAL with synchronous=FULL makes an
// acknowledged append survive a crash.
import Database from "better-sqlite3";
import { canonicalJson } from "./canonical.js";
import { parseProfile, profileHash, type EncodingProfile } from "./profile.js";
import { parseRecord, recordBytes, type TraceRecord } from "./records.js";

export class StoreConflictError extends Error {
  override name = "StoreConflictError";
}
export class StoreError extends Error {
  override name = "StoreError";
}

export interface StoredSession {
  sessionId: `0x${string}`;
  secret: bigint;
  profile: EncodingProfile;
  profileHash: bigint;
  user: `0x${string}`;
  createdAt: number;
}

export interface StoredCheckpoint {
  n: number;
  root: bigint;
  final: boolean;
}

export interface StoredPromise {
  promiseId: bigint;
  predicate: string;
  theta: unknown;
  paramsHash: bigint;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  profile TEXT NOT NULL,
  profile_hash TEXT NOT NULL,
  user TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
  session_id TEXT NOT NULL REFERENCES sessions(session_id),
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS checkpoints (
  session_id TEXT NOT NULL REFERENCES sessions(session_id),
  n INTEGER NOT NULL,
  root TEXT NOT NULL,
  final INTEGER NOT NULL,
  PRIMARY KEY (session_id, n, final)
);
CREATE TABLE IF NOT EXISTS promises (
  promise_id TEXT PRIMARY KEY,
  predicate TEXT NOT NULL,
  theta TEXT NOT NULL,
  params_hash TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS records_no_update BEFORE UPDATE ON records
  BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TRIGGER IF NOT EXISTS records_no_delete BEFORE DELETE ON records
  BEGIN SELECT RAISE(ABORT, 'records are append-only'); END;
CREATE TRIGGER IF NOT EXISTS sessions_no_update BEFORE UPDATE ON sessions
  BEGIN SELECT RAISE(ABORT, 'sessions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS checkpoints_no_update BEFORE UPDATE ON checkpoints
  BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
`;

export class TraceStore {
  // Every tool call goes through append, so its statements are prepared once, and the next seq
  // comes from the primary-key index (MAX) rather than a COUNT that scans the session: O(log n),
  // not O(n), per record. Contiguity makes the two equal; close() still counts (TraceStore.count).
  private readonly appendTx: (id: string, seq: number, body: string) => "inserted" | "duplicate";

  private constructor(private readonly db: Database.Database) {
    this.appendTx = db.transaction((id: string, seq: number, body: string) => {
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
      const { next } = this.sql(
        "SELECT COALESCE(MAX(seq) + 1, 0) AS next FROM records WHERE session_id = ?",
      ).get(id) as { next: number };
      if (seq !== next) throw new StoreError(`session ${id}: expected seq ${next}, got ${seq}`);
      this.sql("INSERT INTO records (session_id, seq, body) VALUES (?, ?, ?)").run(id, seq, body);
      return "inserted" as const;
    });
  }

  static open(path: string): TraceStore {
    let db: Database.Database;
    try {
      db = new Database(path);
    } catch (e) {
      throw new StoreError(`cannot open trace store at ${path}: ${(e as Error).message}`);
    }
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.exec(SCHEMA);
    return new TraceStore(db);
  }

  close(): void {
    this.db.close();
  }

  /**
   * Throws a StoreError unless the store can take a write now: open, writable, and its write
   * lock obtainable. Guard mode calls it before running a tool (P8); it writes nothing.
   */
  ping(): void {
    try {
      if (!this.db.open) throw new Error("the database connection is closed");
      if (this.db.readonly) throw new Error("the database is open read-only");
      this.db.exec("BEGIN IMMEDIATE");
      this.db.exec("ROLLBACK");
    } catch (e) {
      throw new StoreError(`trace store unavailable: ${(e as Error).message}`);
    }
  }

  createSession(s: Omit<StoredSession, "profileHash" | "createdAt"> & { createdAt?: number }): StoredSession {
    const profile = parseProfile(s.profile);
    const row = {
      session_id: s.sessionId.toLowerCase(),
      secret: s.secret.toString(),
      profile: canonicalJson(profile),
      profile_hash: profileHash(profile).toString(),
      user: s.user.toLowerCase(),
      created_at: s.createdAt ?? Date.now(),
    };
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
   * bytes again is an idempotent no-op ("duplicate"); other bytes are refused.
   */
  append(sessionId: string, record: TraceRecord): "inserted" | "duplicate" {
    const id = sessionId.toLowerCase();
    const body = recordBytes(parseRecord(record));
    return this.appendTx(id, record.seq, body);
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
  }

  checkpoints(sessionId: string): StoredCheckpoint[] {
    const rows = this.db
      .prepare("SELECT n, root, final FROM checkpoints WHERE session_id = ? ORDER BY final, n")
      .all(sessionId.toLowerCase()) as { n: number; root: string; final: number }[];
    return rows.map((r) => ({ n: r.n, root: BigInt(r.root), final: r.final === 1 }));
  }

  putPromise(p: StoredPromise): void {
    const row = [p.promiseId.toString(), p.predicate, canonicalJson(p.theta), p.paramsHash.toString()];
    const existing = this.db.prepare("SELECT * FROM promises WHERE promise_id = ?").get(row[0]) as
      Record<string, string> | undefined;
    if (existing) {
      if (existing.theta !== row[2] || existing.predicate !== row[1]) {
        throw new StoreConflictError(`promise ${row[0]} is already stored with other θ`);
      }
      return;
    }
    this.db.prepare("INSERT INTO promises VALUES (?, ?, ?, ?)").run(...row);
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
