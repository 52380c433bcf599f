// The Postgres store against other processes (issue 40): one writer per live session (a second recorder is
// refused, naming the holder's host and pid); recovery after the holder is killed (SIGKILL), its advisory lock
// gone with its connection and every record it acknowledged there; a write racing another connection's
// transaction on the same session; and recorder processes sharing one database. The store's contract itself
// runs in store.test.ts, on both stores. Multi-process, so it runs in test:full (scripts/lib/test-suites.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { hostname } from "node:os";
import { join } from "node:path";
import { keccak256, toHex, type Hex } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PrivatePostgres } from "../../scripts/lib/private-postgres.js";
import { recordBytes, type CallRecord } from "../../sdk/core/records.js";
import { Session, SessionRecoveryError } from "../../sdk/provider/session.js";
import { migrateStore, StoreConflictError, TraceStore } from "../../sdk/provider/store.js";
import { REPO_ROOT } from "../helpers/repo.js";
import { NO_CHECKPOINTS, offlineEscrow } from "./offline-escrow.js";

let cluster: PrivatePostgres;
let databases = 0;
const fresh = () => cluster.createDatabase(`writers_${++databases}`);
const id = (label: string): Hex => keccak256(toHex(`${label}:${process.pid}:${Date.now()}`));

const children: ChildProcess[] = [];
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
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const store of stores.splice(0)) store.close();
});
afterAll(() => cluster?.stop());

/** Starts a tsx child; resolves once it printed `line`, with every line it printed so far kept in `lines`. */
function start(script: string, args: string[], line: string) {
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, script), ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const lines: string[] = [];
  let partial = "";
  let err = "";
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      const parts = (partial + String(d)).split("\n");
      partial = parts.pop()!;
      lines.push(...parts);
      if (parts.includes(line)) resolve();
    });
    child.stderr!.on("data", (d) => (err += String(d)));
    child.on("exit", (code) => reject(new Error(`child exited ${code} before "${line}": ${err}`)));
  });
  return { child, lines, ready };
}
/** Resolves once the child is gone and its output read to the end ('close' comes after the last 'data'). */
const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.stdout!.readableEnded && (child.exitCode !== null || child.signalCode !== null)
      ? resolve()
      : child.once("close", () => resolve()),
  );

