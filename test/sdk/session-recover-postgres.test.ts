// Crash recovery on the Postgres store (issue 40): a Session dropped without close() is resumed from a
// postgres:// store as from a SQLite file (session-recover.test.ts runs the rest on SQLite): it resumes at the
// stored count and root, keeps actionId and eventId idempotency from the stored records, settles a guard-mode
// reservation left open as its "outcome unknown" record, and closes at the stored root.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PrivatePostgres } from "../../scripts/lib/private-postgres.js";
import { IdempotencyConflictError, RecordedToolError, Session } from "../../sdk/provider/session.js";
import { migrateStore, TraceStore } from "../../sdk/provider/store.js";
import type { CallRecord } from "../../sdk/core/records.js";
import { FAST, freshId, openSession, sessionEnv, storedRoot, type SessionEnv } from "./session-fixture.js";

let cluster: PrivatePostgres;
let url: string;
let env: SessionEnv;
const opened: TraceStore[] = [];
const store = () => {
  const s = TraceStore.open(url);
  opened.push(s);
  return s;
};
beforeAll(async () => {
  cluster = await startPostgres();
  url = cluster.url;
  await migrateStore(url);
  // The fixture's chain and escrow, with every store on the one Postgres database (session ids differ).
  env = { ...(await sessionEnv(1)), store, path: () => url };
});
afterAll(async () => {
  for (const s of opened.splice(0)) s.close();
  await cluster?.stop();
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

describe("Session.recover on a Postgres store", () => {
  it("resumes at the stored count, keeps idempotency, settles an open reservation and closes at the stored root", async () => {
    const sessionId = freshId("pg-crash");
    const { session } = await openSession(env, { store: store(), sessionId, policy: FAST, guard: true });
    session.authorize(AUTH);
    await session.call("pay", AUTH.args, async () => "paid", { actionId: "pay-1" });
    session.grant("recipient", "bob@x", { eventId: "grant-1" });
    await expect(
      session.call("read", {}, async () => Promise.reject(new Error("timeout")), { actionId: "read-1" }),
    ).rejects.toThrow("timeout");
    // The process dies while a guarded tool runs: its reservation stays open.
    void session.call("read", { i: 1 }, () => new Promise(() => {}));
    await new Promise((r) => setTimeout(r, 50));
    const before = { count: session.count };
    expect(before.count).toBe(4);

    const fresh = store();
    expect(fresh.pending(sessionId)).toHaveLength(1);
    const resumed = await Session.recover({ store: fresh, escrow: env.escrow, sessionId, policy: FAST });
    // The reservation's "outcome unknown" record was stored at the next seq.
    expect(resumed.count).toBe(before.count + 1);
    expect(fresh.pending(sessionId)).toEqual([]);
    expect((fresh.record(sessionId, before.count) as CallRecord).error).toMatch(/outcome unknown/);

    let ran = 0;
    const again = async () => (ran++, "paid again");
    expect(await resumed.call("pay", AUTH.args, again, { actionId: "pay-1" })).toBe("paid");
    await expect(resumed.call("read", {}, again, { actionId: "read-1" })).rejects.toThrow(RecordedToolError);
    expect(resumed.authorize(AUTH).seq).toBe(0);
    expect(resumed.grant("recipient", "bob@x", { eventId: "grant-1" }).seq).toBe(2);
    await expect(
      resumed.call("pay", { ...AUTH.args, amount: 99 }, again, { actionId: "pay-1" }),
    ).rejects.toThrow(IdempotencyConflictError);
    expect(ran).toBe(0);

    await resumed.call("send_email", { to: "bob@x" }, async () => "sent");
    const closed = await resumed.close();
    expect(closed).toMatchObject({ finalN: before.count + 2, finalRoot: storedRoot(fresh, sessionId) });
  });
});
