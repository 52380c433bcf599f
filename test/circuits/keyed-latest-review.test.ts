// Adversarial review of circuits/gadgets/keyed_latest.circom (KeyedLatest, KeyedLatestFrom) beyond
// test/circuits/keyed-latest.test.ts. Three parts:
//  1. The combinatorial core, exhaustively: for small traces, every choice of read answers, ages (those
//     reaching below time 0 never balance and are pruned; part 2 tries them on the r1cs), introductions and
//     final tuples that balances the two multisets *exactly* (as tuples, no fingerprints) with distinct
//     introduced keys and in-range hints answers as the model does.
//  2. Targeted forgeries on the whole-claim r1cs (`play`): no introduction at all, an introduction on a
//     later access, answers crossed between keys, a final tuple taking the initial one, wrapped ages, and
//     the packing of the small hints overflowed with the pack (hence beta) unchanged. All refused.
//  3. What the segmented gadget does NOT enforce by itself, shown on KeyedLatestFrom(4, 4) with every
//     carried value equal to the previous segment's output and the first segment from the identities:
//     beta/zeta are inputs, not carried outputs, so a middle segment may use its own zeta and a lie closes;
//     start is not chained, so two segments may swap times; a chain never closed (isLast = 0) checks nothing.
//     Each is a lie the r1cs accepts: obligations on the caller (see the review report).
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import {
  keyedLatest,
  keyedLatestChain,
  keyedLatestHints,
  keyedLatestStart,
  type KeyedLatestCarry,
  type KeyedLatestHints,
  type KeyedRow,
} from "../../sdk/core/keyed-latest.js";
import { countBits, packLabels, rowWeights } from "../../sdk/core/multiset.js";
import { play } from "../helpers/adversary.js";
import {
  compileKeyedLatestFrom,
  keyedHintInput,
  keyedRows,
  keyedStatement,
  withAt,
} from "../helpers/keyed-latest.js";
import { compileTestCircuit, signalValue, witnessFails, type TestCircuit } from "../helpers/circuit.js";

const P = FIELD_MODULUS;
const mod = (x: bigint) => ((x % P) + P) % P;
const SEED = 0x7265766965n;

/** Weights for the introduced keys: the certificate when they are distinct, 1 on every introduction otherwise. */
function weightsFor(r: readonly KeyedRow[], h: KeyedLatestHints): bigint[] {
  try {
    return rowWeights(r.map((x, i) => (h.intro[i] === 1n ? x.key : null)));
  } catch {
    return h.intro.map((x) => (x === 1n ? 1n : 0n));
  }
}

/** The whole-claim input for these hints, challenges drawn from them exactly as the circuit pins them. */
function wholeInput(r: readonly KeyedRow[], h: KeyedLatestHints) {
  const chain = keyedLatestChain(r, r.length, SEED, countBits(r.length), h, weightsFor(r, h));
  return {
    ...keyedStatement(r),
    seed: String(SEED),
    ...keyedHintInput(h, chain.weight),
    beta: String(chain.beta),
    zeta: String(chain.zeta),
  };
}

/** A copy of hints with some rows' fields replaced. */
function edit(h: KeyedLatestHints, changes: [keyof KeyedLatestHints, number, bigint][]): KeyedLatestHints {
  const out = { ...h };
  for (const [field, i, v] of changes) out[field] = withAt(out[field], i, v);
  return out;
}

/**
 * Honest hints for a timeline in which row i's access happens at times[i] (the circuit's start + i + 1):
 * accesses are processed in time order, so where times are not the row order the answers are not the model's.
 */
function timedHints(r: readonly KeyedRow[], times: readonly bigint[]): KeyedLatestHints {
  const n = r.length;
  const zeros = () => Array<bigint>(n).fill(0n);
  const h: KeyedLatestHints = {
    seen: zeros(),
    latest: zeros(),
    age: zeros(),
    intro: zeros(),
    finalValue: zeros(),
    finalSeen: zeros(),
    finalTime: zeros(),
  };
  const held = new Map<bigint, { value: bigint; seen: boolean; time: bigint; introRow: number }>();
  const order = r.map((_, i) => i).sort((a, b) => (times[a]! < times[b]! ? -1 : 1));
  for (const i of order) {
    const row = r[i]!;
    if (!row.hasKey) continue;
    let t = held.get(row.key);
    if (t === undefined) {
      h.intro[i] = 1n;
      t = { value: 0n, seen: false, time: 0n, introRow: i };
    }
    h.seen[i] = t.seen ? 1n : 0n;
    h.latest[i] = t.value;
    h.age[i] = times[i]! - 1n - t.time;
    const v = row.write ? { value: row.value, seen: true } : { value: t.value, seen: t.seen };
    held.set(row.key, { ...v, time: times[i]!, introRow: t.introRow });
  }
  for (const t of held.values()) {
    h.finalValue[t.introRow] = t.value;
    h.finalSeen[t.introRow] = t.seen ? 1n : 0n;
    h.finalTime[t.introRow] = t.time;
  }
  return h;
}

