// The provider's trace store: one synchronous interface, two databases under it.
// A file path (the default, `.vai/store.sqlite`) opens SQLite (store-sqlite.ts): one host, any number of
// processes. A postgres:// URL opens Postgres (store-postgres.ts): recorders on several hosts share one
// database, and one writer per live session holds across them. Both keep the same promises (P7): records
// are append-only and contiguous per session, a seq is never overwritten, and a write is acknowledged
// only once it is durable. Callers (Session, the watcher, the prover, the CLI) are synchronous, so the
// interface is too: the Postgres store answers each call from a worker thread while the caller waits.
import { isPostgresUrl, PostgresTraceStore } from "./store-postgres.js";
import { SqliteTraceStore } from "./store-sqlite.js";
import type { TraceStoreApi } from "./store-model.js";

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

/**
 * The store every part of zkVAI takes (store-model.ts has its methods and what each promises). The name is both
 * this type and the value below, so `TraceStore.open(…)` reads as it did when the store was one SQLite class.
 */
export interface TraceStore extends TraceStoreApi {}

/** Opens the store at `location`: a postgres:// URL, or a SQLite file path (":memory:" for a throwaway one). */
export const TraceStore = {
  open(location: string): TraceStore {
    return isPostgresUrl(location) ? PostgresTraceStore.open(location) : SqliteTraceStore.open(location);
  },
};
