// npx tsx scripts/bench-recorder.ts [--calls N] [--dir D]: what session.call adds to a tool call.
//
// A trivial tool that yields to the event loop once (as any I/O-bound tool does, so the
// background work — checkpoint transactions, leaf hashing — runs while tools wait, as it
// would in an agent) is called N times (default 2,000) through a Session whose store is a
// real file with the store's own pragmas (WAL, synchronous=FULL: every acknowledged record is
// fsync'd, P7), under the default checkpoint policy against the in-process chain.
// Overhead = the call's wall time minus the tool's own. Writes docs/bench/recorder.json, unless
// --dir puts the store elsewhere than os.tmpdir() (e.g. --dir /dev/shm, where fsync is free, to
// see the CPU part alone); then it only prints.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import os from "node:os";
import path from "node:path";
import { keccak256, toHex } from "viem";
import type { Json } from "../sdk/core/canonical.js";
import { EscrowClient, deployEscrow, deployPoseidon3 } from "../sdk/chain/escrow.js";
import { CHECKPOINT_INTERVAL } from "../sdk/core/checkpoints.js";
import { packageRoot } from "../sdk/chain/locations.js";
import { embeddedChain } from "../sdk/dev/embedded.js";
import { LeafLog } from "../sdk/core/leaf-log.js";
import type { EncodingProfile } from "../sdk/core/profile.js";
import type { TraceRecord } from "../sdk/core/records.js";
import { DEFAULT_POLICY, Session, type PromiseRef } from "../sdk/provider/session.js";
import { TraceStore } from "../sdk/provider/store.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const CALLS = Number(arg("--calls") ?? 2_000);
const DIR = arg("--dir");
const GUARD_CALLS = Math.min(CALLS, 1_000);
const WARMUP = 200;
const PROFILE: EncodingProfile = { version: 1, tools: { echo: {}, send_email: { target: "to" } } };
const AAP4: PromiseRef = { predicate: "AAP-4", theta: { outboundTools: ["send_email"], allowlist: ["a@x"] } };

const yieldOnce = () => new Promise<void>((resolve) => setImmediate(resolve));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const ms = (x: number) => Number(x.toFixed(3));
function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: ms(percentile(sorted, 50)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted[sorted.length - 1]),
  };
}