// ---------------------------------------------------------------------------------------------------------
// 1. The combinatorial core, exhaustively.
// ---------------------------------------------------------------------------------------------------------

/**
 * Every assignment of (seen, latest, age) on the keyed rows, with latest over `values` (the trace's written
 * values, 0, and one never written) and age over its TB bits (those below time 0 pruned: they never balance), and
 * every set of introductions (any keyed row, so also a later access, or several of one key), whose multisets
 * balance exactly once the final tuples take what is left: the leftover must be one tuple per introduction of
 * its key, with finalSeen boolean and finalTime in TB + 1 bits. Returns the answers of every solution whose
 * introduced keys are distinct (what the certificate enforces), and how many balanced with a repeated key.
 */
function balancedAnswers(r: readonly KeyedRow[], tb: number) {
  const keyed = r.flatMap((x, i) => (x.hasKey ? [i] : []));
  const values = [...new Set([0n, 99n, ...r.filter((x) => x.write).map((x) => x.value)])];
  const answers: { seen: bigint; latest: bigint }[] = [];
  for (const seen of [0n, 1n]) for (const latest of values) answers.push({ seen, latest });
  const tupleKey = (k: bigint, v: bigint, s: bigint, t: bigint) => `${k}|${v}|${s}|${t}`;
  const solutions: { seen: bigint; latest: bigint }[][] = [];
  let repeated = 0;
  const pick: { seen: bigint; latest: bigint; age: bigint }[] = [];
  const recurse = (depth: number) => {
    if (depth === keyed.length) {
      // Signed multiset: produced writes minus reads.
      const diff = new Map<string, number>();
      const add = (k: string, d: number) => diff.set(k, (diff.get(k) ?? 0) + d);
      keyed.forEach((i, d) => {
        const row = r[i]!;
        const { seen, latest, age } = pick[d]!;
        const now = BigInt(i + 1);
        add(tupleKey(row.key, latest, seen, now - 1n - age), -1);
        const [v, s] = row.write ? [row.value, 1n] : [latest, seen];
        add(tupleKey(row.key, v, s, now), +1);
      });
      // Introductions: any subset of the keyed rows.
      for (let mask = 0; mask < 1 << keyed.length; mask++) {
        const introKeys = keyed.filter((_, d) => mask & (1 << d)).map((i) => r[i]!.key);
        const d2 = new Map(diff);
        for (const k of introKeys)
          d2.set(tupleKey(k, 0n, 0n, 0n), (d2.get(tupleKey(k, 0n, 0n, 0n)) ?? 0) + 1);
        // What is left must be exactly the final tuples: per introduction of key k one tuple of key k.
        const left = new Map<bigint, number>();
        let ok = true;
        for (const [t, count] of d2) {
          if (count === 0) continue;
          if (count < 0) {
            ok = false;
            break;
          }
          const [k, , s, time] = t.split("|").map(BigInt) as [bigint, bigint, bigint, bigint];
          if (s > 1n || time < 0n || time >= 2n ** BigInt(tb + 1)) {
            ok = false;
            break;
          }
          left.set(k, (left.get(k) ?? 0) + count);
        }
        if (!ok) continue;
        const wanted = new Map<bigint, number>();
        for (const k of introKeys) wanted.set(k, (wanted.get(k) ?? 0) + 1);
        if (left.size !== wanted.size || [...wanted].some(([k, c]) => left.get(k) !== c)) continue;
        if (new Set(introKeys).size !== introKeys.length) repeated++;
        else solutions.push(pick.map(({ seen, latest }) => ({ seen, latest })));
      }
      return;
    }
    // Ages reaching below time 0 read a wrapped time (a field element near r) that no produced tuple has
    // (their times are 0..2^TB): such a read never balances, so only ages up to the row's index are tried.
    const i = keyed[depth]!;
    for (const a of answers)
      for (let age = 0n; age < 2n ** BigInt(tb) && age <= BigInt(i); age++) {
        pick[depth] = { ...a, age };
        recurse(depth + 1);
      }
  };
  recurse(0);
  return { solutions, repeated };
}

