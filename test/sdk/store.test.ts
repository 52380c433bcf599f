import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { StoreConflictError, StoreError, TraceStore } from "../../sdk/provider/store.js";
import type { TraceRecord } from "../../sdk/core/records.js";

const SESSION = `0x${"ab".repeat(32)}` as const;
const profile = { version: 1 as const, tools: { send_email: { target: "to" } } };
const rec = (seq: number, to = "a@x"): TraceRecord => ({
  kind: "call",
  seq,
  ts: 1,
  tool: "send_email",
  args: { to },
});

function fresh() {
  const path = join(mkdtempSync(join(tmpdir(), "zkvai-store-")), "t.sqlite");
  const store = TraceStore.open(path);
  store.createSession({ sessionId: SESSION, secret: 5n, profile, user: `0x${"11".repeat(20)}` });
  return { store, path };
}

describe("TraceStore (append-only)", () => {
  it("appends in seq order and reads back the same records", () => {
    const { store } = fresh();
    expect(store.append(SESSION, rec(0))).toBe("inserted");
    expect(store.append(SESSION, rec(1, "b@x"))).toBe("inserted");
    expect(store.records(SESSION)).toEqual([rec(0), rec(1, "b@x")]);
  });

  it("treats a byte-identical rewrite as an idempotent retry", () => {
    const { store } = fresh();
    store.append(SESSION, rec(0));
    expect(store.append(SESSION, rec(0))).toBe("duplicate");
  });

  it("refuses to overwrite a seq with other content, and keeps the original", () => {
    const { store } = fresh();
    store.append(SESSION, rec(0));
    expect(() => store.append(SESSION, rec(0, "mallory@evil"))).toThrow(StoreConflictError);
    expect(store.records(SESSION)).toEqual([rec(0)]);
  });

  it("refuses gaps and unknown sessions", () => {
    const { store } = fresh();
    expect(() => store.append(SESSION, rec(1))).toThrow(/expected seq 0/);
    expect(() => store.append(`0x${"cd".repeat(32)}`, rec(0))).toThrow(StoreError);
  });

  it("refuses UPDATE and DELETE even from outside this class", () => {
    const { store, path } = fresh();
    store.append(SESSION, rec(0));
    store.close();
    const raw = new Database(path);
    expect(() => raw.prepare("UPDATE records SET body = '{}'").run()).toThrow(/append-only/);
    expect(() => raw.prepare("DELETE FROM records").run()).toThrow(/append-only/);
    raw.close();
    expect(TraceStore.open(path).records(SESSION)).toEqual([rec(0)]);
  });

  it("refuses a session re-created with another secret or profile", () => {
    const { store } = fresh();
    expect(() =>
      store.createSession({ sessionId: SESSION, secret: 6n, profile, user: `0x${"11".repeat(20)}` }),
    ).toThrow(StoreConflictError);
  });
});
