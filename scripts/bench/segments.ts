// npm run bench:segments: sessions longer than any whole-claim circuit, settled by segment chains. For each
// --records size, one session of that many records under the default checkpoint policy (a checkpoint every
// 10 records) on an in-process chain, a claim on it, its segments proven with the local pool at each
// --workers count (wall time, each segment's witness and proof time, each worker's peak RSS), then settled
// as the prover settles them (settleChain for up to MAX_BATCH_LINKS links, else proveSegments spans and
// settleSegments), with the gas of every transaction. The 10-worker wall time is projected from the measured
// segment times: ceil(segments / 10) rounds of the slowest segment, plus the measured per-claim overhead (cutting the trace, sending and settling), plus the queue's overhead per round
// (--queue-overhead-ms, by default the 310 ms a segment measured with --queue; docs/BENCHMARKS.md). The
// segment times are those of the 1-worker run when there is one: on this 2-core machine two workers
// share the cores, so their segments take longer than a machine of its own would. With --queue the segments go through BullMQ instead of the local pool: a
// private redis-server on loopback (Debian's package) and --workers segment workers (startSegmentWorker, each
// proving in its own child process, as scripts/segment-worker.ts does on another machine); the run then
// measures the queue's overhead, its wall time less the segments' own witness and proof times, and projects
// with it. Appends to --out. With --cut-only it records and cuts each session (the trace checked against the
// chain, then laid out as segment inputs), prints the two times, and stops: no proof, nothing written.
// Needs the segment circuit of --segment-size records (default 1,024), `npx tsx scripts/setup.ts --only
// aap3_seg1024` (or aap1_seg1024 … aap5_seg1024), and a whole-claim circuit for the escrow (`--group test`);
// deploy registers that size whatever else is built.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseEther } from "viem";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { scopedSessionId } from "../../sdk/chain/escrow.js";
import { Session } from "../../sdk/provider/session.js";
import { findPredicate, PREDICATE_LIST, predicateById } from "../../sdk/core/predicates/index.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { loadClaim } from "../../prover/claims.js";
import { prepareSegments, segmentBatches } from "../../prover/segments/claims.js";
import { LocalSegmentPool } from "../../prover/segments/pool.js";
import type { SegmentProof } from "../../prover/segments/task.js";
import type { SegmentProver } from "../../prover/segments/pool.js";
import { QueueSegmentProver, startSegmentWorker } from "../../prover/segments/queue.js";
import { startRedis } from "../lib/private-redis.js";
import { ROOT } from "../../sdk/manifest/packages.js";
import { benchMachine } from "./machine.js";

const { values } = parseArgs({
  options: {
    predicate: { type: "string", default: "AAP-3" },
    records: { type: "string", default: "2000" },
    workers: { type: "string", default: "1,2" },
    violate: { type: "string", default: "none" },
    "gas-price-gwei": { type: "string", default: "0.01" },
    // Measured: --predicate AAP-1 --records 2000 --workers 1 --queue, 0.31 s a segment (docs/BENCHMARKS.md).
    "queue-overhead-ms": { type: "string", default: "310" },
    queue: { type: "boolean", default: false },
    // Records the session and cuts it into segment inputs, then stops: what the cut costs, without proving
    // (time it with node's --cpu-prof to see where it goes). Writes nothing.
    "cut-only": { type: "boolean", default: false },
    "segment-size": { type: "string", default: "1024" },
    out: { type: "string", default: path.join(ROOT, "docs", "bench", "segments.json") },
  },
});
const sizes = values.records.split(",").map(Number);
const workerCounts = values.workers.split(",").map(Number);
const predicate = values.predicate;
if (!findPredicate(predicate))
  throw new Error(`--predicate must be one of ${PREDICATE_LIST.map((d) => d.id).join(", ")}`);
if (values.violate !== "none" && values.violate !== "last") throw new Error("--violate must be none or last");
const gasPrice = Number(values["gas-price-gwei"]);

// The predicate's long stream (sdk/core/predicates/<aapN>/samples.ts): record i of a compliant session, or of
// one whose last record violates.
const setups = predicateById(predicate).samples.stream;

// --queue: one private Redis for the whole run, and per run a QueueSegmentProver with its own key prefix
// (so no run reads another's completed jobs) and `workers` segment workers on it.
const redis = values.queue ? await startRedis() : undefined;
// Whatever ends the run, the private Redis goes with it.
if (redis)
  process.on("exit", () => {
    try {
      process.kill(redis.pid, "SIGTERM");
    } catch {
      // already stopped
    }
  });
