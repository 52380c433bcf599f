// Leaf hashing off the agent's thread (sdk/provider/leaf-hasher.ts): the worker's leaves are the inline
// leaves, whether the worker is ready, still starting, or dead; and its WebAssembly Poseidon is poseidon-lite.
import { describe, expect, it } from "vitest";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { FIELD_MODULUS, installPoseidon, poseidon } from "../../sdk/core/hash.js";
import { LeafLog, type LeafSink } from "../../sdk/core/leaf-log.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { SessionOpenError } from "../../sdk/core/errors.js";
import { LeafHasher, processLeafHasher } from "../../sdk/provider/leaf-hasher.js";
import { freshId, openSession, sessionEnv, storedRoot } from "./session-fixture.js";

// npm test records through inline hashing (vitest.config.ts); this file is where whole sessions go through
// the worker, as they do by default in the product.
process.env.VAI_LEAF_HASHING = "worker";

const PROFILE: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
const SECRET = 0x5ec2e7n;

/** Calls of both tools, long and short results, and an error: every path of the record encoding that a leaf takes. */
function records(n: number): TraceRecord[] {
  return Array.from({ length: n }, (_, seq): TraceRecord => {
    if (seq % 7 === 3)
      return {
        kind: "call",
        seq,
        ts: 1000 + seq,
        tool: "send_email",
        args: { to: `u${seq}@x.example` },
        error: "refused",
      };
    return {
      kind: "call",
      seq,
      ts: 1000 + seq,
      tool: "read",
      args: { page: seq },
      result: "é".repeat(seq * 5),
    };
  });
}

const hashers: LeafHasher[] = [];
function hasher(opts?: { wasm?: boolean }): LeafHasher {
  const h = new LeafHasher(opts);
  hashers.push(h);
  return h;
}
// No hasher is stopped: the workers end with the test process (see the test of a dying offload below).

async function ready(h: LeafHasher): Promise<void> {
  await h.started;
  expect(h.startupMs).toBeGreaterThan(0);
}

