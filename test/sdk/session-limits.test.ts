// Issue 16, findings 6 and 8: a tool that ran always leaves a record, and the sizes a record
// may take are bounded. A result that cannot be stored becomes the call's error record; args
// that could not be stored, or that JSON would silently change (`undefined`), are refused
// before the tool runs.
import { beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../sdk/core/canonical.js";
import {
  InvalidCallError,
  InvalidRecordError,
  MAX_ARG_BYTES,
  MAX_ERROR_CHARS,
  MAX_RECORD_BYTES,
  MAX_RESULT_BYTES,
  UnrecordableResultError,
} from "../../sdk/session.js";
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

describe("a result that cannot be stored is recorded as the call's error", () => {
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
  const cases: [string, () => unknown, RegExp][] = [
    ["a cyclic result", cyclic, /\$\.me: cycle/],
    ["a result nested 50,000 deep", () => deep(50_000), /nested deeper than 256 levels/],
    ["a getter that throws", throwing, /\$\.secret: reading it threw: getter exploded/],
    [
      "a result over MAX_RESULT_BYTES",
      () => ({ blob: mib(1.5) }),
      /over the 1048576-byte limit \(MAX_RESULT_BYTES\)/,
    ],
    ["a BigInt", () => 5n, /bigint is not JSON/],
  ];

  it.each(cases)(
    "%s: the tool ran once, its call is in the trace, and the root matches",
    async (_, make, reason) => {
      const { session, sessionId, store } = await open();
      let ran = 0;
      const call = session.call("read", { q: 1 }, async () => (ran++, make() as Json));
      await expect(call).rejects.toThrow(UnrecordableResultError);
      await expect(call).rejects.toThrow(/recorded as its error at seq 0/);
      expect(ran).toBe(1);
      const [record] = store.records(sessionId) as CallRecord[];
      expect(record).toMatchObject({ seq: 0, tool: "read", args: { q: 1 } });
      expect(record.result).toBeUndefined();
      expect(record.error).toMatch(/^the result is not recordable JSON: /);
      expect(record.error).toMatch(reason);
      expect(session.root()).toBe(storedRoot(store, sessionId));
      // The session goes on.
      expect(await session.call("read", {}, async () => "fine")).toBe("fine");
      expect(store.count(sessionId)).toBe(2);
    },
  );

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
      args: { a: mib(0.9), b: mib(0.9), c: mib(0.9) },
      result: mib(1.5),
    } as const;
    expect(() => session.append(big)).toThrow(/MAX_RECORD_BYTES/);
    const record = { ...big, seq: 0, ts: 1 } as CallRecord;
    expect(() => store.append(sessionId, record)).toThrow(RecordSizeError);
    expect(store.count(sessionId)).toBe(0);
  });
});
