// Guard mode (opt-in, fail-closed, P8): a call that would turn a satisfied promise violated is
// not run and is recorded as blocked; no call runs while the store cannot take a write.
import { beforeAll, describe, expect, it } from "vitest";
import { encodeSlots, KIND } from "../../sdk/core/encoding.js";
import { predicateById } from "../../sdk/core/predicates/index.js";
import {
  GuardRefusal,
  RecordWriteError,
  StoreUnavailableError,
  type PromiseRef,
} from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { FAST, PROFILE, openSession, sessionEnv, type SessionEnv } from "./session-fixture.js";

const AAP4: PromiseRef = {
  predicate: "AAP-4",
  theta: { outboundTools: ["send_email"], allowlist: ["alice@x"] },
};
const AAP1: PromiseRef = {
  predicate: "AAP-1",
  theta: { gatedTools: ["delete_file"], acceptedAuthorities: ["human"] },
};
const AAP5: PromiseRef = {
  predicate: "AAP-5",
  theta: { countedTools: ["send_email"], maxCount: 1, summedTools: [] },
};

let env: SessionEnv;
beforeAll(async () => {
  env = await sessionEnv();
});

async function open(promises: PromiseRef[], opts: { guard?: boolean; name?: string } = {}) {
  return openSession(env, { store: env.store(opts.name), policy: FAST, promises, guard: opts.guard ?? true });
}

function verdict(ref: PromiseRef, store: TraceStore, sessionId: `0x${string}`) {
  const def = predicateById(ref.predicate);
  return def.evaluate(store.records(sessionId), def.parseTheta(ref.theta), PROFILE);
}

describe("guard mode", () => {
  it("refuses a call that would violate a promise: not run, recorded as blocked, trace still satisfied", async () => {
    const { session, sessionId, store } = await open([AAP4]);
    let sent = 0;
    const send = async () => (sent++, "sent");
    await session.call("send_email", { to: "alice@x" }, send);
    const refused = session.call("send_email", { to: ["alice@x", "eve@evil"] }, send);
    await expect(refused).rejects.toThrow(GuardRefusal);
    await expect(refused).rejects.toMatchObject({
      predicate: "AAP-4",
      promiseIndex: 0,
      seq: 1,
      reason: expect.stringContaining("eve@evil"),
    });
    expect(sent).toBe(1);
    const [, blocked] = store.records(sessionId);
    expect(blocked).toMatchObject({
      kind: "call",
      blocked: true,
      error: expect.stringMatching(/refused by guard/),
    });
    expect(encodeSlots(blocked, PROFILE)[0]).toBe(KIND.blocked);
    // A blocked record is not a call: the promise still holds, and the session goes on.
    expect(verdict(AAP4, store, sessionId).violated).toBe(false);
    await session.call("read", {}, async () => "ok");
    expect((await session.close()).finalN).toBe(3);
  });

  it("lets a gated call through once it is authorized; the refusal consumed nothing", async () => {
    const { session, sessionId, store } = await open([AAP1]);
    const args = { path: "/tmp/x" };
    let deleted = 0;
    const del = async () => (deleted++, "deleted");
    await expect(session.call("delete_file", args, del, { actionId: "rm-1" })).rejects.toThrow(
      /no earlier authorization/,
    );
    session.authorize({
      actionId: "rm-1",
      tool: "delete_file",
      args,
      decision: "allow",
      authority: "human",
      scope: "once",
    });
    expect(await session.call("delete_file", args, del, { actionId: "rm-1" })).toBe("deleted");
    // The same action again is a replay, not a second execution.
    expect(await session.call("delete_file", args, del, { actionId: "rm-1" })).toBe("deleted");
    expect(deleted).toBe(1);
    expect(store.records(sessionId).map((r) => [r.kind, r.kind === "call" && !!r.blocked])).toEqual([
      ["call", true],
      ["authorization", false],
      ["call", false],
    ]);
    expect(verdict(AAP1, store, sessionId).violated).toBe(false);
  });

  it("runs concurrent calls one at a time, so each check sees the calls before it", async () => {
    const { session, sessionId, store } = await open([AAP5]);
    const results = await Promise.allSettled(
      ["alice@x", "bob@x"].map((to) => session.call("send_email", { to }, async () => "sent")),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(GuardRefusal);
    expect(verdict(AAP5, store, sessionId).violated).toBe(false);
  });

  it("does not refuse calls once a promise is already violated (nothing left to prevent)", async () => {
    const { session, sessionId, store } = await open([AAP4]);
    // Recorded outside call(), e.g. by a harness that ran it unguarded.
    session.append({ kind: "call", tool: "send_email", args: { to: "eve@evil" }, result: "sent" });
    expect(await session.call("send_email", { to: "mallory@evil" }, async () => "sent")).toBe("sent");
    expect(verdict(AAP4, store, sessionId)).toMatchObject({ violated: true, seq: 0 });
  });

  it("runs no call while the store cannot take a write", async () => {
    const name = `guard-closed-${Date.now()}`;
    const { session, sessionId, store } = await open([AAP4], { name });
    await session.call("read", {}, async () => "ok");
    store.close();
    let ran = 0;
    await expect(session.call("read", {}, async () => (ran++, "ok"))).rejects.toThrow(StoreUnavailableError);
    expect(ran).toBe(0);
    const reopened = TraceStore.open(env.path(name));
    expect(reopened.count(sessionId)).toBe(1);
    reopened.ping();
    reopened.close();
  });

  it("without guard mode, the same call runs and then reports the lost record", async () => {
    const name = `unguarded-closed-${Date.now()}`;
    const { session, store } = await open([], { guard: false, name });
    store.close();
    let ran = 0;
    await expect(session.call("read", {}, async () => (ran++, "ok"))).rejects.toThrow(RecordWriteError);
    expect(ran).toBe(1);
  });
});
