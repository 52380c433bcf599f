// Issue 16, finding 5: a tool ran and then its record was lost whenever another connection
// held the store's write lock for a moment, because the append's DEFERRED transaction got
// SQLITE_BUSY on its upgrade to a write without waiting. Now every write is IMMEDIATE (it waits
// for the lock, with bounded retries), any number of recorder processes may share one store
// file on different sessions, and a second recorder on the same session is refused at open.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, toHex, type Hex } from "viem";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/repo.js";
import type { CallRecord } from "../../sdk/core/records.js";
import { Session, SessionRecoveryError } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { NO_CHECKPOINTS, offlineEscrow } from "./offline-escrow.js";

const PROFILE = { version: 1 as const, tools: { read: {} } };
const USER = "0x1111111111111111111111111111111111111111" as const;
const id = (label: string): Hex => keccak256(toHex(`${label}:${process.pid}:${Date.now()}`));
const storePath = () => join(mkdtempSync(join(tmpdir(), "zkvai-shared-")), "trace.sqlite");
const open = (store: TraceStore, sessionId: Hex) =>
  Session.open({
    store,
    escrow: offlineEscrow(),
    sessionId,
    user: USER,
    profile: PROFILE,
    policy: NO_CHECKPOINTS,
  });

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts a process and resolves once it printed `line` (or rejects when it exits first). */
function start(args: string[], line: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += String(d);
      if (out.split("\n").includes(line)) resolve(child);
    });
    child.stderr!.on("data", (d) => (err += String(d)));
    child.on("exit", (code) => reject(new Error(`child exited ${code} before "${line}": ${err}`)));
  });
}
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.on("exit", (code) => resolve(code)),
  );

/** Another connection, in another process, that holds the write lock for ms. */
const LOCK_HOLDER = `
const Database = require("better-sqlite3");
const db = new Database(process.argv[1]);
db.exec("BEGIN IMMEDIATE");
console.log("locked");
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.argv[2]));
db.exec("COMMIT");
`;

const recorderChild = (...args: string[]) => [
  "--import",
  "tsx",
  join(REPO_ROOT, "test/sdk/store-recorder-child.ts"),
  ...args,
];

describe("a second connection holding the write lock", () => {
  it("delays a record for 1.5 s, under the busy timeout, and loses none", async () => {
    const path = storePath();
    const store = TraceStore.open(path);
    const sessionId = id("locked");
    const session = await open(store, sessionId);
    await session.call("read", { i: 0 }, async () => 0);
    const holder = await start(["-e", LOCK_HOLDER, path, "1500"], "locked");
    let ran = 0;
    const began = Date.now();
    // Before the fix: RecordWriteError "database is locked", 3 ms after the tool ran.
    expect(await session.call("read", { i: 1 }, async () => (ran++, 1))).toBe(1);
    expect(Date.now() - began).toBeGreaterThan(1_000);
    expect(await exited(holder)).toBe(0);
    expect(ran).toBe(1);
    expect(store.records(sessionId).map((r) => (r as CallRecord).args.i)).toEqual([0, 1]);
    expect(session.count).toBe(2);
  });
});

describe("recorders in several processes on one store file", () => {
  it("store every record of every session, in order, with contiguous seqs", async () => {
    const path = storePath();
    const N = 150;
    const [a1, a2, b1, b2, mine] = ["a1", "a2", "b1", "b2", "parent"].map(id);
    // The schema exists before the children race to create it.
    const store = TraceStore.open(path);
    const running = [
      start(recorderChild("record", path, String(N), a1, a2), "done"),
      start(recorderChild("record", path, String(N), b1, b2), "done"),
    ];
    // This process records too, while both children write.
    const session = await open(store, mine);
    for (let i = 0; i < N; i++) await session.call("read", { i }, async () => i);
    await Promise.all(running);
    for (const sessionId of [a1, a2, b1, b2, mine]) {
      const records = store.records(sessionId) as CallRecord[];
      expect(records.map((r) => r.seq)).toEqual([...Array(N).keys()]);
      expect(records.map((r) => r.args.i)).toEqual([...Array(N).keys()]);
      expect(records.map((r) => r.result)).toEqual([...Array(N).keys()]);
    }
  });

  it("refuse a second recorder on one session while the first is alive, and let one take over after it died", async () => {
    const path = storePath();
    const sessionId = id("held");
    const holder = await start(recorderChild("hold", path, sessionId), "ready");
    const store = TraceStore.open(path);
    const recovering = Session.recover({ store, escrow: offlineEscrow(), sessionId, policy: NO_CHECKPOINTS });
    await expect(recovering).rejects.toThrow(SessionRecoveryError);
    await expect(recovering).rejects.toThrow(
      new RegExp(
        `is being recorded by process ${holder.pid} .*a second recorder on one session would lose records`,
      ),
    );
    holder.kill("SIGKILL");
    await exited(holder);
    // A crashed holder leaves its claim behind; it is stale once the process is gone.
    expect(() => store.claimWriter(sessionId)).not.toThrow();
  });
});
