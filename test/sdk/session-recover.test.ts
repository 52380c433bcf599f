// Crash recovery: a Session dropped without close() (the process died) is resumed from the
// store, checked against the chain's checkpoints, and finished.
import { beforeAll, describe, expect, it } from "vitest";
import { chainHead, encodeTrace } from "../../sdk/core/encoding.js";
import {
  CheckpointMismatchError,
  GuardRefusal,
  IdempotencyConflictError,
  RecordedToolError,
  Session,
  SessionOpenError,
  SessionRecoveryError,
  onChainSession,
  type PromiseRef,
} from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import {
  FAST,
  PROFILE,
  flaky,
  freshId,
  openSession,
  sessionEnv,
  storedRoot,
  type SessionEnv,
} from "./session-fixture.js";

let env: SessionEnv;
beforeAll(async () => {
  // Interval 1: checkpointNow() here always fits the escrow's budget (session-checkpoints.test.ts tests it).
  env = await sessionEnv(1);
});

const AUTH = {
  actionId: "pay-1",
  tool: "pay",
  args: { merchant: "acme", amount: "12.50" },
  decision: "allow",
  authority: "human",
  scope: "once",
  eventId: "auth-1",
} as const;

/** A session with some history, then abandoned: no close, no flush, its store handle left open. */
async function crashedSession(name: string, opts: { promises?: PromiseRef[]; guard?: boolean } = {}) {
  const { session, sessionId } = await openSession(env, {
    store: env.store(name),
    sessionId: freshId(name),
    policy: FAST,
    ...opts,
  });
  session.authorize(AUTH);
  await session.call("pay", AUTH.args, async () => "paid", { actionId: "pay-1" });
  await session.call("send_email", { to: "alice@x" }, async () => "sent");
  await session.checkpointNow();
  session.grant("recipient", "bob@x", { eventId: "grant-1" });
  await expect(
    session.call("read", {}, async () => Promise.reject(new Error("timeout")), { actionId: "read-1" }),
  ).rejects.toThrow("timeout");
  return { sessionId, count: session.count, root: session.root() };
}

const recover = (
  store: TraceStore,
  sessionId: `0x${string}`,
  extra: Partial<Parameters<typeof Session.recover>[0]> = {},
) => Session.recover({ store, escrow: env.escrow, sessionId, policy: FAST, ...extra });

