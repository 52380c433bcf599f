// predicates/aap5/segment-repeats.ts, the TS side of AAP-5's segment chain, without compiling the circuit
// (test/circuits/segment-limits.test.ts holds the circuit to it): the carried state closes exactly as the last
// segment's SessionArgumentClose requires for honest labels, at challenges derived from the whole session, whatever
// the cut; and forged labels certified the same way do not close.
import { describe, expect, it } from "vitest";
import { FIELD_MODULUS as P, hashVector } from "../../sdk/core/hash.js";
import { limitsChain, type LimitsRow } from "../../sdk/core/predicates/aap5/segment-repeats.js";
import { occurrenceLabels } from "../../sdk/core/predicates/aap5/repeats.js";

const ROOT = 777n;
/** 24 rows: keys k0..k4 over and over (so each repeats across segments), the last 4 past n. */
const rows: LimitsRow[] = Array.from({ length: 24 }, (_, i) => ({
  live: i < 20,
  tool: i < 20 ? 9n : 0n,
  args: i < 20 ? BigInt(i % 5) : 0n,
  counted: i < 20 && i % 2 === 0,
  amount: i < 20 ? BigInt(i) : 0n,
}));

const closes = (rs: LimitsRow[], size: number, labels = occurrenceLabels(rs)) => {
  const chain = limitsChain(rs, size, ROOT, labels);
  const end = chain.carries.at(-1)!;
  return {
    chain,
    end,
    challenges:
      end.beta === hashVector([ROOT, end.packChain]) && end.zeta === hashVector([end.beta, end.weightChain]),
    multiset: end.labelled === end.steps,
    distinct: (end.roots * end.fractions) % P === (end.firsts === 0n ? 0n : 1n),
  };
};

describe("AAP-5's carried repeat state", () => {
  it("closes for honest labels, at challenges from the whole session, for any segment size", () => {
    const beta = new Set<bigint>();
    for (const size of [2, 4, 8, 24]) {
      const { end, challenges, multiset, distinct, chain } = closes(rows, size);
      expect([challenges, multiset, distinct]).toEqual([true, true, true]);
      expect(chain.carries).toHaveLength(24 / size + 1);
      expect([end.count, end.sum, end.firsts]).toEqual([10n, 190n, 5n]);
      // The pack chain is cut by segments, so the challenges depend on the cut (and are fixed by it).
      beta.add(end.beta);
    }
    expect(beta.size).toBe(4);
  });

  it("labels are the session's: a key's occurrences count on across segments", () => {
    const { chain } = closes(rows, 8);
    // Row 15 is the fourth occurrence of key 0 (rows 0, 5, 10, 15), in the second segment.
    expect(chain.count[15]).toBe(4n);
    expect(chain.last[15]).toBe(1n);
    expect(chain.count.slice(20)).toEqual([1n, 1n, 1n, 1n]);
  });

  it("forged labels, certified the same way, do not close", () => {
    const honest = occurrenceLabels(rows);
    for (const [row, label] of [
      [15, 3n],
      [15, 5n],
      [10, 4n],
    ] as const) {
      const count = [...honest.count];
      count[row] = label;
      const { multiset } = closes(rows, 8, { count, last: honest.last });
      expect(multiset, `row ${row} labelled ${label}`).toBe(false);
    }
    // A second first occurrence of a key has no certificate at all.
    const count = [...honest.count];
    count[5] = 1n;
    expect(() => closes(rows, 8, { count, last: honest.last })).toThrow(/no partial-fraction/);
  });

  it("a session with no call has nothing to certify", () => {
    const idle = rows.map((r) => ({ ...r, live: false, counted: false, amount: 0n }));
    const { end, challenges, multiset, distinct } = closes(idle, 8);
    expect([challenges, multiset, distinct, end.firsts]).toEqual([true, true, true, 0n]);
  });
});
