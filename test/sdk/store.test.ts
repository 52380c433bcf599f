// The trace store's contract, run against both stores (store-backends.ts): SQLite for a file path, Postgres
// for a postgres:// URL, each from TraceStore.open. Anything one keeps and the other does not fails here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreConflictError, StoreError, type TraceStore } from "../../sdk/provider/store.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { BACKENDS, type FreshStore } from "./store-backends.js";

const SESSION = `0x${"ab".repeat(32)}` as const;
const OTHER = `0x${"cd".repeat(32)}` as const;
const USER = `0x${"11".repeat(20)}` as const;
const profile = { version: 1 as const, tools: { send_email: { target: "to" } } };
const rec = (seq: number, to = "a@x"): TraceRecord => ({
  kind: "call",
  seq,
  ts: 1,
  tool: "send_email",
  args: { to },
});
const unknownOutcome = (seq: number, to: string): TraceRecord => ({
  kind: "call",
  seq,
  ts: 1,
  tool: "send_email",
  args: { to },
  error: "outcome unknown",
});

describe.each(BACKENDS)("TraceStore on $name", (backend) => {
  beforeAll(() => backend.setup());
  afterAll(() => backend.teardown());

  async function fresh(): Promise<FreshStore & { store: TraceStore }> {
    const f = await backend.fresh();
    f.store.createSession({ sessionId: SESSION, secret: 5n, profile, user: USER });
    return f;
  }

  it("appends in seq order and reads back the same records", async () => {
    const { store } = await fresh();
    expect(store.append(SESSION, rec(0))).toBe("inserted");
    expect(store.append(SESSION, rec(1, "b@x"))).toBe("inserted");
    expect(store.records(SESSION)).toEqual([rec(0), rec(1, "b@x")]);
    expect(store.record(SESSION, 1)).toEqual(rec(1, "b@x"));
    expect(store.record(SESSION, 2)).toBeUndefined();
    expect(store.count(SESSION)).toBe(2);
  });

  it("treats a byte-identical rewrite as an idempotent retry", async () => {
    const { store } = await fresh();
    store.append(SESSION, rec(0));
    expect(store.append(SESSION, rec(0))).toBe("duplicate");
    expect(store.count(SESSION)).toBe(1);
  });

  it("refuses to overwrite a seq with other content, and keeps the original", async () => {
    const { store } = await fresh();
    store.append(SESSION, rec(0));
    expect(() => store.append(SESSION, rec(0, "mallory@evil"))).toThrow(StoreConflictError);
    expect(store.records(SESSION)).toEqual([rec(0)]);
  });

  it("refuses gaps and unknown sessions", async () => {
    const { store } = await fresh();
    expect(() => store.append(SESSION, rec(1))).toThrow(/expected seq 0/);
    store.append(SESSION, rec(0));
    expect(() => store.append(SESSION, rec(2))).toThrow(/expected seq 1/);
    expect(() => store.append(OTHER, rec(0))).toThrow(StoreError);
  });

  it("keeps each session's seqs contiguous and its own, whichever connection appends", async () => {
    const { store, reopen } = await fresh();
    const second = reopen();
    second.createSession({ sessionId: OTHER, secret: 7n, profile, user: USER });
    for (let i = 0; i < 20; i++) {
      const [a, b] = i % 2 ? [store, second] : [second, store];
      expect(a.append(SESSION, rec(i, `s${i}`))).toBe("inserted");
      expect(b.append(OTHER, rec(i, `o${i}`))).toBe("inserted");
    }
    expect(store.records(SESSION).map((r) => r.seq)).toEqual([...Array(20).keys()]);
    expect(second.records(OTHER)).toEqual([...Array(20).keys()].map((i) => rec(i, `o${i}`)));
  });

  it("acknowledges an append only once another connection can read it back", async () => {
    const { store, reopen } = await fresh();
    const reader = reopen();
    for (let i = 0; i < 5; i++) {
      store.append(SESSION, rec(i, `${i}@x`));
      expect(reader.record(SESSION, i)).toEqual(rec(i, `${i}@x`));
    }
  });

  it("refuses UPDATE and DELETE even from outside this class", async () => {
    const { store, raw, reopen } = await fresh();
    store.append(SESSION, rec(0));
    store.close();
    await expect(raw("UPDATE records SET body = '{}'")).rejects.toThrow(/append-only/);
    await expect(raw("DELETE FROM records")).rejects.toThrow(/append-only/);
    await expect(raw("UPDATE sessions SET secret = '6'")).rejects.toThrow(/append-only/);
    expect(reopen().records(SESSION)).toEqual([rec(0)]);
  });

  it("refuses a session re-created with another secret or profile, and takes the same again", async () => {
    const { store } = await fresh();
    expect(() => store.createSession({ sessionId: SESSION, secret: 6n, profile, user: USER })).toThrow(
      StoreConflictError,
    );
    const again = store.createSession({ sessionId: SESSION, secret: 5n, profile, user: USER });
    expect(again).toMatchObject({ sessionId: SESSION, secret: 5n, user: USER, profile });
    expect(store.session(OTHER)).toBeUndefined();
  });

  it("keeps a reservation out of the seqs, completes it at the next one, and settles what was left", async () => {
    const { store } = await fresh();
    const first = store.reserve(SESSION, unknownOutcome(0, "r1@x"));
    // Other records go on while the reserved call's tool runs.
    store.append(SESSION, rec(0));
    expect(store.pending(SESSION)).toEqual([{ reservation: first, fallback: unknownOutcome(0, "r1@x") }]);
    expect(store.complete(SESSION, rec(1, "r1@x"), first)).toBe("inserted");
    expect(store.pending(SESSION)).toEqual([]);
    // A settled reservation cannot be completed again with another record.
    expect(() => store.complete(SESSION, rec(2, "late@x"), first)).toThrow(/settled already/);
    const left = store.reserve(SESSION, unknownOutcome(0, "r2@x"));
    expect(left).not.toBe(first);
    expect(store.settlePending(SESSION)).toEqual([unknownOutcome(2, "r2@x")]);
    expect(store.pending(SESSION)).toEqual([]);
    expect(store.records(SESSION).map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(() => store.complete(SESSION, rec(3, "r2@x"), left)).toThrow(/settled already/);
    expect(() => store.reserve(OTHER, unknownOutcome(0, "x"))).toThrow(StoreError);
  });

  it("lets the process that claimed a session claim it again, and another take it once released", async () => {
    const { store, reopen } = await fresh();
    store.claimWriter(SESSION);
    store.claimWriter(SESSION);
    store.releaseWriter(SESSION);
    const other = reopen();
    other.claimWriter(SESSION);
    other.releaseWriter(SESSION);
    store.claimWriter(SESSION);
  });

  it("stores checkpoints and promises once, and refuses other content under their keys", async () => {
    const { store } = await fresh();
    store.addCheckpoint(SESSION, { n: 4, root: 11n, final: false });
    store.addCheckpoint(SESSION, { n: 4, root: 11n, final: false });
    store.addCheckpoint(SESSION, { n: 4, root: 12n, final: true });
    expect(() => store.addCheckpoint(SESSION, { n: 4, root: 99n, final: false })).toThrow(StoreConflictError);
    expect(store.checkpoints(SESSION)).toEqual([
      { n: 4, root: 11n, final: false },
      { n: 4, root: 12n, final: true },
    ]);
    const promise = {
      promiseId: 2n ** 200n,
      predicate: "AAP-3",
      theta: { b: [1, 2], a: "x" },
      paramsHash: 9n,
    };
    store.putPromise(promise);
    store.putPromise(promise);
    expect(() => store.putPromise({ ...promise, theta: { a: "y" } })).toThrow(StoreConflictError);
    expect(store.promise(promise.promiseId)).toEqual(promise);
    expect(store.promise(1n)).toBeUndefined();
  });

  it("answers ping while it can take a write", async () => {
    const { store } = await fresh();
    expect(() => store.ping()).not.toThrow();
    expect(() => store.checkFile()).not.toThrow();
  });
});
