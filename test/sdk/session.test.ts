// Session: input checks before a tool runs, idempotency, and close().
// Chain: a bare escrow on the in-process network; no proofs.
import Database from "better-sqlite3";
import { keccak256, toBytes, zeroAddress } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { scopedSessionId } from "../../sdk/chain/escrow.js";
import { canonicalJson, type Json } from "../../sdk/core/canonical.js";
import { encodeRecord } from "../../sdk/core/encoding.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import {
  IdempotencyConflictError,
  InvalidCallError,
  InvalidRecordError,
  PromiseRefError,
  RecordedToolError,
  Session,
  SessionCloseError,
  onChainSession,
  SessionClosedError,
  SessionOpenError,
  type PromiseRef,
} from "../../sdk/provider/session.js";
import type { CallRecord } from "../../sdk/core/records.js";
import type { TraceStore } from "../../sdk/provider/store.js";
import {
  FAST,
  PROFILE,
  flaky,
  freshId,
  openSession,
  sessionEnv,
  sleep,
  storedRoot,
  type SessionEnv,
} from "./session-fixture.js";

const AAP1: PromiseRef = {
  predicate: "AAP-1",
  theta: { gatedTools: ["delete_file", "pay"], acceptedAuthorities: ["human"] },
};

let env: SessionEnv;
beforeAll(async () => {
  env = await sessionEnv();
});

async function open(store: TraceStore, extra: Partial<Parameters<typeof Session.open>[0]> = {}) {
  const { session, sessionId } = await openSession(env, { store, policy: FAST, ...extra });
  return { session, sessionId };
}

/** A tool that records whether it ran. */
function tool<T extends Json>(result: T) {
  const t = { ran: 0, run: async () => (t.ran++, result) };
  return t;
}

describe("call() checks its input before the tool runs", () => {
  const bad: [string, string, { [k: string]: Json }, RegExp, { actionId?: string }?][] = [
    ["unknown tool", "transfer", {}, /not in the session's encoding profile/],
    ["a name from Object.prototype", "constructor", {}, /not in the session's encoding profile/],
    [
      "args that are not an object",
      "read",
      [1] as unknown as { [k: string]: Json },
      /args must be a JSON object/,
    ],
    ["NaN", "read", { x: NaN }, /NaN is not representable/],
    ["Infinity", "read", { x: Infinity }, /Infinity is not representable/],
    ["an integer beyond 2^53", "read", { x: 2 ** 60 }, /beyond 2\^53/],
    ["a non-plain object", "read", { when: new Date(0) as unknown as Json }, /Date is not plain JSON/],
    ["an amount with too many decimals", "pay", { merchant: "m", amount: 1.234 }, /more than 2 decimal/],
    ["a negative amount", "pay", { merchant: "m", amount: -5 }, /negative/],
    ["an amount that is not a number", "pay", { merchant: "m", amount: "12,50" }, /decimal string/],
    ["an amount past 2^64 - 2", "pay", { merchant: "m", amount: "184467440737095516.15" }, /exceeds 2\^64/],
    ["three targets", "send_email", { to: ["a@x", "b@x", "c@x"] }, /at most 2/],
    ["an empty actionId", "read", {}, /actionId must be a non-empty string/, { actionId: "" }],
    ["a gated tool without actionId", "pay", { merchant: "m", amount: 1 }, /AAP-1\) gates this tool/],
  ];

  it.each(bad)(
    "refuses %s: InvalidCallError, nothing run, stored or sent",
    async (_, name, args, message, opts) => {
      const store = env.store();
      const { session, sessionId } = await open(store, { promises: [AAP1] });
      const t = tool("ok");
      const chainBefore = await env.escrow.session(sessionId);
      const call = session.call(name, args, t.run, opts);
      await expect(call).rejects.toThrow(InvalidCallError);
      await expect(call).rejects.toThrow(message);
      expect(t.ran).toBe(0);
      expect(store.count(sessionId)).toBe(0);
      expect(session.count).toBe(0);
      await session.flush();
      expect(await env.escrow.session(sessionId)).toEqual(chainBefore);
      // The session is still usable.
      await session.call("read", { x: 1 }, t.run);
      expect(store.count(sessionId)).toBe(1);
    },
  );

  it("records a failing tool's error and re-throws the same error", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    const boom = new TypeError("mailbox full");
    await expect(session.call("send_email", { to: "a@x" }, async () => Promise.reject(boom))).rejects.toBe(
      boom,
    );
    expect(store.records(sessionId)).toMatchObject([{ seq: 0, tool: "send_email", error: "mailbox full" }]);
  });

  it("records a result JSON cannot carry as a marker, not an error, and returns it to the caller", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    expect(await session.call("read", {}, async () => NaN)).toBeNaN();
    const [record] = store.records(sessionId) as CallRecord[];
    expect(record.error).toBeUndefined();
    expect(record.result).toEqual({
      $unstorable: "$: NaN is not JSON (JSON would write null)",
      preview: `"NaN"`,
    });
  });

  it("stores the record before call() resolves, and the result as returned", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    const result = await session.call("read", { path: "/a" }, async () => ({ lines: ["x", "y"] }));
    expect(result).toEqual({ lines: ["x", "y"] });
    expect(store.records(sessionId)).toMatchObject([
      { kind: "call", tool: "read", result: { lines: ["x", "y"] } },
    ]);
  });

  it("keeps the stored bytes when the agent mutates its args afterwards", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    const args = { to: "alice@x" };
    await session.call("send_email", args, async () => "sent");
    args.to = "mallory@x";
    expect(session.root()).toBe(storedRoot(store, sessionId));
  });
});

