// The Postgres trace store's schema, as numbered migrations applied in order and recorded in
// schema_migrations. A migration is never edited once released: a change is a new one at the end.
// `vai store migrate` applies what a database lacks (migrate), in one transaction under an advisory lock,
// so two hosts migrating at once apply each migration once; a store opened on a database whose schema is
// behind (or ahead of) this code's refuses (checkSchema) rather than write rows in a layout it does not know.
import type pg from "pg";
import { StoreSchemaError } from "./store-model.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migration lock: pg_advisory_xact_lock(LOCK_NAMESPACE, MIGRATION_LOCK), two int keys ("zkVA", 0). */
const LOCK_NAMESPACE = 0x7a6b5641;
const MIGRATION_LOCK = 0;
/**
 * The seed of a session's writer lock: pg_advisory_lock(hashtextextended(session_id, WRITER_LOCK_SEED)), one
 * 64-bit key, which Postgres keeps apart from two-int keys such as the migration lock's. 64 bits, not
 * hashtext's 32: among 10,000 live sessions two 32-bit keys would collide about once in a hundred times, and
 * the second session's recorder would be refused for nothing.
 */
export const WRITER_LOCK_SEED = 0x7a6b5657;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "trace store: sessions, records, checkpoints, promises, pending, writers; append-only triggers",
    sql: `
CREATE TABLE sessions (
  session_id TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  profile TEXT NOT NULL,
  profile_hash TEXT NOT NULL,
  user_address TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
-- body is TEXT, not JSONB: a retry is compared byte for byte, and JSONB would reorder and respace it.
CREATE TABLE records (
  session_id TEXT NOT NULL REFERENCES sessions(session_id),
  seq INTEGER NOT NULL CHECK (seq >= 0),
  body TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE checkpoints (
  session_id TEXT NOT NULL REFERENCES sessions(session_id),
  n INTEGER NOT NULL,
  root TEXT NOT NULL,
  final BOOLEAN NOT NULL,
  PRIMARY KEY (session_id, n, final)
);
CREATE TABLE promises (
  promise_id TEXT PRIMARY KEY,
  predicate TEXT NOT NULL,
  theta TEXT NOT NULL,
  params_hash TEXT NOT NULL
);
CREATE TABLE pending (
  id BIGSERIAL PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(session_id),
  fallback TEXT NOT NULL
);
CREATE TABLE writers (
  session_id TEXT PRIMARY KEY REFERENCES sessions(session_id),
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  since BIGINT NOT NULL
);
CREATE FUNCTION zkvai_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% are append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER records_no_update BEFORE UPDATE OR DELETE ON records
  FOR EACH ROW EXECUTE FUNCTION zkvai_append_only();
CREATE TRIGGER records_no_truncate BEFORE TRUNCATE ON records
  FOR EACH STATEMENT EXECUTE FUNCTION zkvai_append_only();
CREATE TRIGGER sessions_no_update BEFORE UPDATE ON sessions
  FOR EACH ROW EXECUTE FUNCTION zkvai_append_only();
CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints
  FOR EACH ROW EXECUTE FUNCTION zkvai_append_only();
`,
  },
  {
    version: 2,
    name: "claim watchers: one lease per escrow (failover), each claim's answer recorded (prover/watcher-lease.ts)",
    sql: `
CREATE TABLE watcher_lease (
  escrow TEXT NOT NULL,
  chain_id BIGINT NOT NULL,
  holder TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  token BIGINT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (escrow, chain_id)
);
CREATE TABLE watcher_answers (
  escrow TEXT NOT NULL,
  chain_id BIGINT NOT NULL,
  claim_id TEXT NOT NULL,
  holder TEXT NOT NULL,
  token BIGINT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('sending', 'settled')),
  tx_hash TEXT,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (escrow, chain_id, claim_id)
);
`,
  },
];

/** The version this code reads and writes: the last migration's. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The versions applied to the database, ascending; empty when it has no schema_migrations table. */
export async function appliedVersions(client: pg.ClientBase): Promise<number[]> {
  const table = await client.query<{ t: string | null }>("SELECT to_regclass('schema_migrations') AS t");
  if (!table.rows[0]?.t) return [];
  const rows = await client.query<{ version: number }>(
    "SELECT version FROM schema_migrations ORDER BY version",
  );
  return rows.rows.map((r) => Number(r.version));
}

/** Refuses (StoreSchemaError) a database whose schema is not exactly this code's. */
export async function checkSchema(client: pg.ClientBase, where: string): Promise<void> {
  const applied = appliedVersions(client);
  const versions = await applied;
  const current = versions.length ? versions[versions.length - 1]! : 0;
  if (current === SCHEMA_VERSION) return;
  const message =
    current < SCHEMA_VERSION
      ? `the trace store at ${where} has schema version ${current}, and this vai needs ${SCHEMA_VERSION}: ` +
        `run \`vai store migrate --store <url>\` first`
      : `the trace store at ${where} has schema version ${current}, newer than this vai's ${SCHEMA_VERSION}: upgrade vai`;
  throw new StoreSchemaError(message, { details: { current, required: SCHEMA_VERSION } });
}

/**
 * Applies the migrations the database lacks, in order, in one transaction under an advisory lock; returns
 * those it applied (none when it was up to date).
 */
export async function migrate(client: pg.ClientBase): Promise<Migration[]> {
  await client.query("BEGIN");
  try {
    // Held to the transaction's end: a second migrator waits, then finds the work done.
    await client.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_NAMESPACE, MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const done = new Set(await appliedVersions(client));
    const newest = Math.max(0, ...done);
    if (newest > SCHEMA_VERSION)
      throw new StoreSchemaError(
        `the database has schema version ${newest}, newer than this vai's ${SCHEMA_VERSION}: upgrade vai`,
      );
    const todo = MIGRATIONS.filter((m) => !done.has(m.version));
    for (const m of todo) {
      await client.query(m.sql);
      await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        m.version,
        m.name,
      ]);
    }
    await client.query("COMMIT");
    return todo;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}
