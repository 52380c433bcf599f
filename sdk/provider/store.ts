// The provider's trace store: one synchronous interface, two databases under it.
// A file path (the default, `.vai/store.sqlite`) opens SQLite (store-sqlite.ts): one host, any number of
// processes. A postgres:// URL opens Postgres (store-postgres.ts): recorders on several hosts share one
// database, and one writer per live session holds across them. Both keep the same promises (P7): records
// are append-only and contiguous per session, a seq is never overwritten, and a write is acknowledged
// only once it is durable. Callers (Session, the watcher, the prover, the CLI) are synchronous, so the
// interface is too: the Postgres store answers each call from a worker thread while the caller waits.
import type { TraceRecord } from "../core/records.js";
import { isPostgresUrl, PostgresTraceStore } from "./store-postgres.js";
import { SqliteTraceStore } from "./store-sqlite.js";
import type { NewSession, StoredCheckpoint, StoredPromise, StoredSession } from "./store-model.js";

export {
  BUSY_TIMEOUT_MS,
  StoreConflictError,
  StoreError,
  StoreSchemaError,
  WRITE_ATTEMPTS,
  type NewSession,
  type StoredCheckpoint,
  type StoredPromise,
  type StoredSession,
} from "./store-model.js";
export { SqliteTraceStore } from "./store-sqlite.js";
export { isPostgresUrl, PostgresTraceStore } from "./store-postgres.js";
export { migrateStore, type MigrationReport } from "./store-migrate.js";

export interface TraceStore {
  close(): void;
  /** Throws a StoreError unless the store can take a write now (guard mode asks before each call). */
  ping(): void;
  /** Throws a StoreError once what was opened can no longer keep a write (SQLite: the path names another file). */
  checkFile(): void;

  /** Stores a session's parameters; the same again is a no-op, other parameters a StoreConflictError. */
  createSession(s: NewSession): StoredSession;
  session(sessionId: string): StoredSession | undefined;

  /**
   * Appends the record at its seq, which must be the next one. The same bytes again are an idempotent
   * retry ("duplicate"); other bytes at a stored seq are a StoreConflictError.
   */
  append(sessionId: string, record: TraceRecord): "inserted" | "duplicate";
  /** Reserves a record for a call about to run (guard mode); `fallback` is kept if complete() never comes. */
  reserve(sessionId: string, fallback: TraceRecord): number;
  /** Stores a reserved call's record at the next seq and drops its reservation, in one transaction. */
  complete(sessionId: string, record: TraceRecord, reservation: number): "inserted" | "duplicate";
  /** The session's reservations whose record is not stored, oldest first. */
  pending(sessionId: string): { reservation: number; fallback: TraceRecord }[];
  /** Stores every open reservation's fallback at the next seqs, oldest first (recovery); returns them. */
  settlePending(sessionId: string): TraceRecord[];

  /** Marks this process as the session's one recorder; a StoreConflictError names a live holder. */
  claimWriter(sessionId: string): void;
  /** Gives up this process's claim on the session (it closed). */
  releaseWriter(sessionId: string): void;

  records(sessionId: string): TraceRecord[];
  record(sessionId: string, seq: number): TraceRecord | undefined;
  count(sessionId: string): number;

  addCheckpoint(sessionId: string, c: StoredCheckpoint): void;
  checkpoints(sessionId: string): StoredCheckpoint[];

  putPromise(p: StoredPromise): void;
  promise(promiseId: bigint): StoredPromise | undefined;
}

/** Opens the store at `location`: a postgres:// URL, or a SQLite file path (":memory:" for a throwaway one). */
export const TraceStore = {
  open(location: string): TraceStore {
    return isPostgresUrl(location) ? PostgresTraceStore.open(location) : SqliteTraceStore.open(location);
  },
};