describe("leaf hashing on a worker thread", () => {
  const trace = records(60);
  const expected = encodeTrace(trace, PROFILE, SECRET).map((r) => r.leaf);

  it("gives the inline leaves, heads and roots, with the WebAssembly Poseidon running", async () => {
    const h = hasher();
    await ready(h);
    expect(h.accelerated).toBe(true);
    const inline = new LeafLog(PROFILE, SECRET);
    const offloaded = new LeafLog(PROFILE, SECRET, (...open) => h.open(...open));
    for (const r of trace) {
      inline.push(r);
      offloaded.push(r);
    }
    // Synchronous: head() waits for the worker's leaves rather than hashing them here.
    expect(offloaded.head(37)).toBe(expected[36]);
    expect(offloaded.leaves()).toEqual(expected);
    expect(offloaded.root()).toBe(inline.root());
    expect(offloaded.root(17)).toBe(inline.root(17));
    inline.dispose();
    offloaded.dispose();
  });

  it("delivers the leaves in the background when nothing asks for them", async () => {
    const h = hasher();
    await ready(h);
    const log = new LeafLog(PROFILE, SECRET, (...open) => h.open(...open));
    for (const r of trace) log.push(r);
    // Peek without hashing: the private leaf array fills from the worker's messages alone.
    const delivered = () => (log as unknown as { nodes: bigint[][] }).nodes[0].length;
    for (let i = 0; i < 500 && delivered() < trace.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(delivered()).toBe(trace.length);
    expect(log.leaves()).toEqual(expected);
    log.dispose();
  });

  it("hashes on its own thread while the worker starts, and drops the worker's late copies", async () => {
    const h = hasher();
    const log = new LeafLog(PROFILE, SECRET, (...open) => h.open(...open));
    for (const r of trace.slice(0, 10)) log.push(r);
    expect(log.head(10)).toBe(expected[9]); // the worker is still loading: computed here
    await ready(h);
    for (const r of trace.slice(10)) log.push(r);
    expect(log.leaves()).toEqual(expected);
    log.dispose();
  });

  it("keeps going on its own thread once the offload stops working, records it owed included", () => {
    // LeafLog's side of a worker that dies: a stand-in offload that delivers the first 20 leaves, then stops.
    // No worker thread is stopped in this process: stopping one (Worker.terminate, or letting it end) while
    // others ran WebAssembly corrupted the test process's heap now and then (free(): invalid pointer).
    let working = true;
    let sink: LeafSink | undefined;
    const sent: TraceRecord[] = [];
    const log = new LeafLog(PROFILE, SECRET, (_p, _s, s) => {
      sink = s;
      return {
        working: () => working,
        push: (r) => sent.push(r),
        collect: () => {
          for (const [i, leaf] of expected.slice(0, 20).entries()) sink!.accept(i, leaf);
        },
        close: () => {},
      };
    });
    for (const r of trace.slice(0, 30)) log.push(r);
    expect(log.head(5)).toBe(expected[4]);
    working = false;
    for (const r of trace.slice(30)) log.push(r);
    expect(sent).toHaveLength(30); // nothing more was sent once it stopped working
    expect(log.leaves()).toEqual(expected);
    log.dispose();
  });

  it("does not keep one session's head waiting behind another session's backlog", async () => {
    const h = hasher();
    await ready(h);
    const busy = new LeafLog(PROFILE, SECRET, (...open) => h.open(...open));
    const backlog = records(1).map((r) => ({ ...r, result: "x".repeat(200_000) }))[0]!;
    // 40 records of 200 kB: seconds of hashing on the worker, queued ahead of the other log's one record.
    for (let seq = 0; seq < 40; seq++) busy.push({ ...backlog, seq });
    const other = new LeafLog(PROFILE, SECRET, (...open) => h.open(...open));
    other.push(trace[0]!);
    const t0 = performance.now();
    expect(other.head(1)).toBe(expected[0]);
    const waited = performance.now() - t0;
    const inline = new LeafLog(PROFILE, SECRET);
    for (let seq = 0; seq < 40; seq++) inline.push({ ...backlog, seq });
    const t1 = performance.now();
    const busyRoot = inline.root();
    const backlogMs = performance.now() - t1;
    // It gave up after about one leaf's inline cost and hashed its own: far less than the backlog.
    expect(waited).toBeLessThan(backlogMs / 4);
    expect(busy.root()).toBe(busyRoot);
    for (const log of [busy, other, inline]) log.dispose();
  });

  it("answers at once after dispose, hashing what it lacks itself", async () => {
    const h = hasher();
    await ready(h);
    const log = new LeafLog(PROFILE, SECRET, (...open) => h.open(...open));
    for (const r of trace) log.push(r);
    log.dispose();
    expect(log.leaves()).toEqual(expected);
  });

  it("runs poseidon-lite when asked to, and gives the same leaves", async () => {
    const h = hasher({ wasm: false });
    await ready(h);
    expect(h.accelerated).toBe(false);
    const log = new LeafLog(PROFILE, SECRET, (...open) => h.open(...open));
    for (const r of trace.slice(0, 12)) log.push(r);
    expect(log.leaves()).toEqual(expected.slice(0, 12));
    log.dispose();
  });
});

describe("installPoseidon", () => {
  it("refuses an implementation that differs from poseidon-lite at any arity, and keeps the reference", () => {
    const before = poseidon([1n, 2n]);
    const wrongAt16 = (xs: bigint[]) => (xs.length === 16 ? 1n : poseidon(xs));
    expect(() => installPoseidon(wrongAt16)).toThrow(/arity 16/);
    expect(() => installPoseidon(() => 0n)).toThrow(/arity 1\b/);
    expect(poseidon([1n, 2n])).toBe(before);
  });

  it("refuses one that agrees on every fixed sample and differs elsewhere: the fresh random inputs catch it", () => {
    // The fixed samples are 0, 1, r − 1 and (r/17)·(i+1) + arity (all below r): each is 0, 1, r − 1 or ≤ 16 above a multiple of r/17.
    const step = FIELD_MODULUS / 17n;
    const fixed = (x: bigint) => x === 0n || x === 1n || x === FIELD_MODULUS - 1n || x % step <= 16n;
    const wrongOffList = (xs: bigint[]) => (xs.every(fixed) ? poseidon(xs) : 0n);
    expect(() => installPoseidon(wrongOffList)).toThrow(/disagrees/);
  });

  // The WebAssembly Poseidon is not built on this thread: the product builds it only in the worker. That the
  // worker installed it (its check at every arity on fixed and fresh random inputs) is what `accelerated`
  // says, asserted above.
});

describe("a Session on the worker", () => {
  it("refuses to open, writing nothing, when VAI_LEAF_HASHING names no mode", async () => {
    const env = await sessionEnv(10);
    const store = env.store();
    const sessionId = freshId();
    process.env.VAI_LEAF_HASHING = "threads";
    try {
      await expect(openSession(env, { store, sessionId })).rejects.toThrow(
        /VAI_LEAF_HASHING must be "worker" or "inline"/,
      );
      await expect(openSession(env, { store, sessionId })).rejects.toBeInstanceOf(SessionOpenError);
      expect(store.session(sessionId)).toBeUndefined();
      await expect(env.escrow.session(sessionId)).rejects.toThrow(/UnknownSession/);
    } finally {
      process.env.VAI_LEAF_HASHING = "worker";
      store.close();
    }
  });

  it("checkpoints, receipts and close carry the leaves the store's records give", async () => {
    const env = await sessionEnv(10);
    const hasher = processLeafHasher()!;
    const { session, sessionId, store } = await openSession(env, {
      policy: { everyRecords: 10, everyMs: 600_000, retry: { initialMs: 10, maxMs: 40 } },
    });
    await hasher.started;
    const before = hasher.delivered.leaves;
    for (let i = 0; i < 45; i++) {
      await session.call("read", { page: i }, async () => `page ${i}`);
      // Yield now and then, as an agent waiting on a model does: checkpoints land meanwhile.
      if (i % 9 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    await session.flush();
    const stored = store.session(sessionId)!;
    const expected = encodeTrace(store.records(sessionId), stored.profile, stored.secret).map((r) => r.leaf);
    const onChain = await env.escrow.checkpointsOf(sessionId);
    expect(onChain.length).toBeGreaterThan(0);
    for (const c of onChain) expect(c.root).toBe(expected[c.n - 1]);
    expect((await session.receipt(30)).root).toBe(expected[29]);
    const closed = await session.close();
    expect(closed.finalRoot).toBe(storedRoot(store, sessionId));
    // The leaves came from the worker, not from this thread.
    expect(hasher.delivered.leaves - before).toBeGreaterThanOrEqual(45);
    store.close();
  });
});
