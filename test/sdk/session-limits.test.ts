// Issue 16, findings 6 and 8: a tool that ran always leaves a record, and the sizes a record
// may take are bounded. Issue 33 item 8: a result that cannot be stored as it is becomes a
// `$unstorable` marker (never an error), and the caller still gets the tool's value; args
// that could not be stored, or that JSON would silently change (`undefined`), are refused
// before the tool runs.
import { beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../sdk/core/canonical.js";
import {
  InvalidCallError,
  InvalidRecordError,
  MAX_ACTION_ID_CHARS,
  MAX_ARG_BYTES,
  MAX_ERROR_CHARS,
  MAX_RECORD_BYTES,
  MAX_PREVIEW_CHARS,
  MAX_RESULT_BYTES,
} from "../../sdk/provider/session.js";
import { RecordSizeError, type CallRecord } from "../../sdk/core/records.js";
import { FAST, openSession, sessionEnv, storedRoot, type SessionEnv } from "./session-fixture.js";

let env: SessionEnv;
beforeAll(async () => {
  env = await sessionEnv();
});

const open = () => openSession(env, { policy: FAST });
const mib = (n: number) => "x".repeat(Math.round(n * 2 ** 20));

function deep(depth: number): Json {
  let v: Json = 0;
  for (let i = 0; i < depth; i++) v = { v };
  return v;
}

describe("a result that cannot be stored is recorded as a marker, and the caller gets it", () => {
  const cyclic = () => {
    const o: Record<string, unknown> = { ok: true };
    o.me = o;
    return o;
  };
  const throwing = () => ({
    get secret(): string {
      throw new Error("getter exploded");
    },
  });
  // Answers the first read and throws on the next: the check and the write must see one copy.
  const flipping = () => {
    let reads = 0;
    return {
      get v(): string {
        if (reads++ > 0) throw new Error("second read");
        return "first";
      },
    };
  };
  const cases: [string, () => unknown, RegExp, RegExp][] = [
    ["a cyclic result", cyclic, /\$\.me: cycle/, /"me":"\[seen above\]"/],
    [
      "a result nested 50,000 deep",
      () => deep(50_000),
      /nested deeper than 256 levels/,
      /^\[object Object\]$/,
    ],
    [
      "a getter that throws",
      throwing,
      /\$\.secret: reading it threw: getter exploded/,
      /^\[object Object\]$/,
    ],
    [
      "a result over MAX_RESULT_BYTES",
      () => ({ blob: mib(1.5) }),
      /over the 1048576-byte limit \(MAX_RESULT_BYTES\)/,
      /^\{"blob":"xxx.*more characters cut\)$/,
    ],
    ["a BigInt", () => 5n, /\$: bigint is not JSON/, /^"5n"$/],
    [
      "a BigInt inside",
      () => ({ wei: 10n ** 30n }),
      /\$\.wei: bigint is not JSON/,
      /^\{"wei":"1000000000000000000000000000000n"\}$/,
    ],
    [
      "a function",
      () => ({ ok: true, next: () => 1 }),
      /\$\.next: function is not JSON/,
      /"next":"\[function next\]"/,
    ],
    [
      "a Map",
      () => new Map([["a", 1]]),
      /\$: Map is not plain JSON and has no toJSON/,
      /^\{"\[Map\]":\[\["a",1\]\]\}$/,
    ],
    ["undefined in an array", () => [1, undefined], /\$\[1\]: undefined in an array/, /^\[1,null\]$/],
  ];

  it.each(cases)(
    "%s: the tool ran once, the caller gets its value, the record holds the marker, and the root matches",
    async (_, make, reason, preview) => {
      const { session, sessionId, store } = await open();
      let ran = 0;
      let returned: unknown;
      const got = await session.call("read", { q: 1 }, async () => (ran++, (returned = make())));
      expect(got).toBe(returned);
      expect(ran).toBe(1);
      const [record] = store.records(sessionId) as CallRecord[];
      expect(record).toMatchObject({ seq: 0, tool: "read", args: { q: 1 } });
      expect(record.error).toBeUndefined();
      const marker = record.result as { $unstorable: string; preview: string };
      expect(Object.keys(marker).sort()).toEqual(["$unstorable", "preview"]);
      expect(marker.$unstorable).toMatch(reason);
      expect(marker.preview).toMatch(preview);
      expect(marker.preview.length).toBeLessThanOrEqual(MAX_PREVIEW_CHARS);
      expect(session.root()).toBe(storedRoot(store, sessionId));
      // The session goes on.
      expect(await session.call("read", {}, async () => "fine")).toBe("fine");
      expect(store.count(sessionId)).toBe(2);
    },
  );

  it("stores what JSON carries through toJSON (a Date) as JSON carries it, and returns the Date", async () => {
    const { session, sessionId, store } = await open();
    const when = new Date(Date.UTC(2026, 11, 4, 13, 0, 0));
    const custom = { toJSON: (key: string) => ({ key, kind: "custom" }) };
    const result = { sentAt: when, list: [when], custom, skipped: undefined };
    const got = await session.call("read", {}, async () => result);
    expect(got).toBe(result);
    expect(got.sentAt).toBeInstanceOf(Date);
    const [record] = store.records(sessionId) as CallRecord[];
    expect(record.error).toBeUndefined();
    expect(record.result).toEqual(JSON.parse(JSON.stringify(result)));
    expect(record.result).toEqual({
      sentAt: "2026-12-04T13:00:00.000Z",
      list: ["2026-12-04T13:00:00.000Z"],
      custom: { key: "custom", kind: "custom" },
    });
    // A replayed actionId returns what was stored: the date as JSON carried it.
    expect(await session.call("read", { id: 1 }, async () => result, { actionId: "x" })).toBe(result);
    const replayed = await session.call("read", { id: 1 }, async () => ({ ran: "again" }), { actionId: "x" });
    expect(replayed).toEqual(JSON.parse(JSON.stringify(result)));
  });

  it("a top-level Date is stored as its ISO text", async () => {
    const { session, sessionId, store } = await open();
    const when = new Date(0);
    expect(await session.call("read", {}, async () => when)).toBe(when);
    expect((store.records(sessionId)[0] as CallRecord).result).toBe("1970-01-01T00:00:00.000Z");
  });

  it("stores a result read once, even if its getter would throw on a second read", async () => {
    const { session, sessionId, store } = await open();
    const result = await session.call("read", {}, async () => flipping() as unknown as Json);
    expect(result).toBeDefined();
    expect(store.records(sessionId)).toMatchObject([{ result: { v: "first" } }]);
  });

  it("records a result of exactly MAX_RESULT_BYTES", async () => {
    const { session, sessionId, store } = await open();
    const blob = "y".repeat(MAX_RESULT_BYTES - 2); // plus its two quotes
    await session.call("read", {}, async () => blob);
    expect((store.records(sessionId)[0] as CallRecord).result).toBe(blob);
  });
});

describe("a tool's error is always recordable", () => {
  const hostile: [string, () => unknown, RegExp][] = [
    ["a message with a lone surrogate", () => new Error("bad \uD800 byte"), /^bad \uFFFD byte$/],
    ["a 5 MiB message", () => new Error(mib(5)), /more characters cut\)$/],
    [
      "a message getter that throws",
      () => ({
        get message(): string {
          throw new Error("nope");
        },
      }),
      /cannot be described/,
    ],
    ["an empty message", () => new RangeError(""), /^RangeError$/],
    ["a thrown string", () => "plain string", /^plain string$/],
    ["a thrown null-prototype object", () => Object.create(null), /cannot be described/],
  ];

  it.each(hostile)("%s: re-thrown as is, and recorded", async (_, make, text) => {
    const { session, sessionId, store } = await open();
    const thrown = make();
    await expect(session.call("read", {}, async () => Promise.reject(thrown))).rejects.toBe(thrown);
    const [record] = store.records(sessionId) as CallRecord[];
    expect(record.error).toMatch(text);
    expect(record.error!.length).toBeLessThanOrEqual(MAX_ERROR_CHARS);
  });
});

describe("args are refused before the tool runs unless their record can be stored as given", () => {
  const bad: [string, () => unknown, RegExp][] = [
    ["an undefined value", () => ({ x: undefined }), /\$\.x is undefined, which JSON cannot carry/],
    ["a nested undefined value", () => ({ to: "a@x", opts: { cc: undefined } }), /\$\.opts\.cc is undefined/],
    ["one value over MAX_ARG_BYTES", () => ({ body: mib(1.1) }), /args\.body is \d+ bytes.*MAX_ARG_BYTES/],
    [
      "args whose record would leave no room for a result",
      () => ({ a: mib(0.9), b: mib(0.9), c: mib(0.9), d: mib(0.9) }),
      /MAX_RECORD_BYTES − MAX_RESULT_BYTES/,
    ],
    [
      "cyclic args",
      () => {
        const a: Record<string, unknown> = {};
        a.a = a;
        return a;
      },
      /cycle/,
    ],
    ["args nested 50,000 deep", () => ({ d: deep(50_000) }), /nested deeper/],
    [
      "args with a throwing getter",
      () => ({
        get to(): string {
          throw new Error("hidden");
        },
      }),
      /reading it threw: hidden/,
    ],
  ];

  it.each(bad)("%s: InvalidCallError, nothing run or stored", async (_, make, message) => {
    const { session, sessionId, store } = await open();
    let ran = 0;
    const call = session.call("send_email", make() as { [k: string]: Json }, async () => (ran++, "sent"));
    await expect(call).rejects.toThrow(InvalidCallError);
    await expect(call).rejects.toThrow(message);
    expect([ran, store.count(sessionId), session.count]).toEqual([0, 0, 0]);
  });

  it("accepts one value of exactly MAX_ARG_BYTES", async () => {
    const { session, sessionId, store } = await open();
    await session.call("read", { body: "z".repeat(MAX_ARG_BYTES - 2) }, async () => null);
    expect(store.count(sessionId)).toBe(1);
  });

  it("records the args as they were at the call, whatever a getter answers later", async () => {
    const { session, sessionId, store } = await open();
    let reads = 0;
    const args = {
      get to(): string {
        return reads++ === 0 ? "alice@x" : "mallory@x";
      },
    };
    await session.call("send_email", args, async () => "sent");
    expect(store.records(sessionId)).toMatchObject([{ args: { to: "alice@x" } }]);
  });

  it("refuses undefined in an authorization's args, and an event over MAX_RECORD_BYTES", async () => {
    const { session, sessionId, store } = await open();
    const auth = {
      actionId: "a1",
      tool: "pay",
      decision: "allow",
      authority: "human",
      scope: "once",
    } as const;
    expect(() =>
      session.authorize({ ...auth, args: { merchant: "m", amount: undefined as unknown as Json } }),
    ).toThrow(/\$\.amount is undefined/);
    const huge = `${"v".repeat(MAX_RECORD_BYTES)}@x`;
    expect(() => session.grant("recipient", huge)).toThrow(InvalidRecordError);
    expect(() => session.grant("recipient", huge)).toThrow(/MAX_RECORD_BYTES/);
    expect(store.count(sessionId)).toBe(0);
  });

  it("refuses an appended record over MAX_RECORD_BYTES, and the store refuses one too", async () => {
    const { session, sessionId, store } = await open();
    const big = {
      kind: "call",
      tool: "read",
      args: { a: mib(0.9), b: mib(0.9), c: mib(0.9), d: mib(0.9) },
      result: mib(0.9),
    } as const;
    expect(() => session.append(big)).toThrow(/MAX_RECORD_BYTES/);
    const record = { ...big, seq: 0, ts: 1 } as CallRecord;
    expect(() => store.append(sessionId, record)).toThrow(RecordSizeError);
    expect(store.count(sessionId)).toBe(0);
  });
});

describe("one size rule for call() and append() (issue 34 item 7)", () => {
  it("append() refuses a result over MAX_RESULT_BYTES, as call() keeps it out of the record", async () => {
    const { session, sessionId, store } = await open();
    const over = { kind: "call", tool: "read", args: {}, result: mib(2) } as const;
    expect(() => session.append(over)).toThrow(InvalidCallError);
    expect(() => session.append(over)).toThrow(/over the 1048576-byte limit \(MAX_RESULT_BYTES\)/);
    expect(store.count(sessionId)).toBe(0);
    // call() with the same result: the tool ran, so it is recorded, as a marker naming the same limit.
    await session.call("read", {}, async () => mib(2));
    const [called] = store.records(sessionId) as CallRecord[];
    expect((called.result as { $unstorable: string }).$unstorable).toMatch(/\(MAX_RESULT_BYTES\)/);
    // Exactly the limit is taken by both.
    const blob = "y".repeat(MAX_RESULT_BYTES - 2);
    session.append({ kind: "call", tool: "read", args: {}, result: blob });
    await session.call("read", {}, async () => blob);
    expect((store.records(sessionId) as CallRecord[]).slice(1).map((r) => r.result)).toEqual([blob, blob]);
  });
});

describe("actionId and eventId are at most MAX_ACTION_ID_CHARS (issue 34 item 7)", () => {
  const long = "a".repeat(MAX_ACTION_ID_CHARS + 1);
  const limit = "b".repeat(MAX_ACTION_ID_CHARS);

  it("refuses a longer actionId before the tool runs, and takes one of exactly the limit", async () => {
    const { session, sessionId, store } = await open();
    let ran = 0;
    const call = session.call("read", {}, async () => ran++, { actionId: long });
    await expect(call).rejects.toThrow(InvalidCallError);
    await expect(call).rejects.toThrow(
      /actionId is 257 characters, over the 256-character limit \(MAX_ACTION_ID_CHARS\)/,
    );
    expect(() => session.append({ kind: "call", tool: "read", args: {}, actionId: long })).toThrow(
      /MAX_ACTION_ID_CHARS/,
    );
    expect(ran).toBe(0);
    expect(store.count(sessionId)).toBe(0);
    await session.call("read", {}, async () => ran++, { actionId: limit });
    expect(store.records(sessionId)).toMatchObject([{ actionId: limit }]);
  });

  it("refuses an authorization or grant whose actionId or eventId is longer", async () => {
    const { session, sessionId, store } = await open();
    const auth = { tool: "pay", args: {}, decision: "allow", authority: "human", scope: "once" } as const;
    expect(() => session.authorize({ ...auth, actionId: long })).toThrow(InvalidRecordError);
    expect(() => session.authorize({ ...auth, actionId: "a1", eventId: long })).toThrow(/eventId is 257/);
    expect(() => session.grant("recipient", "x@y", { eventId: long })).toThrow(/MAX_ACTION_ID_CHARS/);
    expect(store.count(sessionId)).toBe(0);
    session.authorize({ ...auth, actionId: limit, eventId: limit });
    expect(store.count(sessionId)).toBe(1);
  });
});
