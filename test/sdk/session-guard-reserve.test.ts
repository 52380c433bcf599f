// Guard mode reserves a call's record before its tool runs (issue 34, finding 5; P8): the seq is taken in the
// store with an "outcome unknown" record, and the outcome replaces it. A store that cannot take that write
// (another connection holding the write lock past the retries, a full disk) refuses the call before the tool
// runs. A process that stops while the tool runs leaves the reservation, which Session.recover stores as an
// "outcome unknown" error record. Outside guard mode the same faults lose the record of a call that ran
// (docs/PROTOCOL.md lists them), which the last tests show.
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { OUTCOME_UNKNOWN } from "../../sdk/provider/session-calls.js";
import { RecordWriteError, Session, StoreUnavailableError } from "../../sdk/provider/session.js";
import { BUSY_TIMEOUT_MS, TraceStore, WRITE_ATTEMPTS } from "../../sdk/provider/store.js";
import { FAST, openSession, sessionEnv, storedRoot, type SessionEnv } from "./session-fixture.js";

let env: SessionEnv;
beforeAll(async () => {
  env = await sessionEnv();
});

const open = (name: string, guard: boolean) =>
  openSession(env, { store: env.store(name), policy: FAST, promises: [], guard });

/** "Disk full" for this store's own connection: the file may not grow past the pages it has now. */
function fillDisk(store: TraceStore): void {
  const db = (store as unknown as { db: Database.Database }).db;
  const pages = db.pragma("page_count", { simple: true }) as number;
  db.pragma(`max_page_count = ${pages}`);
}

// Args that need new pages (overflow pages: more than a page of bytes), so they cannot fit a full file.
const BIG = { q: "x".repeat(20_000) };

