// The SQLite trace store's schema and its lock handling (store-sqlite.ts is the store): the tables and
// append-only triggers made on open, the bounded retry of a write that found the database locked, and the
// liveness check of a writer claim's holder.
import { BUSY_TIMEOUT_MS, StoreError, WRITE_ATTEMPTS } from "./store-model.js";

const isBusy = (e: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((e as { code?: unknown })?.code ?? ""));

export const SCHEMA = `
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
CREATE TABLE IF NOT EXISTS pending (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(session_id),
  fallback TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS writers (
  session_id TEXT PRIMARY KEY REFERENCES sessions(session_id),
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  since INTEGER NOT NULL
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

/**
 * fn, retried while SQLite reports the database locked: each attempt already waited up to
 * BUSY_TIMEOUT_MS for the lock, so WRITE_ATTEMPTS bounds the whole wait.
 */
export function retryBusy<T>(fn: () => T, what: string): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return fn();
    } catch (e) {
      if (!isBusy(e)) throw e;
      if (attempt >= WRITE_ATTEMPTS) {
        throw new StoreError(
          `${what}: another connection held the write lock through ${attempt} attempts of ${BUSY_TIMEOUT_MS} ms: ${(e as Error).message}`,
          { cause: e },
        );
      }
    }
  }
}

/** Whether a process with this pid exists on this host (EPERM: it exists, under another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