describe("authorize / grant / revoke check their input", () => {
  it("refuses bad events with InvalidRecordError and writes nothing", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    const auth = {
      actionId: "a1",
      tool: "pay",
      args: { amount: 1 },
      authority: "human",
      scope: "once",
    } as const;
    expect(() => session.authorize({ ...auth, decision: "maybe" as "allow" })).toThrow(
      /decision must be one of/,
    );
    expect(() => session.authorize({ ...auth, args: undefined, decision: "allow" })).toThrow(
      /args it covers/,
    );
    expect(() => session.authorize({ ...auth, argsHash: `0x${"00".repeat(32)}`, decision: "allow" })).toThrow(
      /disagree/,
    );
    expect(() => session.grant("scope", "relative/dir")).toThrow(InvalidRecordError);
    expect(() => session.grant("scope", "/a/b/c/d/e")).toThrow(/at most 4/);
    expect(() => session.grant("recipient", "")).toThrow(/non-empty/);
    // A lone surrogate anywhere: refused before anything is written, and the tool never runs.
    expect(() => session.grant("recipient", "bob@corp.example\uD800")).toThrow(
      /lone UTF-16 surrogate U\+D800/,
    );
    expect(() => session.authorize({ ...auth, actionId: "a\uDC00", decision: "allow" })).toThrow(/surrogate/);
    let ran = false;
    await expect(
      session.call("read", { q: ["ok", "\uD83D"] }, async () => {
        ran = true;
        return null;
      }),
    ).rejects.toThrow(/surrogate/);
    expect(ran).toBe(false);
    expect(store.count(sessionId)).toBe(0);
  });

  it("computes argsHash from the args, as a call's args slot does", async () => {
    const store = env.store();
    const { session } = await open(store);
    const args = { merchant: "m", amount: 5 };
    const record = session.authorize({
      actionId: "a1",
      tool: "pay",
      args,
      decision: "allow",
      authority: "human",
      scope: "once",
    });
    expect(record).toMatchObject({ argsHash: keccak256(toBytes(canonicalJson(args))) });
  });
});