describe("guard mode reserves each call's record before its tool runs", () => {
  it("runs no call while another connection holds the write lock past the retries", async () => {
    const name = `reserve-locked-${Date.now()}`;
    const { session, sessionId, store } = await open(name, true);
    await session.call("read", {}, async () => "ok");
    const holder = new Database(env.path(name));
    holder.exec("BEGIN IMMEDIATE");
    let ran = 0;
    const started = Date.now();
    try {
      await expect(session.call("read", {}, async () => (ran++, "ok"))).rejects.toThrow(
        StoreUnavailableError,
      );
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(WRITE_ATTEMPTS * BUSY_TIMEOUT_MS - 500);
    expect(ran).toBe(0);
    expect(store.count(sessionId)).toBe(1);
    expect(store.pending(sessionId)).toEqual([]);
    // The lock released, the session goes on at the next seq.
    expect(await session.call("read", {}, async () => (ran++, "ok"))).toBe("ok");
    expect(store.records(sessionId).map((r) => r.seq)).toEqual([0, 1]);
  }, 60_000);

  it("keeps the reserved record when a lock held while the tool ran stops its outcome; recover stores it", async () => {
    const name = `reserve-locked-during-${Date.now()}`;
    const { session, sessionId, store } = await open(name, true);
    const holder = new Database(env.path(name));
    let ran = 0;
    try {
      const late = session.call("send_email", { to: "alice@x" }, async () => {
        ran++;
        holder.exec("BEGIN IMMEDIATE");
        return "sent";
      });
      await expect(late).rejects.toThrow(RecordWriteError);
      await expect(late).rejects.toThrow(/its reservation keeps an "outcome unknown/);
    } finally {
      if (holder.inTransaction) holder.exec("ROLLBACK");
      holder.close();
    }
    expect(ran).toBe(1);
    // The call that ran is not lost: its reservation holds it, and recovery stores it.
    expect(store.pending(sessionId)[0]?.fallback).toMatchObject({
      seq: 0,
      tool: "send_email",
      error: OUTCOME_UNKNOWN,
    });
    const recovered = await Session.recover({
      store,
      escrow: env.escrow,
      sessionId,
      policy: FAST,
      guard: true,
    });
    expect(store.records(sessionId)).toMatchObject([{ seq: 0, tool: "send_email", error: OUTCOME_UNKNOWN }]);
    expect(recovered.count).toBe(1);
  }, 60_000);

  it("runs no call on a full disk", async () => {
    const { session, sessionId, store } = await open(`reserve-full-${Date.now()}`, true);
    fillDisk(store);
    let ran = 0;
    const refused = session.call("read", BIG, async () => (ran++, "ok"));
    await expect(refused).rejects.toThrow(StoreUnavailableError);
    await expect(refused).rejects.toThrow(/full/);
    expect(ran).toBe(0);
    expect(store.count(sessionId)).toBe(0);
    expect(store.pending(sessionId)).toEqual([]);
  });

  it("stores an error record when the disk fills while the tool runs and the result no longer fits", async () => {
    const { session, sessionId, store } = await open(`reserve-fills-${Date.now()}`, true);
    const result = await session.call("read", {}, async () => {
      fillDisk(store);
      return "y".repeat(50_000);
    });
    expect(result).toHaveLength(50_000);
    const [record] = store.records(sessionId);
    expect(record).toMatchObject({
      kind: "call",
      seq: 0,
      error: expect.stringMatching(/result could not be stored.*full/),
    });
    expect(store.pending(sessionId)).toEqual([]);
  });

  it("leaves an outcome-unknown record when the process stops while the tool runs; recover stores it, and no head included it before", async () => {
    const name = `reserve-crash-${Date.now()}`;
    const { session, sessionId, store } = await open(name, true);
    await session.call("read", { n: 1 }, async () => "first");
    let finish!: (v: string) => void;
    const running = session.call(
      "send_email",
      { to: "alice@x" },
      () => new Promise<string>((r) => (finish = r)),
    );
    running.catch(() => {}); // awaited below
    await new Promise((r) => setTimeout(r, 50));
    // The reservation is stored, not as a record: the count and the head are the first call's.
    expect(store.pending(sessionId)).toMatchObject([
      { fallback: { tool: "send_email", error: OUTCOME_UNKNOWN } },
    ]);
    expect(store.count(sessionId)).toBe(1);
    expect(session.count).toBe(1);
    // A reservation takes no seq: another record (an approval, an append) goes on while the tool runs.
    expect(session.append({ kind: "call", tool: "read", args: {}, result: "meanwhile" }).seq).toBe(1);
    const headBefore = session.head();
    expect(headBefore).toBe(session.head(2));
    // "The process stopped": another store connection recovers the session.
    const reopened = TraceStore.open(env.path(name));
    const recovered = await Session.recover({
      store: reopened,
      escrow: env.escrow,
      sessionId,
      policy: FAST,
      guard: true,
    });
    const records = reopened.records(sessionId);
    expect(records.map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(records[2]).toMatchObject({
      kind: "call",
      tool: "send_email",
      args: { to: "alice@x" },
      error: OUTCOME_UNKNOWN,
    });
    expect(reopened.pending(sessionId)).toEqual([]);
    expect(recovered.count).toBe(3);
    expect(recovered.head(2)).toBe(headBefore);
    // The old process's late outcome finds its reservation settled: it is reported lost, never stored twice.
    finish("sent");
    await expect(running).rejects.toThrow(RecordWriteError);
    expect(await recovered.call("read", { n: 2 }, async () => "after")).toBe("after");
    const closed = await recovered.close();
    expect(closed.finalN).toBe(4);
    expect(closed.finalRoot).toBe(storedRoot(reopened, sessionId));
    reopened.close();
  });
});

describe("outside guard mode, these faults lose the record of a call that ran", () => {
  it("a full disk: the tool runs, then RecordWriteError", async () => {
    const { session, sessionId, store } = await open(`unguarded-full-${Date.now()}`, false);
    fillDisk(store);
    let ran = 0;
    const lost = session.call("read", BIG, async () => (ran++, "ok"));
    await expect(lost).rejects.toThrow(RecordWriteError);
    await expect(lost).rejects.toThrow(/ran, but its record could not be stored.*full/);
    expect(ran).toBe(1);
    expect(store.count(sessionId)).toBe(0);
  });

  it("a write lock held past the retries while the tool ran: the tool ran, then RecordWriteError", async () => {
    const name = `unguarded-locked-${Date.now()}`;
    const { session, sessionId, store } = await open(name, false);
    const holder = new Database(env.path(name));
    let ran = 0;
    try {
      const lost = session.call("read", {}, async () => {
        ran++;
        holder.exec("BEGIN IMMEDIATE");
        return "ok";
      });
      await expect(lost).rejects.toThrow(RecordWriteError);
      await expect(lost).rejects.toThrow(/held the write lock/);
    } finally {
      if (holder.inTransaction) holder.exec("ROLLBACK");
      holder.close();
    }
    expect(ran).toBe(1);
    expect(store.count(sessionId)).toBe(0);
  }, 60_000);
});
