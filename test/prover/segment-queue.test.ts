// The distributed segment prover (prover/segments/queue.ts) against a real Redis (scripts/lib/private-redis.ts) and
// real worker processes (scripts/segment-worker.ts), proving real segments of the AAP-3 segment circuit at 8
// records a segment (setup's aap3_seg8): a 20-record session is 3 segments. Two workers share a claim; then
// the claim watcher answers a claim on an in-process chain through the queue while one worker is killed
// holding a segment, the other proves it once its lock expires, and the claim settles exactly once; the same
// tasks again are answered
// from the stored proofs; a segment without a witness spends its attempts, lands in the dead-letter queue
// and fails the claim naming it. Every wait is on an event, with generous timeouts.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Job, Queue } from "bullmq";
import * as snarkjs from "snarkjs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { circuitArtifacts, loadManifest } from "../../sdk/manifest/manifest.js";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import { ClaimWatcher } from "../../prover/watcher.js";
import {
  DEAD_LETTER_QUEUE,
  QueueSegmentProver,
  SEGMENTS_QUEUE,
  SegmentDeadLetteredError,
  segmentJobId,
  type DeadSegment,
  type SegmentProgress,
} from "../../prover/segments/queue.js";
import type { SegmentProof, SegmentTask } from "../../prover/segments/task.js";
import { startRedis, type PrivateRedis } from "../../scripts/lib/private-redis.js";
import { BOND, PAYOUT, claimOn, credits, expectVerified, segmentWorld } from "../helpers/segment-claims.js";
import { inputs, payments } from "../helpers/segment-trace.js";
import {
  spawnWorker as spawnSegmentWorker,
  type WorkerEvent,
  type WorkerProcess,
} from "../helpers/segment-workers.js";

const CIRCUIT = "aap3_seg8";
const PREFIX = "zkvai-test";
// Short locks so that a killed worker's segment moves on within seconds: its lock lapses within LOCK_MS, and
// the survivor's stalled check, every STALLED_MS, needs two passes to take it back.
const LOCK_MS = 3000;
const STALLED_MS = 1000;
const WAIT_MS = 90_000;

const spawnWorker = (url: string) =>
  spawnSegmentWorker(url, { prefix: PREFIX, lockMs: LOCK_MS, stalledMs: STALLED_MS, waitMs: WAIT_MS });

let redis: PrivateRedis;
let workers: WorkerProcess[] = [];
let prover: QueueSegmentProver;
const progress: SegmentProgress[] = [];
let wasm: string;
let zkey: string;
let vkey: unknown;
let publicSignals: string[];
const signal = (name: string) => {
  const at = publicSignals.indexOf(name);
  if (at < 0) throw new Error(`${CIRCUIT} has no public signal ${name} (${publicSignals.join(", ")})`);
  return at;
};

function tasksFor(claimId: string): SegmentTask[] {
  const { inputs: all } = inputs(payments(20));
  return all.map((input, index) => ({ claimId, index, circuit: CIRCUIT, wasm, zkey, input }));
}

const started = (claimId: string) => (e: WorkerEvent) => e.event === "started" && e.claimId === claimId;
const provenBy = (w: WorkerProcess, claimId: string) =>
  w.events.flatMap((e) => (e.event === "proven" && e.claimId === claimId ? [e.index] : [])).sort();

async function expectValid(proofs: SegmentProof[], tasks: SegmentTask[]) {
  expect(proofs.map((p) => p.index)).toEqual(tasks.map((t) => t.index));
  for (const [i, p] of proofs.entries()) {
    expect(p.claimId).toBe(tasks[i]!.claimId);
    // The public signals are the task's: its stateIn and stateOut, where the manifest names them.
    expect(p.publicSignals[signal("stateIn")]).toBe(tasks[i]!.input.stateIn);
    expect(p.publicSignals[signal("stateOut")]).toBe(tasks[i]!.input.stateOut);
    expect(await snarkjs.groth16.verify(vkey as never, p.publicSignals, p.proof as never)).toBe(true);
  }
}

beforeAll(async () => {
  if (!loadManifest().circuits[CIRCUIT])
    throw new Error(
      `build/manifest.json has no ${CIRCUIT}: run \`npx tsx scripts/setup.ts --only ${CIRCUIT}\``,
    );
  const artifacts = circuitArtifacts(CIRCUIT);
  ({ wasm, zkey, publicSignals } = artifacts);
  vkey = JSON.parse(readFileSync(artifacts.vkey, "utf8"));
  redis = await startRedis();
  workers = await Promise.all([spawnWorker(redis.url), spawnWorker(redis.url)]);
  prover = new QueueSegmentProver({
    connection: { host: redis.host, port: redis.port },
    prefix: PREFIX,
    attempts: 3,
    backoffMs: 200,
    timeoutMs: 140_000,
    onProgress: (p) => progress.push(p),
  });
});