describe("Session.recover", () => {
  it("resumes at the stored count, keeps idempotency, continues and closes at the stored root", async () => {
    const name = `crash-${Date.now()}`;
    const before = await crashedSession(name);
    const store = TraceStore.open(env.path(name));
    const session = await recover(store, before.sessionId);
    expect([session.count, session.root()]).toEqual([before.count, before.root]);
    expect(session.openTx).toBeUndefined();
    expect(session.stats).toMatchObject({ checkpoints: 1, lastCheckpointN: 3 });

    let ran = 0;
    const again = async () => (ran++, "paid again");
    expect(await session.call("pay", AUTH.args, again, { actionId: "pay-1" })).toBe("paid");
    await expect(session.call("read", {}, again, { actionId: "read-1" })).rejects.toThrow(RecordedToolError);
    expect(session.authorize(AUTH).seq).toBe(0);
    expect(session.grant("recipient", "bob@x", { eventId: "grant-1" }).seq).toBe(3);
    expect(() => session.revoke("recipient", "bob@x", { eventId: "grant-1" })).toThrow(
      IdempotencyConflictError,
    );
    await expect(
      session.call("pay", { ...AUTH.args, amount: 99 }, again, { actionId: "pay-1" }),
    ).rejects.toThrow(IdempotencyConflictError);
    expect(ran).toBe(0);
    expect(store.count(before.sessionId)).toBe(before.count);

    await session.call("send_email", { to: "bob@x" }, async () => "sent");
    await session.checkpointNow();
    const closed = await session.close();
    expect(closed).toMatchObject({
      finalN: before.count + 1,
      finalRoot: storedRoot(store, before.sessionId),
    });
    const secret = store.session(before.sessionId)!.secret;
    const leaves = encodeTrace(store.records(before.sessionId), PROFILE, secret).map((r) => r.leaf);
    const onChain = await env.escrow.checkpointsOf(before.sessionId);
    expect(onChain.map((c) => c.n)).toEqual([3, before.count + 1]);
    for (const c of onChain) expect(c.root).toBe(chainHead(leaves, c.n));
  });

  it("sends openSession when the crash came before it landed", async () => {
    const f = flaky(env.escrow);
    f.fail("openSession", 1);
    const store = env.store();
    const sessionId = freshId();
    const opening = Session.open({ store, escrow: f.escrow, sessionId, user: env.user, profile: PROFILE });
    await expect(opening).rejects.toThrow(SessionOpenError);
    expect(store.session(sessionId)).toBeDefined();
    expect(await onChainSession(env.escrow, sessionId)).toBeUndefined();

    const session = await recover(store, sessionId);
    expect(session.openTx?.gasUsed).toBeGreaterThan(0n);
    expect(await onChainSession(env.escrow, sessionId)).toMatchObject({ user: env.user });
    await session.call("read", {}, async () => "ok");
    expect((await session.close()).finalN).toBe(1);
  });

  it("stores an on-chain checkpoint the crash kept out of the store", async () => {
    const { session, sessionId, store } = await openSession(env);
    await session.call("read", {}, async () => "a");
    await session.call("read", {}, async () => "b");
    // The transaction landed; the process died before store.addCheckpoint.
    await env.escrow.checkpoint(sessionId, 2, session.head());
    expect(store.checkpoints(sessionId)).toEqual([]);
    const resumed = await recover(store, sessionId);
    expect(store.checkpoints(sessionId)).toEqual([{ n: 2, root: session.head(), final: false }]);
    expect(resumed.stats).toMatchObject({ checkpoints: 1, lastCheckpointN: 2 });
  });

  it("rebuilds guard mode's view of the trace", async () => {
    const aap5: PromiseRef = {
      predicate: "AAP-5",
      theta: { countedTools: ["send_email"], maxCount: 1, summedTools: [] },
    };
    const name = `crash-guard-${Date.now()}`;
    const before = await crashedSession(name, { promises: [aap5], guard: true });
    const session = await recover(TraceStore.open(env.path(name)), before.sessionId, {
      promises: [aap5],
      guard: true,
    });
    await expect(session.call("send_email", { to: "bob@x" }, async () => "sent")).rejects.toThrow(
      GuardRefusal,
    );
  });

  it("refuses a session closed before the crash, storing its final commitment if the store missed it", async () => {
    const { session, sessionId, store } = await openSession(env);
    await session.call("read", {}, async () => "a");
    // closeSession landed; the process died before store.addCheckpoint.
    await env.escrow.closeSession(sessionId, 1, session.root());
    await expect(recover(store, sessionId)).rejects.toThrow(/is closed/);
    expect(store.checkpoints(sessionId)).toEqual([{ n: 1, root: session.root(), final: true }]);
  });

  it("refuses a closed session, an unknown one, and bad promises", async () => {
    const { session, sessionId, store } = await openSession(env);
    await session.close();
    await expect(recover(store, sessionId)).rejects.toThrow(SessionRecoveryError);
    await expect(recover(store, sessionId)).rejects.toThrow(/is closed/);
    await expect(recover(store, freshId())).rejects.toThrow(/not in the trace store/);
    await expect(
      recover(store, sessionId, { promises: [{ predicate: "AAP-4", theta: {} }] }),
    ).rejects.toThrow(/promises\[0\]/);
  });

  it("refuses a store whose records differ from an on-chain checkpoint, naming it", async () => {
    const name = `honest-${Date.now()}`;
    const before = await crashedSession(name);
    const honest = TraceStore.open(env.path(name));
    const row = honest.session(before.sessionId)!;
    const records = honest.records(before.sessionId);

    const forged = env.store();
    forged.createSession({
      sessionId: before.sessionId,
      secret: row.secret,
      profile: row.profile,
      user: row.user,
    });
    for (const r of records)
      forged.append(before.sessionId, r.seq === 2 && r.kind === "call" ? { ...r, args: { to: "eve@x" } } : r);
    const mismatch = recover(forged, before.sessionId);
    await expect(mismatch).rejects.toThrow(CheckpointMismatchError);
    await expect(mismatch).rejects.toMatchObject({
      checkpoint: 0,
      message: expect.stringMatching(/first 3 records/),
    });

    const lossy = env.store();
    lossy.createSession({
      sessionId: before.sessionId,
      secret: row.secret,
      profile: row.profile,
      user: row.user,
    });
    for (const r of records.slice(0, 2)) lossy.append(before.sessionId, r);
    await expect(recover(lossy, before.sessionId)).rejects.toThrow(
      /only 2 are recorded: acknowledged records were lost/,
    );
  });
});
