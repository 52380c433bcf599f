// The Postgres store in one process (issue 40): its versioned schema (a store behind or ahead of this code is
// refused, naming `vai store migrate`; migrations apply once, in order, under an advisory lock, recorded in
// schema_migrations), a connection the server ended (lost for good, its writer lock with it), the private
// cluster's binaries, the CLI's store setting and `vai store migrate`. The store's contract runs in
// store.test.ts on both stores, its writer lock across processes in store-postgres-writers.test.ts.
import { existsSync } from "node:fs";
import pg from "pg";
import { keccak256, toHex, type Hex } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresBin, startPostgres, type PrivatePostgres } from "../../scripts/lib/private-postgres.js";
import { migrateStore, StoreError, StoreSchemaError, TraceStore } from "../../sdk/provider/store.js";
import { InputError } from "../../bin/cli/common.js";
import { loadConfig } from "../../bin/cli/config.js";
import { openStore } from "../../bin/cli/connect.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../../sdk/provider/store-postgres-schema.js";
import { vaiInProcess } from "../cli/cli-helpers.js";

let cluster: PrivatePostgres;
let databases = 0;
const fresh = () => cluster.createDatabase(`mig_${++databases}`);
const USER = `0x${"11".repeat(20)}` as const;
const id = (label: string): Hex => keccak256(toHex(`${label}:${process.pid}:${Date.now()}`));
const stores: TraceStore[] = [];
const open = (url: string) => {
  const store = TraceStore.open(url);
  stores.push(store);
  return store;
};
beforeAll(async () => {
  cluster = await startPostgres();
});
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
afterAll(() => cluster?.stop());

describe("schema migrations", () => {
  it("refuse a store whose schema is behind, apply once in order, and record each version", async () => {
    const url = await fresh();
    expect(() => TraceStore.open(url)).toThrow(StoreSchemaError);
    expect(() => TraceStore.open(url)).toThrow(/vai store migrate/);
    // Two migrators at once: the advisory lock lets one apply, and the other finds it done.
    const [a, b] = await Promise.all([migrateStore(url), migrateStore(url)]);
    expect([...a.applied, ...b.applied].map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect((await migrateStore(url)).applied).toEqual([]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = (await client.query("SELECT version FROM schema_migrations ORDER BY version")).rows;
    await client.end();
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(open(url).session(id("none"))).toBeUndefined();
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.at(-1)!.version);
  });

  it("refuse a store whose schema is newer than this code", async () => {
    const url = await fresh();
    await migrateStore(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'from the future')", [
      SCHEMA_VERSION + 1,
    ]);
    await client.end();
    expect(() => TraceStore.open(url)).toThrow(/newer than this vai/);
  });
});

describe("a store whose connection was ended by the server", () => {
  it("refuses every later call instead of reconnecting without its writer lock, which another store can take", async () => {
    const url = await fresh();
    await migrateStore(url);
    const store = open(url);
    const sessionId = id("dropped");
    store.createSession({ sessionId, secret: 1n, profile: { version: 1, tools: { read: {} } }, user: USER });
    store.claimWriter(sessionId);
    store.append(sessionId, { kind: "call", seq: 0, ts: 0, tool: "read", args: {} });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Every store connection of this database but admin's own: the server ends it, as a restart or a network
    // failure would.
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    await admin.end();
    await new Promise((r) => setTimeout(r, 100));
    const next = { kind: "call" as const, seq: 1, ts: 0, tool: "read", args: {} };
    expect(() => store.append(sessionId, next)).toThrow(StoreError);
    expect(() => store.checkFile()).toThrow(/connection was lost/);
    expect(() => store.ping()).toThrow(StoreError);
    // Its lock went with its connection: another store takes the session, and finds the acknowledged record.
    const other = open(url);
    other.claimWriter(sessionId);
    expect(other.count(sessionId)).toBe(1);
  });
});

describe("the private cluster's binaries", () => {
  it("come from Debian's /usr/lib/postgresql/<version>/bin when initdb is not on PATH", () => {
    const bin = postgresBin({ PATH: "/nonexistent" });
    if (existsSync("/usr/lib/postgresql")) expect(bin).toMatch(/^\/usr\/lib\/postgresql\/\d+\/bin$/);
    else expect(bin).toBeUndefined();
  });
});

describe("the CLI's store", () => {
  it("refuses a Postgres store whose schema is behind with an InputError (exit 2) that says to migrate", async () => {
    const url = await fresh();
    const config = loadConfig({ store: url }, {});
    expect(() => openStore(config, false)).toThrow(InputError);
    expect(() => openStore(config, false)).toThrow(/vai store migrate/);
    await migrateStore(url);
    const store = openStore(config, false);
    stores.push(store!);
    expect(store!.session(id("none"))).toBeUndefined();
  });
});

describe("vai store migrate", () => {
  it("applies the migrations to the configured Postgres store, then finds it up to date", async () => {
    const url = await fresh();
    const first = await vaiInProcess(["store", "migrate", "--store", url]);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toContain(
      `applied ${MIGRATIONS.length} migration(s), now at schema version ${SCHEMA_VERSION}`,
    );
    const again = await vaiInProcess(["store", "migrate"], { VAI_STORE: url });
    expect(again.code).toBe(0);
    expect(again.out).toContain("up to date; nothing applied");
    const json = await vaiInProcess(["store", "migrate", "--store", url, "--json"]);
    expect(JSON.parse(json.out)).toMatchObject({ kind: "postgres", applied: [], version: SCHEMA_VERSION });
  });

  it("prints its usage for --help", async () => {
    for (const form of [["store"], ["store", "migrate"]]) {
      const r = await vaiInProcess([...form, "--help"]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^usage: vai store migrate /);
    }
  });

  it("fails with exit 1 on a server that does not answer, and 2 on a bad subcommand", async () => {
    const down = await vaiInProcess(["store", "migrate", "--store", "postgres://nobody@127.0.0.1:1/none"]);
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/cannot connect to the trace store at postgres:\/\/nobody@127\.0\.0\.1:1\/none/);
    expect((await vaiInProcess(["store", "upgrade"])).code).toBe(2);
  });
});