describe("Session.open refuses bad options before writing anything", () => {
  const cases: [string, Partial<Parameters<typeof Session.open>[0]>, RegExp, new (m: string) => Error][] = [
    [
      "an unknown predicate",
      { promises: [{ predicate: "AAP-9", theta: {} }] },
      /unknown predicate/,
      PromiseRefError,
    ],
    [
      "an unparseable θ",
      { promises: [{ predicate: "AAP-4", theta: { outboundTools: "send_email" } }] },
      /promises\[0\] \(AAP-4\)/,
      PromiseRefError,
    ],
    [
      "a θ the profile cannot serve",
      { promises: [{ predicate: "AAP-4", theta: { outboundTools: ["read"], allowlist: ["a@x"] } }] },
      /does not read a target for outbound tool "read"/,
      PromiseRefError,
    ],
    ["a zero user", { user: zeroAddress }, /non-zero address/, SessionOpenError],
    ["a short session id", { sessionId: "0x1234" }, /32 bytes/, SessionOpenError],
    ["a secret outside the field", { secret: -1n }, /field element/, SessionOpenError],
  ];
  it.each(cases)("%s", async (_, extra, message, type) => {
    const store = env.store();
    const sessionId = freshId();
    const opening = open(store, { sessionId, ...extra });
    await expect(opening).rejects.toThrow(type);
    await expect(opening).rejects.toThrow(message);
    expect(store.session(extra.sessionId ?? sessionId)).toBeUndefined();
    if (!extra.sessionId) expect(await onChainSession(env.escrow, sessionId)).toBeUndefined();
  });

  it("throws SessionOpenError when openSession fails on-chain, and opens nothing", async () => {
    const store = env.store();
    const sessionId = freshId();
    // The provider's own other process opened this id on-chain first (SessionExists).
    await env.escrow.openSession(sessionId, env.user, 1n);
    await expect(open(store, { sessionId })).rejects.toThrow(SessionOpenError);
    await expect(open(store, { sessionId })).rejects.toThrow(/already in the trace store; Session.recover/);
  });

  it("cannot be front-run: a stranger replaying openSession(id) is refused, and the provider's open then succeeds", async () => {
    const store = env.store();
    const sessionId = freshId("front-run");
    await expect(env.escrow.as(env.chain.wallets[3]).openSession(sessionId, env.user, 1n)).rejects.toThrow(
      /ForeignSessionId/,
    );
    const { session } = await open(store, { sessionId });
    expect(session.sessionId).toBe(sessionId);
  });

  it("refuses an id not scoped to its provider before writing anything", async () => {
    const store = env.store();
    const sessionId = scopedSessionId(env.chain.wallets[3].account.address, "not mine");
    await expect(open(store, { sessionId })).rejects.toThrow(/is not scoped to the provider/);
    expect(store.session(sessionId)).toBeUndefined();
  });
});

describe("idempotency", () => {
  it("a repeated actionId with the same call returns the stored result without running the tool", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    const t = tool("sent");
    expect(await session.call("send_email", { to: "a@x" }, t.run, { actionId: "act-1" })).toBe("sent");
    const again = tool("sent twice");
    expect(await session.call("send_email", { to: "a@x" }, again.run, { actionId: "act-1" })).toBe("sent");
    expect([t.ran, again.ran, store.count(sessionId)]).toEqual([1, 0, 1]);
  });

  it("concurrent duplicates run the tool once", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    let runs = 0;
    const slow = async () => (runs++, await sleep(20), "done");
    const results = await Promise.all(
      [1, 2, 3].map(() => session.call("send_email", { to: "a@x" }, slow, { actionId: "act-2" })),
    );
    expect(results).toEqual(["done", "done", "done"]);
    expect([runs, store.count(sessionId)]).toEqual([1, 1]);
  });

  it("a repeated actionId whose first run failed re-throws the stored error", async () => {
    const store = env.store();
    const { session } = await open(store);
    await expect(
      session.call("read", {}, async () => Promise.reject(new Error("disk on fire")), { actionId: "act-3" }),
    ).rejects.toThrow("disk on fire");
    const t = tool("fine now");
    const replay = session.call("read", {}, t.run, { actionId: "act-3" });
    await expect(replay).rejects.toThrow(RecordedToolError);
    await expect(replay).rejects.toThrow("disk on fire");
    expect(t.ran).toBe(0);
  });

  it("refuses an actionId reused for another call, before running it", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    await session.call("send_email", { to: "a@x" }, async () => "sent", { actionId: "act-4" });
    const t = tool("sent");
    for (const [name, args] of [
      ["send_email", { to: "eve@x" }],
      ["read", { to: "a@x" }],
    ] as const) {
      await expect(session.call(name, args, t.run, { actionId: "act-4" })).rejects.toThrow(
        IdempotencyConflictError,
      );
    }
    expect([t.ran, store.count(sessionId)]).toEqual([0, 1]);
  });

  it("eventIds deduplicate authorizations, grants and revokes; other content under one is refused", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    const auth = {
      actionId: "a1",
      tool: "pay",
      args: { merchant: "m", amount: 1 },
      decision: "allow",
      authority: "human",
      scope: "once",
      eventId: "ev-1",
    } as const;
    const first = session.authorize(auth);
    expect(session.authorize(auth)).toEqual(first);
    expect(() => session.authorize({ ...auth, decision: "deny" })).toThrow(IdempotencyConflictError);
    const grant = session.grant("recipient", "bob@x", { eventId: "ev-2" });
    expect(session.grant("recipient", "bob@x", { eventId: "ev-2" })).toEqual(grant);
    expect(() => session.revoke("recipient", "bob@x", { eventId: "ev-2" })).toThrow(IdempotencyConflictError);
    expect(() => session.grant("recipient", "bob@x", { eventId: "ev-1" })).toThrow(IdempotencyConflictError);
    // Without an eventId, two identical events are two records.
    session.revoke("recipient", "bob@x");
    session.revoke("recipient", "bob@x");
    expect(store.records(sessionId).map((r) => r.kind)).toEqual([
      "authorization",
      "grant",
      "revoke",
      "revoke",
    ]);
  });

  it("commits the eventId with the rest of the stored record (the v2 digest covers every field)", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    session.grant("recipient", "bob@x", { eventId: "ev-9" });
    const [stored] = store.records(sessionId);
    expect(stored).toMatchObject({ kind: "grant", eventId: "ev-9" });
    const { eventId: _, ...bare } = stored as typeof stored & { eventId: string };
    const secret = store.session(sessionId)!.secret;
    expect(encodeRecord(stored, PROFILE, secret, 0n).slots).toEqual(
      encodeRecord(bare, PROFILE, secret, 0n).slots,
    );
    expect(encodeRecord(stored, PROFILE, secret, 0n).leaf).not.toBe(
      encodeRecord(bare, PROFILE, secret, 0n).leaf,
    );
  });
});