let queueRuns = 0;
async function queueProver(workers: number): Promise<SegmentProver> {
  const prefix = `bench${queueRuns++}`;
  const connection = redis!.url;
  const started = await Promise.all(
    Array.from({ length: workers }, () => startSegmentWorker({ connection, prefix })),
  );
  const queue = new QueueSegmentProver({ connection, prefix, attempts: 1 });
  return {
    proveAll: (tasks, onProof) => queue.proveAll(tasks, onProof),
    discard: (task, proof, reason) => queue.discard(task, proof, reason),
    async close() {
      await queue.close();
      await Promise.all(started.map((w) => w.close()));
    },
  };
}

const results: Record<string, unknown>[] = [];
for (const n of sizes) {
  const chain = await embeddedChain();
  const [providerWallet, userWallet] = chain.wallets;
  const store = TraceStore.open(
    path.join(mkdtempSync(path.join(tmpdir(), "zkvai-seg-bench-")), "store.sqlite"),
  );
  const { escrow, record } = await deployZkVai(chain, providerWallet, {
    receiptWindow: 0,
    segmentSize: Number(values["segment-size"]),
  });
  const { promiseId } = await registerPromise(record, escrow, store, {
    predicate,
    theta: setups.theta,
    profile: setups.profile as never,
    payout: parseEther("1"),
    reserve: parseEther("1"),
  });
  const sessionId = scopedSessionId(providerWallet.account.address, `segments:${n}:${Date.now()}`);
  const session = await Session.open({
    store,
    escrow,
    sessionId,
    user: userWallet.account.address,
    profile: setups.profile as never,
  });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) session.append(setups.record(i, values.violate === "last" && i === n - 2));
  const closed = await session.close();
  const recordSeconds = (performance.now() - t0) / 1000;
  const { claimId } = await escrow.as(userWallet).fileClaim(sessionId, promiseId, parseEther("0.1"));

  const tCut = performance.now();
  const loaded = await loadClaim(store, escrow, claimId);
  const loadSeconds = (performance.now() - tCut) / 1000;
  const prepared = await prepareSegments(loaded, escrow);
  const cutSeconds = (performance.now() - tCut) / 1000;
  console.log(
    `${predicate} ${n} records: recorded in ${recordSeconds.toFixed(1)} s; ${prepared.tasks.length} segments of ${prepared.segmentSize} (${prepared.circuit}), cut in ${cutSeconds.toFixed(1)} s (checked against the chain in ${loadSeconds.toFixed(1)} s)`,
  );
  if (values["cut-only"]) {
    store.close();
    continue;
  }

  const runs: Record<string, unknown>[] = [];
  let proofs: SegmentProof[] = [];
  for (const workers of workerCounts) {
    const prover = values.queue ? await queueProver(workers) : new LocalSegmentPool({ workers });
    const started = performance.now();
    proofs = await prover.proveAll(prepared.tasks, (p) =>
      console.log(
        `  [${workers}w${values.queue ? ", queue" : ""}] segment ${p.index}: witness ${p.witnessSeconds.toFixed(1)} s, proof ${p.proveSeconds.toFixed(1)} s, rss ${(p.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
      ),
    );
    const wallSeconds = (performance.now() - started) / 1000;
    await prover.close();
    // The segments' own wall times, summed; and the CPU time they took, over all of snarkjs's threads.
    const segmentSeconds = proofs.reduce((s, p) => s + p.witnessSeconds + p.proveSeconds, 0);
    const cpuSeconds = proofs.reduce((s, p) => s + p.cpuSeconds, 0);
    runs.push({
      workers,
      via: values.queue ? "bullmq" : "local pool",
      wallSeconds,
      segmentSeconds,
      cpuSeconds,
      // One worker proves the segments one after another, so what its wall time adds to their own times is
      // the hand-off: per segment, the queue's overhead in one round of a many-worker run.
      ...(workers === 1 ? { overheadPerSegmentSeconds: (wallSeconds - segmentSeconds) / proofs.length } : {}),
      segments: proofs.map((p) => ({
        index: p.index,
        witnessSeconds: p.witnessSeconds,
        proveSeconds: p.proveSeconds,
        cpuSeconds: p.cpuSeconds,
        peakRssMiB: Math.round(p.peakRssBytes / 2 ** 20),
      })),
    });
    console.log(`  ${workers} worker(s): ${wallSeconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} s CPU`);
  }

  const tSend = performance.now();
  // As the prover sends them (prover/segments/claims.ts): the whole chain in one settleChain when it fits one
  // batch, else openSegments, one proveSegments span per batch and settleSegments over the spans' ends.
  const words = [...proofs].sort((a, b) => a.index - b.index).map((p) => p.words.map(BigInt));
  const batches = segmentBatches(words.length);
  const gas: Record<string, number | number[]> = {};
  let settled: Awaited<ReturnType<typeof escrow.settleChain>>;
  if (batches.length === 1) {
    settled = await escrow.settleChain(claimId, prepared.states, words);
    gas.settleChain = Number(settled.gasUsed);
  } else {
    gas.openSegments = Number((await escrow.openSegments(claimId)).gasUsed);
    const spans: number[] = [];
    for (const b of batches) {
      const tx = await escrow.proveSegments(
        claimId,
        prepared.states.slice(b.from, b.to + 1),
        words.slice(b.from, b.to),
      );
      spans.push(Number(tx.gasUsed));
    }
    gas.proveSegments = spans;
    const ends = [...batches.map((b) => prepared.states[b.from]!), prepared.states[words.length]!];
    settled = await escrow.settleSegments(claimId, ends);
    gas.settleSegments = Number(settled.gasUsed);
  }
  const sendSeconds = (performance.now() - tSend) / 1000;
  const totalGas = Object.values(gas)
    .flat()
    .reduce((a, b) => a + b, 0);
  const base = runs.find((r) => r.workers === 1) ?? runs[0]!;
  const slowest = Math.max(
    ...(base.segments as { witnessSeconds: number; proveSeconds: number }[]).map(
      (s) => s.witnessSeconds + s.proveSeconds,
    ),
  );
  const rounds = Math.ceil(prepared.tasks.length / 10);
  const measuredOverhead = values.queue
    ? (runs.find((r) => r.workers === 1)?.overheadPerSegmentSeconds as number | undefined)
    : undefined;
  const queueOverhead = measuredOverhead ?? Number(values["queue-overhead-ms"]) / 1000;
  const projected10 = rounds * (slowest + queueOverhead) + cutSeconds + sendSeconds;
  results.push({
    // Each result keeps the machine it ran on, its load included: runs of one file span sessions.
    machine: benchMachine(),
    predicate,
    records: n,
    violated: settled.violated,
    segments: prepared.tasks.length,
    segmentSize: prepared.segmentSize,
    circuit: prepared.circuit,
    checkpoints: (await escrow.session(sessionId)).checkpointCount,
    recordSeconds,
    closeGas: Number(closed.gasUsed ?? 0),
    cutSeconds,
    // Of the cut, the part that checks the stored trace against the chain (loadClaim), which encodes it.
    checkSeconds: loadSeconds,
    runs,
    // Every settlement transaction's gas, and the claim's total.
    gas: { ...gas, total: totalGas, largest: Math.max(...Object.values(gas).flat()) },
    l2CostEth: (totalGas * gasPrice) / 1e9,
    gasPriceGwei: gasPrice,
    projection: {
      workers: 10,
      wallSeconds: projected10,
      how: `ceil(${prepared.tasks.length}/10) = ${rounds} rounds × (slowest segment ${slowest.toFixed(1)} s at ${base.workers} worker${base.workers === 1 ? "" : "s"} + queue overhead ${queueOverhead.toFixed(2)} s${measuredOverhead === undefined ? "" : ", measured"}) + cut ${cutSeconds.toFixed(1)} s + send and settle ${sendSeconds.toFixed(1)} s`,
    },
  });
  console.log(
    `  gas: ${JSON.stringify(gas)} = ${totalGas} in all; projected 10 workers ${projected10.toFixed(0)} s`,
  );
  store.close();
}

if (values["cut-only"]) process.exit(0);
mkdirSync(path.dirname(values.out), { recursive: true });
const before = existsSync(values.out) ? JSON.parse(readFileSync(values.out, "utf8")) : {};
// Results from before each kept its machine carry the file's one.
const previous = ((before.results ?? []) as Record<string, unknown>[]).map((r) => ({
  machine: before.machine,
  ...r,
}));
writeFileSync(
  values.out,
  JSON.stringify(
    { machine: benchMachine(), measuredAt: new Date().toISOString(), results: [...previous, ...results] },
    null,
    2,
  ) + "\n",
);
console.log(`wrote ${path.relative(ROOT, values.out)}`);
await redis?.stop();
process.exit(0);
