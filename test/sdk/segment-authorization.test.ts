// predicates/aap1/segment-chains.ts, the TS side of AAP-1's segment chain, without compiling the circuit
// (test/circuits/segment-authorization.test.ts holds the circuit to it): the carried state closes exactly as
// the last segment's SessionArgumentClose requires for honest labels, at challenges derived from the whole
// session, whatever the cut; a member's chain reaches back across segments; and forged labels certified the
// same way do not close.
import { describe, expect, it } from "vitest";
import { KIND, SLOT, SLOT_COUNT } from "../../sdk/core/encoding.js";
import { FIELD_MODULUS as P, hashVector } from "../../sdk/core/hash.js";
import { authorizationLabels, type ChainLabels } from "../../sdk/core/predicates/aap1/chains.js";
import { authorizationChain } from "../../sdk/core/predicates/aap1/segment-chains.js";

const ROOT = 4242n;
const GATED = [7n, 0n, 0n, 0n];
const ACCEPTED = [1n, 1n, 0n];
/** A row's slots: kind, tool, args, action, aux (allow by a human: 1 + 4·1), the rest 0. */
function row(kind: bigint, tool: bigint, args: bigint, action: bigint, aux = 0n): bigint[] {
  const s = Array<bigint>(SLOT_COUNT).fill(0n);
  s[SLOT.kind] = kind;
  s[SLOT.tool] = tool;
  s[SLOT.args] = args;
  s[SLOT.action] = action;
  s[SLOT.aux] = aux;
  return s;
}
const approve = (action: bigint, args: bigint) => row(KIND.authorization, 7n, args, action, 5n);
const gated = (action: bigint, args: bigint) => row(KIND.call, 7n, args, action);
const other = (i: number) => row(KIND.call, 8n, BigInt(i), 0n);
/** 24 rows, n = 20: three action ids approved, used and replayed across segments of 8; 20..23 past n. */
const N = 20;
const slots = Array.from({ length: 24 }, (_, i) => {
  const at: Record<number, bigint[]> = {
    0: approve(1n, 11n),
    3: approve(2n, 12n),
    6: gated(1n, 11n),
    9: gated(2n, 12n),
    10: approve(3n, 13n),
    15: gated(1n, 11n),
    17: gated(3n, 13n),
  };
  return i >= N ? Array<bigint>(SLOT_COUNT).fill(0n) : (at[i] ?? other(i));
});

const closes = (size: number, forged?: ChainLabels) => {
  const chain = authorizationChain(slots, N, size, ROOT, GATED, ACCEPTED, { labels: forged });
  const end = chain.carries.at(-1)!;
  return {
    chain,
    end,
    challenges:
      end.beta === hashVector([ROOT, end.packChain]) && end.zeta === hashVector([end.beta, end.weightChain]),
    multiset: end.states === end.handOffs,
    distinct: (end.roots * end.fractions) % P === 1n,
  };
};
const honest = authorizationLabels(slots, N, ROOT, GATED, ACCEPTED).labels;

describe("AAP-1's carried authorization state", () => {
  it("closes for honest labels, at challenges from the whole session, for any segment size", () => {
    const beta = new Set<bigint>();
    for (const size of [1, 2, 4, 8, 24]) {
      const { end, challenges, multiset, distinct, chain } = closes(size);
      expect([challenges, multiset, distinct]).toEqual([true, true, true]);
      expect(chain.carries).toHaveLength(24 / size + 1);
      expect(end.firsts).toBe(3n);
      beta.add(end.beta);
    }
    // The pack chain is cut by segments, so the challenges depend on the cut (and are fixed by it).
    expect(beta.size).toBe(5);
  });

  it("labels are the session's: a chain reaches back across segments", () => {
    // Row 15 (segment 1 at 8 a segment) replays action 1, approved at 0 and used at 6 (segment 0).
    expect([honest.rank[15], honest.pred[15], honest.validIn[15], honest.usedIn[15]]).toEqual([
      3n,
      6n,
      1n,
      1n,
    ]);
    expect(honest.last[15]).toBe(1n);
    expect(honest.rank.slice(N)).toEqual([1n, 1n, 1n, 1n]);
    expect(honest.last.slice(N)).toEqual([0n, 0n, 0n, 0n]);
  });

  it("forged labels, certified the same way, do not close", () => {
    const lies: [string, (l: ChainLabels) => void][] = [
      // The replay reads the approval's fresh state instead of the used one.
      ["replay as fresh", (l) => ((l.pred[15] = 0n), (l.rank[15] = 2n), (l.usedIn[15] = 0n))],
      ["usedIn cleared", (l) => (l.usedIn[15] = 0n)],
      ["a rank skipped", (l) => (l.rank[15] = 4n)],
      ["a chain's end moved", (l) => ((l.last[15] = 0n), (l.last[6] = 1n))],
      ["another action's state", (l) => (l.coversIn[17] = l.coversIn[9]!)],
    ];
    for (const [what, lie] of lies) {
      const forged = structuredClone(honest);
      lie(forged);
      for (const size of [4, 8]) expect(closes(size, forged).multiset, `${what}, ${size}`).toBe(false);
    }
  });

  it("a second first member of one action id has no certificate", () => {
    const forged = structuredClone(honest);
    forged.rank[15] = 1n;
    forged.pred[15] = 0n;
    forged.validIn[15] = 0n;
    forged.usedIn[15] = 0n;
    forged.coversIn[15] = 0n;
    expect(() => closes(8, forged)).toThrow(/no partial-fraction/);
  });
});
