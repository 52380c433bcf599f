// `vai store migrate`: brings a store's schema up to this version. A Postgres store's schema is versioned
// (store-postgres-schema.ts) and only ever changed here, never by opening the store; a SQLite store makes
// its schema when it is opened, as before, so migrating one is opening it.
import pg from "pg";
import { isPostgresUrl, redactUrl } from "./store-postgres.js";
import { migrate, SCHEMA_VERSION } from "./store-postgres-schema.js";
import { SqliteTraceStore } from "./store-sqlite.js";
import { StoreError } from "./store-model.js";

export interface MigrationReport {
  kind: "postgres" | "sqlite";
  /** The location, a URL's password redacted. */
  location: string;
  /** The migrations applied now, in order (none when the schema was up to date, and always none for SQLite). */
  applied: { version: number; name: string }[];
  /** The schema version the store is at now. */
  version: number;
}

export async function migrateStore(location: string): Promise<MigrationReport> {
  if (!isPostgresUrl(location)) {
    SqliteTraceStore.open(location).close();
    return { kind: "sqlite", location, applied: [], version: 1 };
  }
  const where = redactUrl(location);
  const client = new pg.Client({ connectionString: location });
  try {
    await client.connect();
  } catch (e) {
    throw new StoreError(`cannot connect to the trace store at ${where}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  try {
    const applied = await migrate(client);
    return {
      kind: "postgres",
      location: where,
      applied: applied.map(({ version, name }) => ({ version, name })),
      version: SCHEMA_VERSION,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}
