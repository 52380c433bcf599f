// npm run test:full: segment chains on an in-process chain with real proofs and the real segment verifier.
// A satisfied 20-record chain settles through 2 worker processes; then the attacks: segments sent out of
// order settle once, a duplicate is refused, a reordered, skipping or shortened chain is refused, a segment
// proven for another session does not verify for this claim, and a state forged at a boundary does not
// verify. (npm test runs the violated chain, test/e2e/segments.test.ts, and the same attacks on the
// escrow's mock verifier, test/contracts/segments.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import { ClaimWatcher } from "../../prover/watcher.js";
import { loadClaim } from "../../prover/claims.js";
import { prepareSegments } from "../../prover/segments/claims.js";
import {
  claimOn,
  revertOf,
  segmentWorld,
  settleAndVerify,
  type SegmentWorld,
} from "../helpers/segment-claims.js";

let w: SegmentWorld;
beforeAll(async () => {
  w = await segmentWorld();
});
afterAll(async () => {
  await w?.close();
});

describe("segment chains with real proofs: satisfied, and the attacks", () => {
  it("the claim watcher answers a long-session claim by segments, through its local pool", async () => {
    const { claimId } = await claimOn(w, 20, [9]);
    const watcher = ClaimWatcher.open({
      store: w.store,
      escrow: w.deployment.escrow,
      statePath: join(mkdtempSync(join(tmpdir(), "zkvai-seg-watch-")), "watcher.sqlite"),
      segmentProver: w.pool,
      log: { log: () => undefined },
    });
    try {
      const report = await watcher.tick();
      expect(report.settled).toContain(claimId);
      const view = watcher.claims().find((c) => c.claimId === claimId)!;
      expect(view.verdict).toBe("violated");
      expect((await w.deployment.escrow.claim(claimId)).status).toBe(ClaimStatus.Settled);
    } finally {
      watcher.close();
    }
  });

  it("20 records in 3 segments through 2 worker processes, satisfied; vai verify agrees", async () => {
    await settleAndVerify(w, [], false);
  });

  it("settles once from segments sent out of order, and refuses duplicates, reordered chains and foreign segments", async () => {
    const escrow = w.deployment.escrow;
    const a = await claimOn(w, 20);
    const b = await claimOn(w, 20, [3]);
    const [pa, pb] = [
      await prepareSegments(await loadClaim(w.store, escrow, a.claimId), escrow),
      await prepareSegments(await loadClaim(w.store, escrow, b.claimId), escrow),
    ];
    const [proofsA, proofsB] = [await w.pool.proveAll(pa.tasks), await w.pool.proveAll(pb.tasks.slice(0, 1))];
    const words = (i: number) => proofsA.find((p) => p.index === i)!.words.map(BigInt);
    const s = pa.states;

    await escrow.openSegments(a.claimId);
    // Session B's segment 0 under claim A: it proves B's claim digest, not A's, so A's verification rejects it.
    const foreign = proofsB[0]!.words.map(BigInt);
    expect(await revertOf(escrow.proveSegment(a.claimId, 0n, pb.states[1]!, foreign))).toBe("InvalidProof");
    // Out of order: 2, 0, then a duplicate of 0, then 1.
    await escrow.proveSegment(a.claimId, s[2]!, s[3]!, words(2));
    await escrow.proveSegment(a.claimId, s[0]!, s[1]!, words(0));
    expect(await revertOf(escrow.proveSegment(a.claimId, s[0]!, s[1]!, words(0)))).toBe(
      "SegmentAlreadyProven",
    );
    // Settling before segment 1 is proven: the chain has a gap.
    expect(await revertOf(escrow.settleSegments(a.claimId, s))).toBe("SegmentNotProven");
    await escrow.proveSegment(a.claimId, s[1]!, s[2]!, words(1));
    // A reordered chain names links nobody proved; one that skips a segment too; a verdict alone is no chain.
    expect(await revertOf(escrow.settleSegments(a.claimId, [s[0]!, s[2]!, s[1]!, s[3]!]))).toBe(
      "SegmentNotProven",
    );
    expect(await revertOf(escrow.settleSegments(a.claimId, [s[0]!, s[1]!, s[3]!]))).toBe("SegmentNotProven");
    expect(await revertOf(escrow.settleSegments(a.claimId, [s[0]!, s[3]!]))).toBe("SegmentNotProven");
    // A state forged at a boundary: the proof does not verify with it.
    expect(await revertOf(escrow.proveSegment(a.claimId, s[1]! + 1n, s[2]!, words(1)))).toBe("InvalidProof");
    const settled = await escrow.settleSegments(a.claimId, s);
    expect(settled.violated).toBe(false);
    expect(await revertOf(escrow.settleSegments(a.claimId, s))).toBe("ClaimNotOpen");
  });
});
