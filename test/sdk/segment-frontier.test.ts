// sdk/core/segments.ts's Merkle frontier against the trace commitment (sdk/core/merkle.ts): for segment
// depths 1, 4, 5, 7 and 10 (carried levels q = 0..2, block counts 2^(depth mod 4) of 1, 2, 4 and 8), joining a trace's
// segments one by one gives, at the trace's height, exactly commitmentRoot of its leaves. The circuit's
// frontier is held to this mirror by test/circuits/segment.test.ts (depth 3); this covers the shapes the
// production depth 10 (q = 2, four level-2 nodes per segment) takes, without compiling it.
import { describe, expect, it } from "vitest";
import { commitmentRoot, treeHeight } from "../../sdk/core/merkle.js";
import { emptyFrontier, joinFrontier, segmentCount } from "../../sdk/core/segments.js";

function rootByFrontier(leaves: bigint[], depth: number): bigint {
  const size = 2 ** depth;
  let pending = emptyFrontier(depth);
  let candidates: bigint[] = [];
  for (let j = 0; j < segmentCount(leaves.length, size); j++) {
    const chunk = Array.from({ length: size }, (_, i) => leaves[j * size + i] ?? 0n);
    ({ pendingOut: pending, candidates } = joinFrontier(depth, j, chunk, pending));
  }
  return candidates[treeHeight(leaves.length)]!;
}

describe("the segment frontier reproduces the trace commitment", () => {
  // Block counts 2, 1, 2, 8, 4 per level q = 0, 1, 1, 1, 2 (depth 10 is production's). npm test takes a
  // shape with one level carried and blocks of 2 (depth 5) and production's; test:full takes all five.
  const depths = process.env.ZKVAI_FULL === "1" ? [1, 4, 5, 7, 10] : [5, 10];
  for (const depth of depths) {
    const size = 2 ** depth;
    // 257 and 4097 cross a level-2 and a level-3 group; kept to a few hundred segments (TS Poseidon is slow).
    const ns = [
      ...new Set([1, 2, size - 1, size, size + 1, 3 * size - 1, 16, 17, 257, depth >= 6 ? 4097 : 1]),
    ]
      .filter((n) => n >= 1)
      .sort((a, b) => a - b);
    it(`segments of ${size} records: n = ${ns.join(", ")}`, () => {
      for (const n of ns) {
        const leaves = Array.from({ length: n }, (_, i) => BigInt(1000 + i));
        expect(rootByFrontier(leaves, depth), `n = ${n}`).toBe(commitmentRoot(leaves));
      }
    });
  }
});
