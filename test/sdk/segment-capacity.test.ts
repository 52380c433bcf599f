// How long a session a segment chain settles: the circuit's 16^6 records, or fewer where one settleSegments
// call cannot link that many segments within one transaction's 2^24 gas (MAX_CHAIN_LINKS), and the prover
// refuses such a chain before it proves anything (test/contracts/chain-limit.test.ts settles the longest).
import { describe, expect, it } from "vitest";
import {
  MAX_CHAIN_LINKS,
  MAX_SEGMENTED_RECORDS,
  SegmentError,
  planSegments,
  segmentChainCapacity,
} from "../../sdk/core/segments.js";

describe("segmentChainCapacity", () => {
  it("is S × MAX_CHAIN_LINKS below the circuit's 16^6, and 16^6 above", () => {
    expect(MAX_CHAIN_LINKS).toBe(4_096);
    expect(segmentChainCapacity(8)).toBe(32_768);
    expect(segmentChainCapacity(1024)).toBe(4_194_304);
    expect(segmentChainCapacity(4096)).toBe(MAX_SEGMENTED_RECORDS);
  });

  it("planSegments refuses a chain of more links than one settleSegments call takes, naming the count", () => {
    const leaves = Array<bigint>(2 * (MAX_CHAIN_LINKS + 1)).fill(1n);
    expect(() =>
      planSegments({ depth: 1, leaves, entries: [], finalRoot: 0n, firstViolation: null }),
    ).toThrow(SegmentError);
    expect(() =>
      planSegments({ depth: 1, leaves, entries: [], finalRoot: 0n, firstViolation: null }),
    ).toThrow(
      `${leaves.length} records take ${MAX_CHAIN_LINKS + 1} segments of 2; one settleSegments call links at most ${MAX_CHAIN_LINKS}`,
    );
  });
});
