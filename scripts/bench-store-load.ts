// npx tsx scripts/bench-store-load.ts [--sessions S] [--calls N] [--procs P] [--dir D] [--postgres]:
// the recorder and its store under load (issue 16, "Load"; --postgres: issue 40).
//
// --postgres: a private Postgres cluster (scripts/lib/private-postgres.ts) instead of a file, migrated, and
// only the multi-process run (e.g. --procs 4 --sessions 200: 4 recorder processes × 50 sessions each).
//
// S concurrent sessions (default 50) each record N calls (default 200) on one store file,
// first all in this process, then split across P processes (default 2) sharing the file.
// Each session's calls are sequential, as an agent's are; each tool yields to the event
// loop once, as any I/O-bound tool does. Overhead = a call's wall time minus its tool's own.
// The store is a real file with the store's own pragmas (WAL, synchronous=FULL, IMMEDIATE
// writes), in os.tmpdir() unless --dir says otherwise. The escrow is offline and the policy
// never checkpoints: what is measured is the recorder's path to an acknowledged record.
// Afterwards every session's records are read back: none may be missing, out of order or
// with a seq gap. Prints the figures; writes nothing else.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { keccak256, toHex, type Hex } from "viem";
import type { EscrowClient } from "../sdk/chain/escrow.js";
import type { CallRecord } from "../sdk/core/records.js";
import { Session } from "../sdk/provider/session.js";
import { migrateStore, TraceStore } from "../sdk/provider/store.js";
import { startPostgres } from "./lib/private-postgres.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const SESSIONS = Number(arg("--sessions") ?? 50);
const CALLS = Number(arg("--calls") ?? 200);
const PROCS = Number(arg("--procs") ?? 2);
const PROFILE = { version: 1 as const, tools: { read: {} } };
const USER = "0x1111111111111111111111111111111111111111" as const;

/** Answers constants() (CHECKPOINT_INTERVAL) and openSession; the policy below never asks for more. */
const offlineEscrow = {
  chain: { chainId: 0 },
  constants: async () => ({ proofWindow: 3n * 86_400n, claimWindow: 30n * 86_400n, checkpointInterval: 10 }),
  address: "0x000000000000000000000000000000000000dEaD",
  abi: [],
  openSession: async () => ({ txHash: `0x${"00".repeat(32)}`, gasUsed: 0n, coverage: [] }),
  // A bare escrow's registry: no verifiers (as test/sdk/session-fixture.ts deploys it).
  verifierSet: async () => ({ capacities: [], verifiers: [] }),
  segmentVerifier: async () => null,
} as unknown as EscrowClient;

const yieldOnce = () => new Promise<void>((resolve) => setImmediate(resolve));
const sessionIds = (label: string, from: number, to: number): Hex[] =>
  Array.from({ length: to - from }, (_, k) => keccak256(toHex(`${label}:${from + k}`)));

/**
 * Records CALLS calls in each session concurrently; returns every call's overhead and its
 * latency (wall time, tool included: with many sessions on one event loop, a tool's one yield
 * waits for the other sessions' synchronous appends and idle leaf hashing), in ms.
 */
async function record(storePath: string, ids: Hex[]): Promise<Samples> {
  const store = TraceStore.open(storePath);
  const overheads: number[] = [];
  const latencies: number[] = [];
  await Promise.all(
    ids.map(async (sessionId) => {
      const session = await Session.open({
        store,
        escrow: offlineEscrow,
        sessionId,
        user: USER,
        profile: PROFILE,
        policy: { everyRecords: Infinity, everyMs: Infinity },
      });
      for (let i = 0; i < CALLS; i++) {
        let toolMs = 0;
        const began = performance.now();
        await session.call("read", { i, path: `/data/${i}.txt` }, async () => {
          const t = performance.now();
          await yieldOnce();
          toolMs = performance.now() - t;
          return { bytes: 1_024, i };
        });
        const wall = performance.now() - began;
        overheads.push(wall - toolMs);
        latencies.push(wall);
      }
    }),
  );
  store.close();
  return { overheads, latencies };
}

interface Samples {
  overheads: number[];
  latencies: number[];
}