async function main() {
  if (!Number.isInteger(CALLS) || CALLS < 1) throw new Error(`--calls must be a positive integer`);
  const loadAtStart = Number(os.loadavg()[0].toFixed(2));
  const chain = await embeddedChain();
  const provider = chain.wallets[0];
  // The checkpoint budget (one per CHECKPOINT_INTERVAL records) has no cap, so the default policy keeps
  // submitting for the whole run.
  const poseidon3 = await deployPoseidon3(chain, provider);
  const deployed = await deployEscrow(chain, provider, {
    poseidon3: poseidon3.address,
    checkpointInterval: CHECKPOINT_INTERVAL,
    registry: [],
  });
  const escrow = await EscrowClient.connect(chain, deployed.address, provider);
  const user = chain.wallets[1].account.address;
  const dir = mkdtempSync(path.join(DIR ?? os.tmpdir(), "zkvai-bench-recorder-"));
  const store = TraceStore.open(path.join(dir, "store.sqlite"));

  async function run(label: string, calls: number, opts: { guard?: boolean; tool?: string } = {}) {
    const sessionId = keccak256(toHex(`bench-recorder:${label}:${Date.now()}`));
    const session = await Session.open({
      store,
      escrow,
      sessionId,
      user,
      profile: PROFILE,
      policy: DEFAULT_POLICY,
      ...(opts.guard ? { promises: [AAP4], guard: true } : {}),
    });
    const overhead: number[] = [];
    const wall: number[] = [];
    const tool = opts.tool ?? "echo";
    for (let i = 0; i < calls; i++) {
      let toolMs = 0;
      const args: { [k: string]: Json } = tool === "echo" ? { i } : { to: "a@x", i };
      const started = performance.now();
      await session.call(tool, args, async () => {
        const t = performance.now();
        await yieldOnce();
        toolMs = performance.now() - t;
        return "ok";
      });
      const total = performance.now() - started;
      overhead.push(total - toolMs);
      wall.push(total);
    }
    const flushStarted = performance.now();
    await session.flush();
    const flushMs = performance.now() - flushStarted;
    const closeStarted = performance.now();
    const closed = await session.close();
    return {
      overhead,
      wall,
      stats: session.stats,
      flushMs,
      closeMs: performance.now() - closeStarted,
      finalN: closed.finalN,
    };
  }

  await run("warmup", WARMUP);
  const plain = await run("plain", CALLS);
  const guarded = await run("guard", GUARD_CALLS, { guard: true, tool: "send_email" });

  // Reference points: an fsync'd append on its own, and the leaf hashing that runs in the background.
  const appendMs: number[] = [];
  const ref = keccak256(toHex(`bench-recorder:append:${Date.now()}`));
  store.createSession({ sessionId: ref, secret: 1n, profile: PROFILE, user });
  for (let i = 0; i < 500; i++) {
    const t = performance.now();
    store.append(ref, { kind: "call", seq: i, ts: Date.now(), tool: "echo", args: { i }, result: "ok" });
    appendMs.push(performance.now() - t);
  }
  // What fsync costs: the same insert on a bare table, WAL with synchronous FULL (the store's
  // setting) and NORMAL (no fsync per commit: survives a process crash, not a power cut).
  const fsyncShare: Record<string, ReturnType<typeof summary>> = {};
  for (const mode of ["FULL", "NORMAL"]) {
    const db = new Database(path.join(dir, `raw-${mode}.sqlite`));
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${mode}`);
    db.exec("CREATE TABLE r (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    const insert = db.prepare("INSERT INTO r VALUES (?, ?)");
    const samples: number[] = [];
    for (let i = 0; i < 500; i++) {
      const t = performance.now();
      insert.run(i, JSON.stringify({ kind: "call", seq: i, tool: "echo", args: { i }, result: "ok" }));
      samples.push(performance.now() - t);
    }
    db.close();
    fsyncShare[mode] = summary(samples);
  }
  const leaves = new LeafLog(PROFILE, 1n);
  const HASHED = 300;
  for (let seq = 0; seq < HASHED; seq++) {
    const record: TraceRecord = { kind: "call", seq, ts: 1, tool: "echo", args: { i: seq }, result: "ok" };
    leaves.push(record);
  }
  const hashStarted = performance.now();
  leaves.root();
  const leafMs = (performance.now() - hashStarted) / HASHED;
  leaves.dispose();
  store.close();
  rmSync(dir, { recursive: true, force: true });

  const overhead = summary(plain.overhead);
  const result = {
    recorderOverheadMs: { p50: overhead.p50, p99: overhead.p99 },
    calls: CALLS,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model?.trim(),
      memGiB: Math.round(os.totalmem() / 2 ** 30),
      loadAverage1m: { atStart: loadAtStart, atEnd: Number(os.loadavg()[0].toFixed(2)) },
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    recorderDetails: {
      command: `npx tsx scripts/bench-recorder.ts${CALLS === 2_000 ? "" : ` --calls ${CALLS}`}`,
      measuredAt: new Date().toISOString(),
      store: "SQLite file in os.tmpdir(), journal_mode=WAL, synchronous=FULL (TraceStore.open)",
      policy: DEFAULT_POLICY,
      overheadMs: overhead,
      callWallMsIncludingTool: summary(plain.wall),
      checkpoints: { ...plain.stats, lastCheckpointTx: undefined, flushMsAfterLastCall: ms(plain.flushMs) },
      closeMs: ms(plain.closeMs),
      storeAppendAloneMs: summary(appendMs),
      bareInsertMs: { synchronousFull: fsyncShare.FULL, synchronousNormal: fsyncShare.NORMAL },
      leafHashMsPerRecordInBackground: ms(leafMs),
      guard: {
        calls: GUARD_CALLS,
        promise: "AAP-4 over send_email (every call evaluates the whole trace: O(N) per call)",
        overheadMs: summary(guarded.overhead),
        firstHundredP50: summary(guarded.overhead.slice(0, 100)).p50,
        lastHundredP50: summary(guarded.overhead.slice(-100)).p50,
      },
    },
  };
  const out = path.join(packageRoot(), "docs", "bench", "recorder.json");
  if (!DIR) {
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
  }

  console.log(`session.call overhead over ${CALLS} calls: p50 ${overhead.p50} ms, p99 ${overhead.p99} ms`);
  console.log(`  store append alone (fsync'd): p50 ${result.recorderDetails.storeAppendAloneMs.p50} ms`);
  console.log(
    `  bare insert, WAL: synchronous=FULL p50 ${fsyncShare.FULL.p50} ms, NORMAL p50 ${fsyncShare.NORMAL.p50} ms`,
  );
  console.log(
    `  leaf hashing, off the call path: ${result.recorderDetails.leafHashMsPerRecordInBackground} ms/record`,
  );
  console.log(
    `  checkpoints: ${plain.stats.checkpoints} confirmed, ${plain.stats.checkpointFailures} failed; last n ${plain.stats.lastCheckpointN}`,
  );
  const g = result.recorderDetails.guard;
  console.log(
    `  guard mode (${GUARD_CALLS} calls, AAP-4): p50 ${g.overheadMs.p50} ms, p99 ${g.overheadMs.p99} ms; first 100 p50 ${g.firstHundredP50} ms, last 100 p50 ${g.lastHundredP50} ms`,
  );
  console.log(DIR ? `store in ${DIR}: not written` : `written to ${path.relative(process.cwd(), out)}`);
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
