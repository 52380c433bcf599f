// The checkpoint policy: triggers, serialisation, retries with backoff, the escrow's checkpoint
// budget, and close() superseding what is still queued. The escrow is real (in-process
// chain); failures are injected in front of it (session-fixture.ts `flaky`).
import type { Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { chainHead, encodeTrace } from "../../sdk/core/encoding.js";
import { LeafLog } from "../../sdk/core/leaf-log.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { CheckpointBudgetError, Session, type CheckpointPolicy } from "../../sdk/provider/session.js";
import type { TraceStore } from "../../sdk/provider/store.js";
import {
  FAST,
  PROFILE,
  flaky,
  freshId,
  openSession,
  sessionEnv,
  sleep,
  type SessionEnv,
} from "./session-fixture.js";

let env: SessionEnv;
beforeAll(async () => {
  // Interval 1: the budget (n > count·interval) never binds strictly increasing checkpoints, so
  // the trigger tests see the policy alone; "the escrow's checkpoint budget" below uses 3.
  env = await sessionEnv(1);
});

async function open(
  policy: Partial<CheckpointPolicy>,
  extra: Partial<Parameters<typeof Session.open>[0]> = {},
): Promise<{ session: Session; sessionId: Hex; store: TraceStore }> {
  return openSession(env, { policy: { ...FAST, ...policy }, ...extra });
}

const read = (s: Session, i: number) => s.call("read", { i }, async () => "ok");

/** On-chain checkpoints, each checked against the stored records. */
async function checkedCheckpoints(store: TraceStore, sessionId: Hex): Promise<number[]> {
  const stored = store.session(sessionId)!;
  const leaves = encodeTrace(store.records(sessionId), PROFILE, stored.secret).map((r) => r.leaf);
  const onChain = await env.escrow.checkpointsOf(sessionId);
  for (const c of onChain) expect(c.root).toBe(chainHead(leaves, c.n));
  return onChain.map((c) => c.n);
}

describe("checkpoint triggers", () => {
  it("checkpoints after everyRecords new records and stores each checkpoint", async () => {
    const { session, sessionId, store } = await open({ everyRecords: 3 });
    for (let i = 1; i <= 7; i++) {
      await read(session, i);
      await session.flush();
    }
    expect(await checkedCheckpoints(store, sessionId)).toEqual([3, 6]);
    expect(store.checkpoints(sessionId).map((c) => c.n)).toEqual([3, 6]);
    expect(session.stats).toMatchObject({ checkpoints: 2, checkpointFailures: 0, lastCheckpointN: 6 });
  });

  it("commits the prefix each trigger queued, however slow the chain", async () => {
    const f = flaky(env.escrow);
    f.slow("checkpoint", 40);
    const { session, sessionId, store } = await open({ everyRecords: 3 }, { escrow: f.escrow });
    for (let i = 1; i <= 7; i++) await read(session, i);
    await session.flush();
    expect(await checkedCheckpoints(store, sessionId)).toEqual([3, 6]);
  });

  it("checkpoints everyMs after the first record no checkpoint covers", async () => {
    const { session, sessionId, store } = await open({ everyMs: 40 });
    await read(session, 1);
    await session.flush();
    expect(session.stats.checkpoints).toBe(0);
    await sleep(300);
    await session.flush();
    expect(await checkedCheckpoints(store, sessionId)).toEqual([1]);
    // No new records, no new checkpoint.
    await sleep(100);
    expect(session.stats.checkpoints).toBe(1);
  });

  it("refuses a policy that is not positive, before writing anything", async () => {
    const sessionId = freshId();
    const store = env.store();
    await expect(open({ everyRecords: 0 }, { store, sessionId })).rejects.toThrow(/everyRecords/);
    await expect(open({ retry: { initialMs: 50, maxMs: 10 } }, { store, sessionId })).rejects.toThrow(
      /maxMs/,
    );
    expect(store.session(sessionId)).toBeUndefined();
  });
});

describe("checkpoint retries", () => {
  it("retries with exponential backoff while calls go on, then commits the newest queued prefix", async () => {
    const f = flaky(env.escrow);
    const log = memoryLogger();
    const retry = { initialMs: 20, maxMs: 40 };
    const { session, sessionId, store } = await open({ everyRecords: 2, retry }, { escrow: f.escrow, log });
    f.fail("checkpoint", 3);
    await read(session, 1);
    await read(session, 2);
    // The first attempt (n = 2) has failed; calls do not wait for the chain.
    for (let i = 3; i <= 5; i++) await read(session, i);
    expect(session.stats.checkpoints).toBe(0);
    await session.flush();
    const events = (name: string) => log.entries.filter((e) => e.event === name).map((e) => e.fields);
    expect(events("checkpoint.failed").map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 20],
      [2, 40],
      [3, 40],
    ]);
    // The prefix queued at record 4 supersedes the one of record 2; record 5 waits for the next trigger.
    expect(events("checkpoint.submitted").map((e) => e.n)).toEqual([2, 4, 4, 4]);
    expect(events("checkpoint.confirmed").map((e) => e.n)).toEqual([4]);
    expect(await checkedCheckpoints(store, sessionId)).toEqual([4]);
    expect(session.stats).toMatchObject({ checkpoints: 1, checkpointFailures: 3, lastCheckpointN: 4 });
  });

  it("never has two checkpoint transactions in flight", async () => {
    const f = flaky(env.escrow);
    f.slow("checkpoint", 25);
    const { session, sessionId, store } = await open({ everyRecords: 1 }, { escrow: f.escrow });
    await Promise.all([1, 2, 3, 4, 5, 6].map((i) => read(session, i)));
    await Promise.all([session.checkpointNow(), read(session, 7), session.checkpointNow()]);
    await session.flush();
    expect(f.maxInFlight.checkpoint).toBe(1);
    const ns = await checkedCheckpoints(store, sessionId);
    expect(ns.length).toBeGreaterThanOrEqual(2);
    expect(ns.every((n, i) => i === 0 || n > ns[i - 1])).toBe(true);
  });

  it("adopts a checkpoint whose send failed after it landed, instead of retrying it forever", async () => {
    const f = flaky(env.escrow);
    const log = memoryLogger();
    const { session, sessionId, store } = await open({}, { escrow: f.escrow, log });
    await read(session, 1);
    f.failAfterSend("checkpoint", 1);
    await session.checkpointNow();
    expect(log.entries.some((e) => e.event === "checkpoint.confirmed" && e.fields.reconciled)).toBe(true);
    expect(await checkedCheckpoints(store, sessionId)).toEqual([1]);
    expect(store.checkpoints(sessionId)).toHaveLength(1);
    expect(session.stats).toMatchObject({ checkpoints: 1, lastCheckpointN: 1 });
    expect(f.attempts.checkpoint).toBe(2);
  });
});

