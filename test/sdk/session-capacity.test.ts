// The Session knows what can be settled: a record past the largest circuit the escrow registers for the
// session's promises is refused before its tool runs (BeyondCapacityError), or, with beyondCapacity: "warn",
// recorded with one warning. The escrow here registers AAP-4 at 4 and 8 records and AAP-1 at 4.
import { beforeAll, describe, expect, it } from "vitest";
import { memoryLogger } from "../../sdk/provider/log.js";
import { BeyondCapacityError, SessionOpenError } from "../../sdk/provider/session.js";
import { openSession, sessionEnv, type SessionEnv } from "./session-fixture.js";

const AAP4 = { predicate: "AAP-4", theta: { outboundTools: ["send_email"], allowlist: ["bob@x"] } };
const AAP1 = { predicate: "AAP-1", theta: { gatedTools: ["delete_file"], acceptedAuthorities: ["human"] } };

let env: SessionEnv;
beforeAll(async () => {
  env = await sessionEnv(10, [
    { predicateId: 4, capacity: 4 },
    { predicateId: 4, capacity: 8 },
    { predicateId: 1, capacity: 4 },
  ]);
});

describe("records past what the escrow's circuits can prove", () => {
  it("are refused before the tool runs, by default, at the largest capacity of the promise's predicate", async () => {
    const { session, store, sessionId } = await openSession(env, { promises: [AAP4] });
    for (let i = 0; i < 7; i++) await session.call("read", { i }, async () => "ok");
    session.grant("recipient", "carol@x"); // events count too: the 8th record
    let ran = false;
    await expect(
      session.call("read", { i: 8 }, async () => {
        ran = true;
        return "ok";
      }),
    ).rejects.toThrow(BeyondCapacityError);
    expect(ran).toBe(false);
    expect(() => session.grant("recipient", "dave@x")).toThrow(/at most 8/);
    expect(store.count(sessionId)).toBe(8);
    expect((await session.close()).finalN).toBe(8);
  });

  it("take the smallest of the promises' largest capacities (AAP-1 at 4 here)", async () => {
    const { session } = await openSession(env, { promises: [AAP4, AAP1] });
    for (let i = 0; i < 4; i++) await session.call("read", { i }, async () => "ok");
    await expect(session.call("read", {}, async () => "ok")).rejects.toThrow(BeyondCapacityError);
    await session.close();
  });

  it("count calls still running, so concurrent calls cannot overshoot", async () => {
    const { session, store, sessionId } = await openSession(env, { promises: [AAP1] });
    const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve("ok"), 20));
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => session.call("read", { i }, slow)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4);
    expect(
      results.filter((r) => r.status === "rejected" && r.reason instanceof BeyondCapacityError),
    ).toHaveLength(2);
    expect(store.count(sessionId)).toBe(4);
    await session.close();
  });

  it('with beyondCapacity: "warn" are recorded, with one warning', async () => {
    const log = memoryLogger();
    const { session, store, sessionId } = await openSession(env, {
      promises: [AAP1],
      beyondCapacity: "warn",
      log,
    });
    for (let i = 0; i < 6; i++) await session.call("read", { i }, async () => "ok");
    expect(store.count(sessionId)).toBe(6);
    const warnings = log.entries.filter((e) => e.event === "session.beyond_capacity");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ records: 4, capacity: 4 });
    await session.close();
  });

  it("a bad beyondCapacity is refused at open, before anything is written", async () => {
    await expect(
      openSession(env, { promises: [AAP1], beyondCapacity: "ignore" as unknown as "warn" }),
    ).rejects.toThrow(SessionOpenError);
  });
});
