// Issue 34, finding 3: one bad BullMQ worker must not make a claim default. A real redis-server
// (scripts/lib/private-redis.ts), real worker processes, real proofs of the AAP-3 segment circuit at 8 records a
// segment (aap3_seg8: a 20-record session is 3 segments), and the claim watcher on an in-process chain.
//  1. Only a worker whose proofs do not verify (test/helpers/lying-segment-worker.ts --lie proof) is running:
//     every proof it returns is refused locally, removed from Redis and dead-lettered, and the segment proven
//     again; after the answer's rounds the claim stays pending (retried), not refused, and nothing was sent.
//     Before: ClaimError, the claim refused for good, and the bad jobs kept for 7 days.
//  2. A worker that returns honest proofs with a flipped word beside them (--lie words) takes a segment first,
//     then an honest worker joins: the next tick settles the claim once, for the user, sending words packed from
//     the verified proofs (no proof is rejected, so none of the flipped words reached the chain). Before: the
//     worker's words were sent, InvalidProof, refused.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Job, Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadManifest } from "../../sdk/manifest/manifest.js";
import { ClaimWatcher } from "../../prover/watcher.js";
import {
  DEAD_LETTER_QUEUE,
  QueueSegmentProver,
  SEGMENTS_QUEUE,
  type DeadSegment,
} from "../../prover/segments/queue.js";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import { startRedis, type PrivateRedis } from "../../scripts/lib/private-redis.js";
import { BOND, PAYOUT, claimOn, credits, expectVerified, segmentWorld } from "../helpers/segment-claims.js";
import { spawnWorker, type WorkerEvent, type WorkerProcess } from "../helpers/segment-workers.js";

const CIRCUIT = "aap3_seg8";
const PREFIX = "zkvai-liar";
const OPTS = { prefix: PREFIX, lockMs: 3000, stalledMs: 1000, waitMs: 120_000 };
const LIAR = "test/helpers/lying-segment-worker.ts";

let redis: PrivateRedis;
let prover: QueueSegmentProver;
const running: WorkerProcess[] = [];
const spawn = async (...lie: string[]) => {
  const w = await spawnWorker(redis.url, OPTS, lie.length ? LIAR : undefined, lie);
  running.push(w);
  return w;
};
const lies = (w: WorkerProcess, claimId: string) =>
  w.events.filter((e) => {
    const line = e as { event: string; claimId?: string };
    return line.event === "lied" && line.claimId === claimId;
  });

beforeAll(async () => {
  if (!loadManifest().circuits[CIRCUIT])
    throw new Error(
      `build/manifest.json has no ${CIRCUIT}: run \`npx tsx scripts/setup.ts --only ${CIRCUIT}\``,
    );
  redis = await startRedis();
  // One try per job: a worker's lie is a completed job, so BullMQ's own retries never see it.
  prover = new QueueSegmentProver({ connection: redis.url, prefix: PREFIX, attempts: 1, timeoutMs: 280_000 });
});

afterAll(async () => {
  await prover?.close();
  await Promise.all(running.map((w) => w.stop()));
  await redis?.stop();
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
});

describe("a lying segment worker on BullMQ", () => {
  it("cannot poison a claim: its proofs are discarded and proven again, and the claim settles once, correctly", async () => {
    const world = await segmentWorld();
    const dead = new Queue<DeadSegment>(DEAD_LETTER_QUEUE, {
      connection: { url: redis.url },
      prefix: PREFIX,
    });
    const segments = new Queue(SEGMENTS_QUEUE, { connection: { url: redis.url }, prefix: PREFIX });
    try {
      const { claimId } = await claimOn(world, 20, [18]);
      const id = String(claimId);
      const escrow = world.deployment.escrow;
      const before = await credits(world);
      const logged: { event: string; fields: Record<string, unknown> }[] = [];
      const watcher = ClaimWatcher.open({
        store: world.store,
        escrow,
        statePath: join(mkdtempSync(join(tmpdir(), "zkvai-liar-watch-")), "watcher.sqlite"),
        segmentProver: prover,
        retry: { initialMs: 10, maxMs: 50 },
        log: { log: (_level, event, fields) => logged.push({ event, fields: fields ?? {} }) },
      });
      const rejections = () => logged.filter((l) => l.event === "claim.segment_rejected");
      try {
        // 1. Only the worker whose proofs do not verify.
        const forger = await spawn("--lie", "proof");
        const first = await watcher.tick();
        expect(first.refused).toEqual([]);
        expect(first.settled).toEqual([]);
        expect(first.retrying).toEqual([claimId]);
        const view = watcher.claims().find((c) => c.claimId === claimId)!;
        expect(view.status).toBe("pending");
        expect(view.lastError).toMatch(/failed their checks and were discarded/);
        // Two rounds of three segments, every proof a lie, every one rejected and dead-lettered.
        expect(lies(forger, id)).toHaveLength(6);
        expect(rejections().map((r) => r.fields.index)).toEqual([0, 1, 2, 0, 1, 2]);
        for (const r of rejections()) expect(r.fields.reason).toBe("the proof does not verify locally");
        const letters = (await dead.getJobs(["waiting"])).filter((j) => j.data.claimId === id);
        expect(letters).toHaveLength(6);
        expect(new Set(letters.map((j) => j.id)).size).toBe(6);
        for (const l of letters) {
          expect(l.data.rejectedProofFrom).toMatch(/:\d+$/);
          expect(l.data.error).toBe("the proof does not verify locally");
        }
        // No bad result is left for a retry to be handed back, and nothing reached the chain.
        for (const jobId of new Set(letters.map((j) => j.data.jobId)))
          expect(await Job.fromId(segments, jobId)).toBeUndefined();
        expect(await escrow.settlementsOf(claimId)).toEqual([]);
        expect((await escrow.claim(claimId)).status).toBe(ClaimStatus.Open);
        await forger.stop();

        // 2. A worker that flips a word beside an honest proof takes a segment; then an honest one joins.
        const flipper = await spawn("--lie", "words");
        const second = watcher.tick();
        second.catch(() => {}); // awaited below
        await flipper.waitFor(
          (e) => e.event === "started" && (e as WorkerEvent & { claimId: string }).claimId === id,
          `a segment of claim ${id} on the word-flipping worker`,
        );
        const honest = await spawn();
        const report = await second;
        expect(report.settled).toEqual([claimId]);
        expect(lies(flipper, id).length).toBeGreaterThanOrEqual(1);
        expect(lies(flipper, id).length + honest.events.filter((e) => e.event === "proven").length).toBe(3);
        // Its proofs verified, so none was rejected: the words sent were packed from them, not the flipped ones.
        expect(rejections()).toHaveLength(6);
        const settlements = await escrow.settlementsOf(claimId);
        expect(settlements.map((s) => s.args.violated)).toEqual([true]);
        const after = await credits(world);
        expect(after.user - before.user).toBe(PAYOUT + BOND);
        expect(after.provider - before.provider).toBe(0n);
        await expectVerified(world, claimId, true);
        expect((await watcher.tick()).settled).toEqual([]);
        expect(await escrow.settlementsOf(claimId)).toHaveLength(1);
      } finally {
        watcher.close();
      }
    } finally {
      await Promise.all([dead.close(), segments.close()]);
      await world.close();
    }
  }, 600_000);
});