describe("close()", () => {
  it("commits the root of the stored records, and refuses records afterwards", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    await session.call("read", {}, async () => "x");
    session.grant("recipient", "bob@x");
    await session.call("send_email", { to: ["bob@x", "alice@x"] }, async () => "sent", { actionId: "s1" });
    const closed = await session.close();
    expect(closed).toMatchObject({ finalN: 3, finalRoot: storedRoot(store, sessionId) });
    expect(await env.escrow.session(sessionId)).toMatchObject({
      closed: true,
      finalN: 3,
      finalRoot: closed.finalRoot,
    });
    expect(store.checkpoints(sessionId)).toContainEqual({ n: 3, root: closed.finalRoot, final: true });
    await expect(session.call("read", {}, async () => "x")).rejects.toThrow(SessionClosedError);
    expect(() => session.grant("recipient", "x@x")).toThrow(SessionClosedError);
    expect(await session.close()).toEqual(closed);
  });

  it("waits for a call in flight, and refuses calls that start after it", async () => {
    const store = env.store();
    const { session, sessionId } = await open(store);
    let finish!: (v: string) => void;
    const inFlight = session.call(
      "send_email",
      { to: "a@x" },
      () => new Promise<string>((r) => (finish = r)),
    );
    await sleep(5);
    const closing = session.close();
    await expect(session.call("read", {}, async () => "late")).rejects.toThrow(SessionClosedError);
    await sleep(20);
    expect((await env.escrow.session(sessionId)).closed).toBe(false);
    finish("sent");
    expect(await inFlight).toBe("sent");
    expect((await closing).finalN).toBe(1);
    expect(store.count(sessionId)).toBe(1);
  });

  it("retries a closeSession that fails transiently", async () => {
    const store = env.store();
    const f = flaky(env.escrow);
    const log = memoryLogger();
    const { session, sessionId } = await open(store, { escrow: f.escrow, log });
    await session.call("read", {}, async () => "x");
    f.fail("closeSession", 2);
    const closed = await session.close();
    expect(f.attempts.closeSession).toBe(3);
    expect(log.entries.filter((e) => e.event === "close.failed").map((e) => e.fields.attempt)).toEqual([
      1, 2,
    ]);
    expect((await env.escrow.session(sessionId)).finalRoot).toBe(closed.finalRoot);
  });

  it("refuses to commit when the store lost an acknowledged record", async () => {
    const name = `lost-${Date.now()}`;
    const store = env.store(name);
    const { session, sessionId } = await open(store);
    for (const i of [1, 2, 3]) await session.call("read", { i }, async () => "x");
    // Corruption from outside: drop the append-only trigger and a row.
    const raw = new Database(env.path(name));
    raw.exec("DROP TRIGGER records_no_delete");
    raw.prepare("DELETE FROM records WHERE seq = 2").run();
    raw.close();
    await expect(session.close()).rejects.toThrow(SessionCloseError);
    await expect(session.close()).rejects.toThrow(/holds 2 records, the recorder acknowledged 3/);
    expect((await env.escrow.session(sessionId)).closed).toBe(false);
  });
});