/** Retries fn until it stops throwing (the server notices a dead client's socket within moments). */
async function eventually<T>(fn: () => T, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return fn();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe("one writer per session across processes", () => {
  it("refuses a second recorder naming the holder's host and pid, and recovers once the holder is killed, losing nothing acknowledged", async () => {
    const url = await fresh();
    await migrateStore(url);
    const sessionId = id("held");
    const holder = start("test/sdk/store-postgres-child.ts", ["append", url, sessionId], "claimed");
    await holder.ready;
    await eventually(() => {
      if (!holder.lines.includes("acked 20")) throw new Error("not yet");
    });
    const store = open(url);
    let refusal: unknown;
    try {
      store.claimWriter(sessionId);
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(StoreConflictError);
    expect((refusal as Error).message).toMatch(
      new RegExp(
        `is being recorded by process ${holder.child.pid} on host ${hostname()} since .*would lose records`,
      ),
    );
    expect((refusal as StoreConflictError).details).toEqual({ host: hostname(), pid: holder.child.pid });

    holder.child.kill("SIGKILL");
    await exited(holder.child);
    const acked = holder.lines.filter((l) => l.startsWith("acked ")).map((l) => Number(l.slice(6)));
    expect(acked.length).toBeGreaterThan(20);
    // Its lock went with its connection: this process takes the session over.
    await eventually(() => store.claimWriter(sessionId));
    const records = store.records(sessionId) as CallRecord[];
    // Every acknowledged record is stored, in order, and seqs stay contiguous (at most the one append in
    // flight at the kill committed without its acknowledgement printed).
    expect(records.map((r) => r.seq)).toEqual([...records.keys()]);
    expect(records.length).toBeGreaterThanOrEqual(acked.length);
    expect(records.length).toBeLessThanOrEqual(acked.length + 1);
    for (const seq of acked) expect(records[seq]!.args).toEqual({ i: seq });
    // The new holder writes on from the tail.
    expect(
      store.append(sessionId, { kind: "call", seq: records.length, ts: 0, tool: "read", args: {} }),
    ).toBe("inserted");
  });

  it("refuses Session.recover while a recorder process holds the session, and lets one take it over after a SIGKILL", async () => {
    const url = await fresh();
    await migrateStore(url);
    const sessionId = id("session");
    const holder = start("test/sdk/store-recorder-child.ts", ["hold", url, sessionId], "ready");
    await holder.ready;
    const store = open(url);
    const recover = () =>
      Session.recover({ store, escrow: offlineEscrow(), sessionId, policy: NO_CHECKPOINTS });
    const refused = recover();
    await expect(refused).rejects.toThrow(SessionRecoveryError);
    await expect(refused).rejects.toThrow(
      new RegExp(`is being recorded by process ${holder.child.pid} on host ${hostname()}`),
    );
    holder.child.kill("SIGKILL");
    await exited(holder.child);
    // A crashed holder leaves its writers row behind; its lock is gone with its connection, so the session is free.
    await eventually(() => store.claimWriter(sessionId));
    expect(store.session(sessionId)).toMatchObject({ sessionId });
  });
});

/**
 * Another connection, in another process, that locks the session's row as a store write does, inserts `body` at
 * seq 0, holds its transaction open for ms, then commits.
 */
const RACING_WRITER = `
const pg = require("pg");
const [url, session, body, ms] = process.argv.slice(1);
(async () => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("BEGIN");
  await c.query("SELECT 1 FROM sessions WHERE session_id = $1 FOR NO KEY UPDATE", [session]);
  await c.query("INSERT INTO records (session_id, seq, body) VALUES ($1, 0, $2)", [session, body]);
  console.log("locked");
  await new Promise((r) => setTimeout(r, Number(ms)));
  await c.query("COMMIT");
  await c.end();
})();
`;

describe("writes racing on one session", () => {
  it("wait for the other transaction, then see its record: the same bytes are a duplicate, others a conflict", async () => {
    const url = await fresh();
    await migrateStore(url);
    const store = open(url);
    const record = (to: string) => ({ kind: "call" as const, seq: 0, ts: 1, tool: "read", args: { to } });
    // The bytes the store keeps: canonical JSON (recordBytes), which a byte-identical retry must match.
    const bodyOf = (to: string) => recordBytes(record(to));
    for (const [sessionId, theirs, outcome] of [
      [id("same"), "a", "duplicate"],
      [id("other"), "b", StoreConflictError],
    ] as const) {
      store.createSession({
        sessionId,
        secret: 1n,
        profile: { version: 1, tools: { read: {} } },
        user: `0x${"11".repeat(20)}`,
      });
      const racer = spawn(process.execPath, ["-e", RACING_WRITER, url, sessionId, bodyOf(theirs), "800"], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(racer);
      await new Promise<void>((resolve) =>
        racer.stdout!.on("data", (d) => String(d).includes("locked") && resolve()),
      );
      const began = Date.now();
      if (outcome === "duplicate") expect(store.append(sessionId, record("a"))).toBe("duplicate");
      else expect(() => store.append(sessionId, record("a"))).toThrow(outcome);
      expect(Date.now() - began).toBeGreaterThan(500);
      await exited(racer);
      expect(store.records(sessionId)).toEqual([record(theirs)]);
    }
  });

  it("keeps every session's records in order with contiguous seqs while recorder processes share the database", async () => {
    const url = await fresh();
    await migrateStore(url);
    const N = 60;
    const [a1, a2, b1, b2] = ["a1", "a2", "b1", "b2"].map(id);
    const running = [
      start("test/sdk/store-recorder-child.ts", ["record", url, String(N), a1, a2], "done"),
      start("test/sdk/store-recorder-child.ts", ["record", url, String(N), b1, b2], "done"),
    ];
    await Promise.all(running.map((r) => r.ready));
    const store = open(url);
    for (const sessionId of [a1, a2, b1, b2]) {
      const records = store.records(sessionId) as CallRecord[];
      expect(records.map((r) => r.seq)).toEqual([...Array(N).keys()]);
      expect(records.map((r) => r.args.i)).toEqual([...Array(N).keys()]);
    }
  });
});