afterAll(async () => {
  await prover?.close();
  await Promise.all(workers.map((w) => w.stop()));
  await redis?.stop();
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
});

describe("segment proving on BullMQ", () => {
  let first: SegmentProof[];

  it("proves every segment of a claim on two worker processes, each exactly once", async () => {
    const tasks = tasksFor("101");
    expect(tasks.length).toBe(3);
    const heard: number[] = [];
    first = await prover.proveAll(tasks, (p) => heard.push(p.index));
    await expectValid(first, tasks);
    expect(heard.sort()).toEqual([0, 1, 2]);
    // Each segment was proven once: one "proven" line per index across both workers.
    expect(workers.flatMap((w) => provenBy(w, "101")).sort()).toEqual([0, 1, 2]);
    // The workers reported both marks of every segment (the events may trail the answer by a moment).
    await vi.waitFor(
      () => {
        for (const index of [0, 1, 2])
          expect(
            progress
              .filter((p) => p.claimId === "101" && p.index === index)
              .map((p) => p.stage)
              .sort(),
          ).toEqual(["proven", "started"]);
      },
      { timeout: 10_000 },
    );
  }, 150_000);

  it("the claim watcher settles a long-session claim through the queue exactly once, though a worker is killed mid-segment", async () => {
    // An in-process chain with the segment verifier of aap3_seg8, and a 20-record session violated in its last
    // segment: the watcher answers it through this queue, and whichever worker takes a segment first is killed
    // while it holds it. The survivor proves all three; the claim settles once, for the user.
    const world = await segmentWorld();
    try {
      const { claimId } = await claimOn(world, 20, [18]);
      const id = String(claimId);
      const before = await credits(world);
      const watcher = ClaimWatcher.open({
        store: world.store,
        escrow: world.deployment.escrow,
        statePath: join(mkdtempSync(join(tmpdir(), "zkvai-queue-watch-")), "watcher.sqlite"),
        segmentProver: prover,
        log: { log: () => undefined },
      });
      try {
        const ticked = watcher.tick();
        ticked.catch(() => {}); // awaited below; not unhandled while the kill is arranged
        const hit = await Promise.race(
          workers.map((w) =>
            w.waitFor(started(id), `a started segment of claim ${id}`).then((e) => ({ w, e })),
          ),
        );
        const victim = hit.w;
        const survivor = workers.find((w) => w !== victim)!;
        const held = (hit.e as { index: number }).index;
        victim.child.kill("SIGKILL");
        workers = [survivor];
        await new Promise((r) => victim.child.once("exit", r));
        const report = await ticked;
        expect(report.settled).toEqual([claimId]);
        expect(report.retrying).toEqual([]);
        expect(provenBy(victim, id)).toEqual([]);
        expect(provenBy(survivor, id)).toEqual([0, 1, 2]);
        // The survivor's stalled check gave the held segment back to the queue.
        await survivor.waitFor(
          (e) =>
            e.event === "stalled" && String((e as { jobId?: string }).jobId).startsWith(`${id}:${held}:`),
          `the stall of segment ${held}`,
        );
        // Exactly one settlement, violated, and the money moved once.
        const settlements = await world.deployment.escrow.settlementsOf(claimId);
        expect(settlements.map((s) => s.args.violated)).toEqual([true]);
        expect((await world.deployment.escrow.claim(claimId)).status).toBe(ClaimStatus.Settled);
        const after = await credits(world);
        expect(after.user - before.user).toBe(PAYOUT + BOND);
        expect(after.provider - before.provider).toBe(0n);
        // The user's `vai verify` agrees, from the chain alone.
        await expectVerified(world, claimId, true);
        // A second tick sends nothing more.
        const again = await watcher.tick();
        expect(again.settled).toEqual([]);
        expect(await world.deployment.escrow.settlementsOf(claimId)).toHaveLength(1);
      } finally {
        watcher.close();
      }
    } finally {
      await world.close();
    }
  }, 240_000);

  it("answers the same tasks again from the stored proofs, proving nothing", async () => {
    const before = workers[0]!.events.filter(started("101")).length;
    const again = new QueueSegmentProver({ connection: redis.url, prefix: PREFIX });
    try {
      const heard: number[] = [];
      const proofs = await again.proveAll(tasksFor("101"), (p) => heard.push(p.index));
      expect(proofs).toEqual(first);
      expect(heard).toEqual([0, 1, 2]);
      // A resumed answer asks for the segments the escrow does not hold yet: another flow, the same jobs.
      expect(await again.proveAll(tasksFor("101").slice(1))).toEqual(first.slice(1));
    } finally {
      await again.close();
    }
    expect(workers[0]!.events.filter(started("101")).length).toBe(before);
  }, 150_000);

  it("dead-letters a segment without a witness after its attempts, and fails the claim naming it", async () => {
    // Claim 101 again with segment 1 forged: segments 0 and 2 are the proven jobs, segment 1 a new one.
    const tasks = tasksFor("101");
    tasks[1] = { ...tasks[1]!, input: { ...tasks[1]!.input, stateOut: "12345" } };
    const broken = segmentJobId(tasks[1]!);
    const before = workers[0]!.events.filter(started("101")).length;
    const error = await prover.proveAll(tasks).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SegmentDeadLetteredError);
    const dead = error as SegmentDeadLetteredError;
    expect(dead.message).toMatch(/claim 101 segment 1 failed after 3 attempt/);
    expect(dead.message).toMatch(/no witness satisfies the circuit/);
    expect([dead.claimId, dead.index, dead.jobId, dead.attemptsMade]).toEqual(["101", 1, broken, 3]);
    // The worker reports its last failure on its own channel, which may arrive after the producer has seen the
    // job fail for good: wait for the report rather than assume the order.
    const finals = () =>
      workers[0]!.events
        .filter((e) => e.event === "failed" && e.jobId === broken)
        .map((e) => (e as { final: boolean }).final);
    await vi.waitFor(() => expect(finals()).toHaveLength(3), { timeout: 60_000, interval: 50 });
    expect(finals()).toEqual([false, false, true]);
    // Only the forged segment ran: three tries of it, nothing else.
    expect(workers[0]!.events.filter(started("101")).length - before).toBe(3);
    const queue = new Queue<DeadSegment>(DEAD_LETTER_QUEUE, {
      connection: { url: redis.url },
      prefix: PREFIX,
    });
    try {
      const entries = (await queue.getJobs(["waiting"])).filter((j) => j.data.jobId === broken);
      expect(entries.map((j) => j.id)).toEqual([dead.deadLetterId]);
      expect(entries[0]!.data).toMatchObject({ claimId: "101", index: 1, circuit: CIRCUIT, attemptsMade: 3 });
      expect(entries[0]!.data.error).toMatch(/no witness satisfies the circuit/);
      // Asked again, the failed segment is a new job with new attempts, and a second dead letter.
      const again = await prover.proveAll(tasks).then(
        () => undefined,
        (e: unknown) => e as SegmentDeadLetteredError,
      );
      expect(again).toBeInstanceOf(SegmentDeadLetteredError);
      expect([again!.index, again!.attemptsMade]).toEqual([1, 3]);
      expect(again!.deadLetterId).not.toBe(dead.deadLetterId);
      await vi.waitFor(() => expect(workers[0]!.events.filter(started("101")).length - before).toBe(6), {
        timeout: 60_000,
        interval: 50,
      });
      const both = (await queue.getJobs(["waiting"])).filter((j) => j.data.jobId === broken);
      expect(both.map((j) => j.id).sort()).toEqual([dead.deadLetterId, again!.deadLetterId].sort());
    } finally {
      await queue.close();
    }
  }, 150_000);

  it("drops completed jobs from Redis once they are older than keepCompletedSeconds", async () => {
    const brief = new QueueSegmentProver({ connection: redis.url, prefix: PREFIX, keepCompletedSeconds: 1 });
    const segments = new Queue(SEGMENTS_QUEUE, { connection: { url: redis.url }, prefix: PREFIX });
    try {
      const [old] = tasksFor("105");
      await brief.proveAll([old!]);
      expect(await Job.fromId(segments, segmentJobId(old!))).toBeDefined();
      await new Promise((r) => setTimeout(r, 1500));
      // Removal is lazy: the next completion in the queue sweeps the aged ones.
      const [next] = tasksFor("106");
      await brief.proveAll([next!]);
      await vi.waitFor(async () => expect(await Job.fromId(segments, segmentJobId(old!))).toBeUndefined(), {
        timeout: 10_000,
      });
    } finally {
      await segments.close();
      await brief.close();
    }
  }, 150_000);

  it("fails a segment whose circuit files the worker does not have, saying so", async () => {
    const quick = new QueueSegmentProver({ connection: redis.url, prefix: PREFIX, attempts: 1 });
    try {
      const [task] = tasksFor("104");
      const error = await quick.proveAll([{ ...task!, zkey: "/nowhere/aap3_seg8.zkey" }]).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(SegmentDeadLetteredError);
      expect(error!.message).toMatch(/claim 104 segment 0 failed after 1 attempt/);
      expect(error!.message).toMatch(/zkey \/nowhere\/aap3_seg8\.zkey is not on worker/);
    } finally {
      await quick.close();
    }
  }, 150_000);
});