describe("the escrow's checkpoint budget", () => {
  let budgeted: SessionEnv;
  beforeAll(async () => {
    budgeted = await sessionEnv(3);
  });

  it("defers a checkpoint the budget does not cover, sends it once records earn it, never caps", async () => {
    const log = memoryLogger();
    const { session, sessionId, store } = await openSession(budgeted, {
      policy: { ...FAST, everyRecords: 1 },
      log,
    });
    for (let i = 1; i <= 13; i++) {
      await read(session, i);
      await session.flush();
    }
    // The k-th checkpoint needs more than 3·(k−1) records: 1, 4, 7, 10, 13.
    const onChain = await budgeted.escrow.checkpointsOf(sessionId);
    expect(onChain.map((c) => c.n)).toEqual([1, 4, 7, 10, 13]);
    const leaves = encodeTrace(store.records(sessionId), PROFILE, store.session(sessionId)!.secret).map(
      (r) => r.leaf,
    );
    for (const c of onChain) expect(c.root).toBe(chainHead(leaves, c.n));
    expect(log.entries.filter((e) => e.event === "checkpoint.deferred").length).toBeGreaterThan(0);
    expect(log.entries.some((e) => e.event === "checkpoint.failed")).toBe(false);
    // checkpointNow at 14 records after 5 checkpoints: the 6th needs more than 15.
    await read(session, 14);
    await session.flush();
    await expect(session.checkpointNow()).rejects.toThrow(CheckpointBudgetError);
    await read(session, 15);
    await read(session, 16);
    await session.checkpointNow();
    expect((await budgeted.escrow.checkpointsOf(sessionId)).map((c) => c.n)).toEqual([1, 4, 7, 10, 13, 16]);
    expect((await session.close()).finalN).toBe(16);
  });
});

describe("close() and the checkpoint queue", () => {
  it("drops a checkpoint waiting to retry: the final commitment supersedes it", async () => {
    const f = flaky(env.escrow);
    f.fail("checkpoint", 1_000);
    const { session, sessionId, store } = await open(
      { everyRecords: 1, retry: { initialMs: 5_000, maxMs: 5_000 } },
      { escrow: f.escrow },
    );
    await read(session, 1);
    const waiting = session.checkpointNow();
    await sleep(10);
    const started = Date.now();
    const closed = await session.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await waiting;
    await sleep(50);
    expect(f.attempts.checkpoint).toBe(1);
    expect(closed.finalN).toBe(1);
    expect(await env.escrow.checkpointsOf(sessionId)).toEqual([]);
    expect(store.checkpoints(sessionId)).toEqual([{ n: 1, root: closed.finalRoot, final: true }]);
  });

  it("waits for a checkpoint transaction already sent, and keeps it", async () => {
    const f = flaky(env.escrow);
    f.slow("checkpoint", 80);
    const { session, sessionId, store } = await open({}, { escrow: f.escrow });
    await read(session, 1);
    const sent = session.checkpointNow();
    await sleep(10);
    await read(session, 2);
    const closed = await session.close();
    await sent;
    expect(await checkedCheckpoints(store, sessionId)).toEqual([1]);
    expect(store.checkpoints(sessionId).map((c) => [c.n, c.final])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(closed.finalN).toBe(2);
  });
});

describe("LeafLog", () => {
  it("gives commitmentRoot of every prefix, in any order, hashed eagerly or in idle time", async () => {
    const records: TraceRecord[] = Array.from({ length: 33 }, (_, seq) => ({
      kind: "call",
      seq,
      ts: 1,
      tool: "read",
      args: { seq },
    }));
    const leaves = encodeTrace(records, PROFILE, 7n).map((r) => r.leaf);
    const log = new LeafLog(PROFILE, 7n);
    for (const r of records.slice(0, 20)) log.push(r);
    await sleep(20); // some hashed in idle time, some not
    for (const r of records.slice(20)) log.push(r);
    const order = [33, 0, 1, 17, 16, 2, 5, 32, 8, 9, 31, 3, 4, 24, 25, 12, 6, 7];
    for (const n of order) expect(log.root(n)).toBe(commitmentRoot(leaves.slice(0, n)));
    expect(log.leaves()).toEqual(leaves);
    expect(() => log.root(34)).toThrow(RangeError);
    log.dispose();
  });
});