/** Lost, reordered or gapped records across all sessions (0 when the store holds exactly what was acknowledged). */
function audit(storePath: string, ids: Hex[]): { records: number; bad: number } {
  const store = TraceStore.open(storePath);
  let records = 0;
  let bad = 0;
  for (const id of ids) {
    const rs = store.records(id) as CallRecord[];
    records += rs.length;
    bad += Math.abs(CALLS - rs.length);
    rs.forEach((r, k) => {
      if (r.seq !== k || r.args.i !== k) bad++;
    });
  }
  store.close();
  return { records, bad };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function report(label: string, wallMs: number, samples: Samples, checked: { records: number; bad: number }) {
  const { overheads } = samples;
  const sorted = [...overheads].sort((a, b) => a - b);
  const latency = [...samples.latencies].sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(2);
  console.log(
    `${label}: ${overheads.length} calls in ${f(wallMs / 1000)} s = ${Math.round(overheads.length / (wallMs / 1000))} calls/s; ` +
      `overhead p50 ${f(percentile(sorted, 50))} ms, p99 ${f(percentile(sorted, 99))} ms, max ${f(sorted[sorted.length - 1])} ms; ` +
      `latency p50 ${f(percentile(latency, 50))} ms, p99 ${f(percentile(latency, 99))} ms; ` +
      `stored ${checked.records}, lost/reordered ${checked.bad}`,
  );
}

async function child(): Promise<void> {
  const [storePath, from, to] = process.argv.slice(3);
  const samples = await record(storePath, sessionIds("load", Number(from), Number(to)));
  process.stdout.write(JSON.stringify(samples));
}

function runChild(storePath: string, from: number, to: number): Promise<Samples> {
  const script = fileURLToPath(import.meta.url);
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", script, "--child", storePath, String(from), String(to), "--calls", String(CALLS)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  proc.stdout.on("data", (d) => (out += String(d)));
  return new Promise((resolve, reject) =>
    proc.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as Samples) : reject(new Error(`child exited ${code}`)),
    ),
  );
}

async function main(): Promise<void> {
  for (const [name, v] of [
    ["--sessions", SESSIONS],
    ["--calls", CALLS],
    ["--procs", PROCS],
  ] as const)
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  if (process.argv.includes("--postgres")) return postgres();
  const dir = mkdtempSync(path.join(arg("--dir") ?? os.tmpdir(), "zkvai-load-"));
  const load = os.loadavg()[0].toFixed(2);
  console.log(
    `store load: ${SESSIONS} sessions × ${CALLS} calls, node ${process.version}, ${os.cpus().length} CPUs, load ${load}, store in ${dir}`,
  );
  try {
    const one = path.join(dir, "one-process.sqlite");
    let began = performance.now();
    const samples = await record(one, sessionIds("load", 0, SESSIONS));
    report("one process", performance.now() - began, samples, audit(one, sessionIds("load", 0, SESSIONS)));

    const shared = path.join(dir, "shared.sqlite");
    TraceStore.open(shared).close(); // the schema, before the processes race for it
    const bounds = Array.from({ length: PROCS }, (_, p) => [
      Math.floor((p * SESSIONS) / PROCS),
      Math.floor(((p + 1) * SESSIONS) / PROCS),
    ]);
    began = performance.now();
    const parts = await Promise.all(bounds.map(([from, to]) => runChild(shared, from, to)));
    const wall = performance.now() - began;
    const merged = {
      overheads: parts.flatMap((p) => p.overheads),
      latencies: parts.flatMap((p) => p.latencies),
    };
    report(`${PROCS} processes`, wall, merged, audit(shared, sessionIds("load", 0, SESSIONS)));
    console.log("(the processes' wall time includes starting them: about 1 s each for tsx)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** SESSIONS sessions split over PROCS recorder processes, all on one private Postgres database. */
async function postgres(): Promise<void> {
  const cluster = await startPostgres("zkvai_load");
  try {
    await migrateStore(cluster.url);
    const load = os.loadavg()[0].toFixed(2);
    console.log(
      `store load on Postgres: ${PROCS} processes, ${SESSIONS} sessions × ${CALLS} calls, node ${process.version}, ` +
        `${os.cpus().length} CPUs, load ${load}, private cluster on 127.0.0.1:${cluster.port} (fsync, synchronous_commit on)`,
    );
    const bounds = Array.from({ length: PROCS }, (_, p) => [
      Math.floor((p * SESSIONS) / PROCS),
      Math.floor(((p + 1) * SESSIONS) / PROCS),
    ]);
    const began = performance.now();
    const parts = await Promise.all(bounds.map(([from, to]) => runChild(cluster.url, from, to))).catch(
      (e) => {
        console.error(
          `server log (last lines):\n${cluster.serverLog().trim().split("\n").slice(-30).join("\n")}`,
        );
        throw e;
      },
    );
    const wall = performance.now() - began;
    const merged = {
      overheads: parts.flatMap((p) => p.overheads),
      latencies: parts.flatMap((p) => p.latencies),
    };
    report(`${PROCS} processes, Postgres`, wall, merged, audit(cluster.url, sessionIds("load", 0, SESSIONS)));
    console.log(
      "(the processes' wall time includes starting them: about 1 s each for tsx, and the store's worker)",
    );
  } finally {
    await cluster.stop();
  }
}

await (process.argv[2] === "--child" ? child() : main());
