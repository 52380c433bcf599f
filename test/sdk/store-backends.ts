// The two trace stores as the contract tests see them (store.test.ts runs every case against each): a
// factory of fresh, empty stores, a second connection to the same one, and a raw write that bypasses the
// class (to show the database itself refuses rewriting history). Postgres is a private cluster
// (scripts/lib/private-postgres.ts) started once per file, with one new database per store.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { startPostgres, type PrivatePostgres } from "../../scripts/lib/private-postgres.js";
import { migrateStore, TraceStore } from "../../sdk/provider/store.js";

export interface FreshStore {
  store: TraceStore;
  /** Another connection to the same store (another TraceStore object). */
  reopen(): TraceStore;
  /** Runs SQL on the store's database outside TraceStore; rejects with the database's error. */
  raw(sql: string): Promise<void>;
  /** The location TraceStore.open takes. */
  location: string;
}

export interface StoreBackend {
  name: "sqlite" | "postgres";
  setup(): Promise<void>;
  fresh(): Promise<FreshStore>;
  teardown(): Promise<void>;
}

/** Stores a backend opened, closed at teardown (a Postgres store holds a connection and a worker). */
const opened: TraceStore[] = [];
const track = (store: TraceStore) => (opened.push(store), store);
const closeAll = () => {
  for (const store of opened.splice(0))
    try {
      store.close();
    } catch {
      /* closed already */
    }
};

export const sqliteBackend: StoreBackend = {
  name: "sqlite",
  async setup() {},
  async fresh() {
    const location = join(mkdtempSync(join(tmpdir(), "zkvai-store-")), "t.sqlite");
    return {
      location,
      store: track(TraceStore.open(location)),
      reopen: () => track(TraceStore.open(location)),
      async raw(sql) {
        const db = new Database(location);
        try {
          db.prepare(sql).run();
        } finally {
          db.close();
        }
      },
    };
  },
  async teardown() {
    closeAll();
  },
};

let cluster: PrivatePostgres | undefined;
let databases = 0;

export const postgresBackend: StoreBackend = {
  name: "postgres",
  async setup() {
    cluster = await startPostgres();
  },
  async fresh() {
    const location = await cluster!.createDatabase(`store_${++databases}`);
    await migrateStore(location);
    return {
      location,
      store: track(TraceStore.open(location)),
      reopen: () => track(TraceStore.open(location)),
      async raw(sql) {
        const client = new pg.Client({ connectionString: location });
        await client.connect();
        try {
          await client.query(sql);
        } finally {
          await client.end();
        }
      },
    };
  },
  async teardown() {
    closeAll();
    await cluster?.stop();
  },
};

export const BACKENDS = [sqliteBackend, postgresBackend];
