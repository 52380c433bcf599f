// The Postgres trace store's faults that need other processes (issue 40; npm run test:full, ZKVAI_FULL=1):
//  - a connection dropped mid-transaction: the store's append waits inside its transaction on the session's row,
//    which a psql process holds, and a second psql process terminates the store's backend while it waits. The
//    append fails with a StoreError; nothing half-written is stored, nothing acknowledged is lost, and the
//    session's writer lock went with the connection, so a new store takes the session over and goes on.
//  - multi-process load: recorder processes sharing one private cluster (scripts/bench-store-load.ts --postgres,
//    at a size that fits the suite): every acknowledged record stored, in order, none lost or reordered.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { keccak256, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresBin, startPostgres, type PrivatePostgres } from "../../scripts/lib/private-postgres.js";
import { migrateStore, StoreError, TraceStore } from "../../sdk/provider/store.js";

const FULL = process.env.ZKVAI_FULL === "1";
const ROOT = join(import.meta.dirname, "..", "..");
let cluster: PrivatePostgres;

const psqlBin = () => {
  const bin = postgresBin();
  const beside = bin && join(bin, "psql");
  return beside && existsSync(beside) ? beside : "psql";
};
const psql = (url: string, sql: string): ChildProcess =>
  spawn(psqlBin(), [url, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], { stdio: ["ignore", "pipe", "pipe"] });

/** Polls `query` until it returns a row or `ms` pass (a condition, not a sleep that hopes). */
async function until(url: string, query: string, ms: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const end = Date.now() + ms;
    while ((await client.query(query)).rowCount === 0) {
      if (Date.now() > end) throw new Error(`not within ${ms} ms: ${query}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await client.end();
  }
}

describe.runIf(FULL)("the Postgres store's faults across processes", () => {
  beforeAll(async () => {
    cluster = await startPostgres("zkvai_faults");
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("a connection dropped mid-transaction loses nothing acknowledged and stores nothing half-written", async () => {
    const url = await cluster.createDatabase("dropped");
    await migrateStore(url);
    const id = keccak256(toHex("dropped mid-transaction"));
    const store = TraceStore.open(url);
    store.createSession({
      sessionId: id,
      secret: 1n,
      profile: { version: 1, tools: { read: {} } },
      user: "0x1111111111111111111111111111111111111111",
    });
    store.claimWriter(id);
    const call = (seq: number) => ({ kind: "call" as const, seq, ts: seq, tool: "read", args: { seq } });
    expect(store.append(id, call(0))).toBe("inserted");

    // A psql process holds the session's row; once it does, a second one waits until a backend is stuck on that
    // lock (the store's append, inside its transaction) and terminates it.
    const holder = psql(
      url,
      `BEGIN; SELECT 1 FROM sessions WHERE session_id = '${id}' FOR UPDATE; SELECT pg_sleep(20);`,
    );
    await until(
      url,
      `SELECT 1 FROM pg_stat_activity WHERE query LIKE '%pg_sleep(20)%' AND state = 'active'`,
      20_000,
    );
    const terminator = psql(
      url,
      `DO $$ BEGIN
         FOR i IN 1..400 LOOP
           EXIT WHEN EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database());
           PERFORM pg_sleep(0.05);
         END LOOP;
         PERFORM pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND datname = current_database();
       END $$;`,
    );
    let said = "";
    terminator.stderr!.on("data", (d) => (said += String(d)));
    terminator.stdout!.on("data", (d) => (said += String(d)));
    const terminated = new Promise<number | null>((resolve) => terminator.on("exit", resolve));
    // The append blocks this thread on its worker until the store's backend is terminated mid-transaction.
    expect(() => store.append(id, call(1))).toThrow(StoreError);
    expect(await terminated, said).toBe(0);
    // The holder's backend goes on sleeping with the row locked after its psql client is gone: end it on the server.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(20)%' AND pid <> pg_backend_pid()`,
    );
    await admin.end();
    holder.kill("SIGTERM");
    store.close();

    // The lock went with the connection: a new store takes the session, finds record 0 only, and goes on.
    const next = TraceStore.open(url);
    try {
      next.claimWriter(id);
      expect(next.records(id).map((r) => r.seq)).toEqual([0]);
      expect(next.append(id, call(1))).toBe("inserted");
      expect(next.count(id)).toBe(2);
    } finally {
      next.close();
    }
  }, 120_000);

  it("recorder processes sharing one cluster lose and reorder nothing", () => {
    const run = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        join(ROOT, "scripts", "bench-store-load.ts"),
        "--postgres",
        "--procs",
        "3",
        "--sessions",
        "9",
        "--calls",
        "40",
      ],
      { cwd: ROOT, encoding: "utf8", timeout: 300_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/3 processes, Postgres: 360 calls in .* stored 360, lost\/reordered 0/);
  }, 320_000);
});
