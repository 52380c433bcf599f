// How long a session a segment chain settles: the circuit's 16^6 records, or fewer where the escrow cannot take
// that many segments: settleSegments walks at most MAX_CHAIN_LINKS steps in one transaction's 2^24 gas, and each
// step is a span of at most MAX_BATCH_LINKS links (proveSegments), so MAX_SETTLEABLE_LINKS in all; the prover
// refuses a longer chain before it proves anything (test/contracts/chain-limit.test.ts settles the longest walk,
// test/contracts/segment-batch.test.ts measures the fullest batch).
import { describe, expect, it } from "vitest";
import {
  MAX_BATCH_LINKS,
  MAX_CHAIN_LINKS,
  MAX_SEGMENTED_RECORDS,
  MAX_SETTLEABLE_LINKS,
  SegmentError,
  planSegments,
  segmentChainCapacity,
} from "../../sdk/core/segments.js";

describe("segmentChainCapacity", () => {
  it("is S × MAX_SETTLEABLE_LINKS below the circuit's 16^6, and 16^6 above", () => {
    expect([MAX_CHAIN_LINKS, MAX_BATCH_LINKS, MAX_SETTLEABLE_LINKS]).toEqual([4_096, 160, 655_360]);
    expect(segmentChainCapacity(2)).toBe(1_310_720);
    expect(segmentChainCapacity(8)).toBe(5_242_880);
    expect(segmentChainCapacity(32)).toBe(MAX_SEGMENTED_RECORDS);
    expect(segmentChainCapacity(1024)).toBe(MAX_SEGMENTED_RECORDS);
  });

  it("planSegments refuses a chain of more links than a claim settles by, naming the count", () => {
    const leaves = Array<bigint>(2 * (MAX_SETTLEABLE_LINKS + 1)).fill(1n);
    expect(() =>
      planSegments({ depth: 1, leaves, entries: [], finalRoot: 0n, firstViolation: null }),
    ).toThrow(SegmentError);
    expect(() =>
      planSegments({ depth: 1, leaves, entries: [], finalRoot: 0n, firstViolation: null }),
    ).toThrow(
      `${leaves.length} records take ${MAX_SETTLEABLE_LINKS + 1} segments of 2; a claim settles at most ${MAX_SETTLEABLE_LINKS} (${MAX_CHAIN_LINKS} spans of ${MAX_BATCH_LINKS})`,
    );
  });
});
