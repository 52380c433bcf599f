// Sessions longer than any whole-claim circuit settle through segment chains, with real proofs on an
// in-process chain: a 20-record AAP-3 session (the test group's whole-claim circuit holds 4) is cut into 3
// segments of 8, proven by a local pool of worker processes, sent with proveSegment and settled once with
// settleSegments, here violated in its last segment, and checked again by the user's `vai verify`. The
// satisfied chain settles in the demo (test/e2e/demo.test.ts); the attacks on real proofs (segments out of
// order, duplicates, reordered chains, foreign segments) run in npm run test:full
// (test/full/segment-attacks.test.ts), and with the escrow's mock verifier in test/contracts/segments.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { segmentWorld, settleAndVerify, type SegmentWorld } from "../helpers/segment-claims.js";

let w: SegmentWorld;
beforeAll(async () => {
  w = await segmentWorld();
});
afterAll(async () => {
  await w?.close();
});

describe("segment chains settle on-chain with real proofs", () => {
  it("registers the test group's segment verifier and lets sessions grow past the whole-claim circuits", async () => {
    // AAP-3's, beside the other predicates' segment circuits the build holds (AAP-6's aap6_seg8 in the full group, built by test:full).
    expect(w.deployment.record.segmentVerifiers.map((v) => [v.circuit, v.segmentSize])).toContainEqual([
      "aap3_seg8",
      8,
    ]);
    expect(await w.deployment.escrow.segmentVerifier(3)).toMatchObject({ segmentSize: 8, checkpoints: 2 });
  });

  it("20 records in 3 segments through 2 worker processes, violated in the last segment; vai verify agrees", async () => {
    await settleAndVerify(w, [18], true);
  });
});