describe("the memory-checking core, exhaustively over small traces (exact multisets)", () => {
  const truthOf = (r: readonly KeyedRow[]) =>
    keyedLatest(r)
      .filter((_, i) => r[i]!.hasKey)
      .map((a) => ({ seen: a.seen ? 1n : 0n, latest: a.latest }));

  it("every balanced assignment with distinct introductions answers as the model (hand traces)", () => {
    const traces = [
      keyedRows(4, "7=3", "7"),
      keyedRows(4, "7=3", "7=4", "7"),
      keyedRows(4, "7", "7=3", "7"),
      keyedRows(4, "7=3", "8=4", "7", "8"),
      keyedRows(4, "7=0", "7", ".", "7"),
      keyedRows(4, "0=5", "0"),
      keyedRows(4, ".", "7=5", ".", "7"),
      keyedRows(4, "7", "7", "7=5", "7"),
    ];
    for (const [t, r] of traces.entries()) {
      const { solutions } = balancedAnswers(r, countBits(4));
      expect(solutions.length, `trace ${t}`).toBeGreaterThan(0);
      for (const s of solutions) expect(s, `trace ${t}`).toEqual(truthOf(r));
    }
  });

  it("a 'never observed' lie after a write balances only with a repeated introduction", () => {
    // The lie is possible at the multiset level, which is why DistinctRootsFrom is essential.
    const { repeated } = balancedAnswers(keyedRows(4, "7=3", "7"), countBits(4));
    expect(repeated).toBeGreaterThan(0);
  });

  it("and on 25 random traces of 4 rows over two keys", () => {
    const row = fc.record({
      key: fc.constantFrom(0n, 1n),
      hasKey: fc.boolean(),
      write: fc.boolean(),
      value: fc.constantFrom(0n, 5n),
    });
    fc.assert(
      fc.property(fc.array(row, { minLength: 4, maxLength: 4 }), (raw) => {
        const r = raw.map((x) => ({ ...x, write: x.hasKey && x.write }));
        const { solutions } = balancedAnswers(r, countBits(4));
        expect(solutions.length).toBeGreaterThan(0);
        for (const s of solutions) expect(s).toEqual(truthOf(r));
      }),
      { numRuns: 25, seed: 20_261_204 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// 2. Targeted forgeries on the whole-claim r1cs.
// ---------------------------------------------------------------------------------------------------------

describe("KeyedLatest(6): targeted forgeries, judged by the r1cs", () => {
  const N = 6;
  const TB = countBits(N);
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("keyed-latest", {
      includes: ["circuits/gadgets/keyed_latest.circom"],
      template: "KeyedLatest",
      args: [N],
      publicSignals: ["key", "hasKey", "write", "value", "seed"],
    });
  });
  const refused = async (r: KeyedRow[], h: KeyedLatestHints, what: string) => {
    const input = wholeInput(r, h);
    expect(await witnessFails(c, input), what).toBe(true);
    expect((await play(c, { input })).accepted, `${what}, solved`).toBe(false);
  };

  it("an introduction on a later access of its key is accepted with the true answers, and changes nothing", async () => {
    const r = keyedRows(N, "7=3", "7", "7=4", "7");
    const h = keyedLatestHints(r);
    // Move key 7's introduction (and its final tuple) from row 0 to row 2.
    const moved = edit(h, [
      ["intro", 0, 0n],
      ["finalValue", 0, 0n],
      ["finalSeen", 0, 0n],
      ["finalTime", 0, 0n],
      ["intro", 2, 1n],
      ["finalValue", 2, h.finalValue[0]!],
      ["finalSeen", 2, h.finalSeen[0]!],
      ["finalTime", 2, h.finalTime[0]!],
    ]);
    expect((await play(c, { input: wholeInput(r, moved) })).accepted).toBe(true);
    // ... but with a lie (row 3 answers the older write 3) it is refused as before.
    await refused(r, edit(moved, [["latest", 3, 3n]]), "moved intro, older write");
    await refused(
      r,
      edit(moved, [
        ["latest", 3, 3n],
        ["age", 3, 2n],
      ]),
      "moved intro, older write's time",
    );
  });

  it("no introduction at all: every answer 'never observed' is refused", async () => {
    const r = keyedRows(N, "7=3", "7", "8");
    const none = keyedLatestHints(keyedRows(N));
    // Each row reads (k, 0, 0, t) for every t its age allows; no initial or final tuple anywhere.
    for (let a1 = 0n; a1 < 2n; a1++)
      for (let a2 = 0n; a2 < 3n; a2++)
        await refused(
          r,
          edit(none, [
            ["age", 1, a1],
            ["age", 2, a2],
          ]),
          `no intro, ages ${a1},${a2}`,
        );
  });

  it("answers crossed between two keys (each reads the other's write) are refused", async () => {
    const r = keyedRows(N, "7=3", "8=4", "7", "8");
    const h = keyedLatestHints(r);
    const crossed = edit(h, [
      ["latest", 2, 4n],
      ["age", 2, 0n], // reads (7, 4, 1, 2): key 8's write, relabelled
      ["latest", 3, 3n],
      ["age", 3, 2n], // reads (8, 3, 1, 1)
      ["finalValue", 0, 4n],
      ["finalValue", 1, 3n],
    ]);
    await refused(r, crossed, "crossed keys");
  });

  it("a final tuple taking the initial tuple (finalTime 0), with the first read of a wrapped time, is refused", async () => {
    const r = keyedRows(N, "7=3", "7");
    const h = keyedLatestHints(r);
    for (let age = 1n; age < 2n ** BigInt(TB); age++) {
      const forged = edit(h, [
        ["age", 0, age], // time 0 − age: below 0, a field element near r
        ["finalValue", 0, 0n],
        ["finalSeen", 0, 0n],
        ["finalTime", 0, 0n],
      ]);
      await refused(r, forged, `final takes init, age ${age}`);
    }
  });

  it("every answer with every age on every keyed row (one row changed) is refused", async () => {
    const r = keyedRows(N, "7=3", "7", "7=4", "8", "7");
    const h = keyedLatestHints(r);
    const truth = keyedLatest(r);
    let tried = 0;
    for (let i = 0; i < N; i++) {
      if (!r[i]!.hasKey) continue;
      for (const seen of [0n, 1n])
        for (const latest of [0n, 3n, 4n])
          for (let age = 0n; age < 2n ** BigInt(TB); age++) {
            const honest =
              seen === (truth[i]!.seen ? 1n : 0n) && latest === truth[i]!.latest && age === h.age[i];
            if (honest) continue;
            // The row's write-back follows its answer; every later tuple of the key is left honest.
            const input = wholeInput(
              r,
              edit(h, [
                ["seen", i, seen],
                ["latest", i, latest],
                ["age", i, age],
              ]),
            );
            expect(await witnessFails(c, input), `row ${i} ${seen}/${latest}/${age}`).toBe(true);
            tried++;
          }
    }
    expect(tried).toBeGreaterThan(150);
  });

  it("the packing is injective only through the range checks: overflowed hints with the same pack are refused", async () => {
    const WIDTH = 2 * TB + 4;
    const label = (h: KeyedLatestHints, i: number) =>
      h.seen[i]! +
      (h.age[i]! << 1n) +
      (h.intro[i]! << BigInt(TB + 1)) +
      (h.finalSeen[i]! << BigInt(TB + 2)) +
      (h.finalTime[i]! << BigInt(TB + 3));
    const packs = (h: KeyedLatestHints) =>
      packLabels(
        h.seen.map((_, i) => label(h, i)),
        WIDTH,
      ).map(mod);
    // (a) Row 1 drops its introduction and reads 2^TB further back: age + 2^TB carries into the intro bit.
    const r = keyedRows(N, "8=1", "7", "7=3", "7");
    const h = keyedLatestHints(r);
    expect(h.intro[1]).toBe(1n);
    // (Its final tuple is left in place, so latest, finalValue and the packs, hence beta, are unchanged.)
    const a = edit(h, [
      ["intro", 1, 0n],
      ["age", 1, h.age[1]! + 2n ** BigInt(TB)],
    ]);
    expect(packs(a)).toEqual(packs(h));
    await refused(r, a, "age overflowing into intro");
    // (b) Row 0's finalTime + 2^(TB+1) carries into row 1's seen bit (the next label): row 1 reads "never".
    const r2 = keyedRows(N, "7=3", "7");
    const h2 = keyedLatestHints(r2);
    expect(h2.seen[1]).toBe(1n);
    const b = edit(h2, [
      ["finalTime", 0, h2.finalTime[0]! + 2n ** BigInt(TB + 1)],
      ["seen", 1, 0n],
    ]);
    expect(packs(b)).toEqual(packs(h2));
    await refused(r2, b, "finalTime overflowing into the next label");
  });
});

// ---------------------------------------------------------------------------------------------------------
// 3. KeyedLatestFrom: what the caller must enforce, shown with carried values equal to the previous outputs.
// ---------------------------------------------------------------------------------------------------------

describe("KeyedLatestFrom(4, 4): the segment interface, and what the caller must carry", () => {
  const S = 4;
  const TB = 4;
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileKeyedLatestFrom(S, TB);
  });

  const CARRIED = [
    "packChain",
    "weightChain",
    "consumed",
    "produced",
    "roots",
    "fractions",
    "firsts",
  ] as const;
  const slice = <T>(xs: readonly T[], j: number) => xs.slice(j * S, (j + 1) * S);

  interface SegmentPlan {
    start: bigint;
    isLast: boolean;
    beta: bigint;
    zeta: bigint;
  }

  /**
   * Runs the segments in row order, each from the carry the previous one's *solved witness* put out (the first
   * from the identities), each judged by the r1cs. Returns whether all were accepted and the last carry out.
   * With `carried` (what a caller's segment state does), beta, zeta and start after the first segment are the
   * previous segment's betaOut, zetaOut and startOut, and the plan's values for them are ignored.
   */
  async function runSegments(
    r: readonly KeyedRow[],
    h: KeyedLatestHints,
    weight: readonly bigint[],
    planned: readonly SegmentPlan[],
    carried = false,
  ): Promise<{ accepted: boolean; carries: KeyedLatestCarry[] }> {
    let carry: KeyedLatestCarry = keyedLatestStart();
    const carries = [carry];
    const plan = planned.map((p) => ({ ...p }));
    for (let j = 0; j < plan.length; j++) {
      const sliced = Object.fromEntries(
        Object.entries(h).map(([k, v]) => [k, slice(v as bigint[], j)]),
      ) as unknown as KeyedLatestHints;
      const input = {
        ...keyedStatement(slice(r, j)),
        start: String(plan[j]!.start),
        isLast: plan[j]!.isLast ? "1" : "0",
        finalRoot: String(SEED),
        ...keyedHintInput(sliced, slice(weight, j)),
        beta: String(plan[j]!.beta),
        zeta: String(plan[j]!.zeta),
        packChainIn: String(carry.packChain),
        weightChainIn: String(carry.weightChain),
        consumedIn: String(carry.consumed),
        producedIn: String(carry.produced),
        rootsIn: String(carry.roots),
        fractionsIn: String(carry.fractions),
        firstsIn: String(carry.firsts),
      };
      const { accepted, witness } = await play(c, { input });
      if (!accepted) return { accepted: false, carries };
      if (carried && j + 1 < plan.length)
        plan[j + 1] = {
          ...plan[j + 1]!,
          beta: signalValue(c, witness, "betaOut"),
          zeta: signalValue(c, witness, "zetaOut"),
          start: signalValue(c, witness, "startOut"),
        };
      carry = Object.fromEntries(
        CARRIED.map((name) => [name, signalValue(c, witness, `${name}Out`)]),
      ) as unknown as KeyedLatestCarry;
      carries.push(carry);
    }
    return { accepted: true, carries };
  }

  /** beta and zeta as the last segment pins them, for these hints and weights (independent of start). */
  const challenges = (r: readonly KeyedRow[], h: KeyedLatestHints, weight: readonly bigint[]) => {
    const chain = keyedLatestChain(r, S, SEED, TB, h, weight);
    return { beta: chain.beta, zeta: chain.zeta };
  };
  const honestPlan = (m: number, beta: bigint, zeta: bigint): SegmentPlan[] =>
    Array.from({ length: m }, (_, j) => ({ start: BigInt(j * S), isLast: j === m - 1, beta, zeta }));

  it("sanity: the honest chain is accepted, and a lie with the same beta and zeta everywhere is refused", async () => {
    const r = keyedRows(12, "7=3", "7=4", ".", ".", "7");
    const h = keyedLatestHints(r);
    const w = weightsFor(r, h);
    const { beta, zeta } = challenges(r, h, w);
    expect((await runSegments(r, h, w, honestPlan(3, beta, zeta))).accepted).toBe(true);
    const lie = edit(h, [
      ["latest", 4, 3n],
      ["age", 4, 3n],
      ["finalValue", 0, 3n],
    ]);
    const l = challenges(r, lie, w);
    expect((await runSegments(r, lie, w, honestPlan(3, l.beta, l.zeta))).accepted).toBe(false);
  });

  it("a middle segment's own zeta would close a lie: carried as zetaOut, it is refused", async () => {
    // Row 4 answers the older write 3 (truth: 4), reading (7, 3, 1, 1) and writing it back at time 5.
    const r = keyedRows(12, "7=3", "7=4", ".", ".", "7");
    expect(keyedLatest(r)[4]).toEqual({ seen: true, latest: 4n });
    const lie = edit(keyedLatestHints(r), [
      ["latest", 4, 3n],
      ["age", 4, 3n],
      ["finalValue", 0, 3n],
    ]);
    const w = weightsFor(r, lie);
    const { beta, zeta } = challenges(r, lie, w);
    const print = (k: bigint, v: bigint, s: bigint, t: bigint) =>
      mod(k + beta * v + beta * beta * s + beta * beta * beta * t);
    // Segment 0 at the pinned (beta, zeta): its carries out.
    const first = await runSegments(r, lie, w, [{ start: 0n, isLast: false, beta, zeta }]);
    expect(first.accepted).toBe(true);
    const { consumed: C0, produced: P0 } = first.carries[1]!;
    // Segment 1's one access consumes a = print(read) and produces b = print(write-back): pick its zeta so
    // that C0·(z − a) = P0·(z − b). It has no introduction, so the certificate never sees this zeta.
    const a = print(7n, 3n, 1n, 1n);
    const b = print(7n, 3n, 1n, 5n);
    const zeta1 = mod((C0 * a - P0 * b) * inverse(mod(C0 - P0)));
    const plan = honestPlan(3, beta, zeta);
    plan[1] = { ...plan[1]!, zeta: zeta1 };
    const run = await runSegments(r, lie, w, plan);
    // With zeta not carried, every segment is accepted, every other carried value the previous output, the
    // last segment's beta and zeta the pinned hashes: and row 4 answered 3 (the review's finding).
    expect(lie.latest[4]).toBe(3n);
    expect(run.accepted).toBe(true);
    expect(run.carries[3]!.consumed).toBe(run.carries[3]!.produced);
    // zeta carried from segment to segment (zetaOut, in the caller's state): the same plan is refused.
    expect((await runSegments(r, lie, w, plan, true)).accepted).toBe(false);
  });

  it("two segments swapping starts would let row 0 answer a later row's write: chained as startOut, refused", async () => {
    // Truth: row 0 reads key 7 before anything was written (never observed); row 4 writes 5.
    const r = keyedRows(8, "7", ".", ".", ".", "7=5");
    expect(keyedLatest(r)[0]).toEqual({ seen: false, latest: 0n });
    // Segment 0 runs at start 4, segment 1 at start 0: row 4 is at time 1, row 0 at time 5.
    const times = r.map((_, i) => BigInt(i < S ? S + i + 1 : i - S + 1));
    const h = timedHints(r, times);
    expect([h.seen[0], h.latest[0]]).toEqual([1n, 5n]);
    const w = weightsFor(r, h);
    const { beta, zeta } = challenges(r, h, w);
    const plan: SegmentPlan[] = [
      { start: 4n, isLast: false, beta, zeta },
      { start: 0n, isLast: true, beta, zeta },
    ];
    expect((await runSegments(r, h, w, plan)).accepted).toBe(true);
    // With start = j·S, the same hints are refused; chained through startOut from the first segment's start 0,
    // the second segment cannot start at 0 again.
    expect((await runSegments(r, h, w, honestPlan(2, beta, zeta))).accepted).toBe(false);
    expect((await runSegments(r, h, w, [{ ...plan[0]!, start: 0n }, plan[1]!], true)).accepted).toBe(false);
  });

  it("a chain that never closes (isLast = 0 everywhere) checks nothing: closing it is the caller's duty", async () => {
    const r = keyedRows(4, "7=3", "7");
    const lie = edit(keyedLatestHints(r), [["latest", 1, 99n]]);
    const w = weightsFor(r, lie);
    const run = await runSegments(r, lie, w, [{ start: 0n, isLast: false, beta: 0n, zeta: 0n }]);
    expect(run.accepted).toBe(true);
  });
});

/** 1/x mod P. */
function inverse(x: bigint): bigint {
  let [a, b, u, v] = [mod(x), P, 1n, 0n];
  while (a !== 0n) {
    const q = b / a;
    [a, b, u, v] = [b - q * a, a, v - q * u, u];
  }
  return mod(v);
}
