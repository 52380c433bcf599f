// circuits/gadgets/keyed_latest.circom: each row's latest earlier value of its key, by offline memory
// checking, against the model (sdk/core/keyed-latest.ts). Every answer but the model's is refused: an older
// write, "never observed" after a write (with or without a second introduction of the key), a value never
// written; hints solved after the challenge break the challenge's hash; rows without a key carry nothing;
// and split over segments, a lie across a boundary fails the last segment's close.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import {
  keyedLatest,
  keyedLatestChain,
  keyedLatestHints,
  type KeyedAnswer,
  type KeyedLatestCarry,
  type KeyedLatestHints,
  type KeyedRow,
} from "../../sdk/core/keyed-latest.js";
import { countBits, fieldInverse as inverse, partialFractionWeights } from "../../sdk/core/multiset.js";
import { play } from "../helpers/adversary.js";
import {
  compileKeyedLatestFrom,
  keyedHintInput,
  keyedRows,
  keyedStatement,
  withAt,
} from "../helpers/keyed-latest.js";
import {
  compileTestCircuit,
  forge,
  signalValue,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";

const P = FIELD_MODULUS;
const mod = (x: bigint) => ((x % P) + P) % P;
const SEED = 0x6b65796564n;
const N = 6;

/** The whole-claim circuit's input for these hints (the honest ones by default), challenges drawn from them. */
function wholeInput(r: readonly KeyedRow[], h = keyedLatestHints(r), weights?: readonly bigint[]) {
  const chain = keyedLatestChain(r, r.length, SEED, countBits(r.length), h, weights);
  return {
    ...keyedStatement(r),
    seed: String(SEED),
    ...keyedHintInput(h, chain.weight),
    beta: String(chain.beta),
    zeta: String(chain.zeta),
  };
}

/**
 * What a liar gives when row `lieRow` answers `lie`: every other row answers from the liar's own chain of
 * tuples. Without `reintroduce`, the lying read consumes the most recent tuple of its key that holds the lie
 * (an older write), or the initial one, leaving the newer tuple unconsumed. With it (a "never observed"
 * lie), the row introduces its key a second time: its initial tuple feeds the lie and its final tuple takes
 * the orphaned one, so the two multisets agree and only the distinctness of introductions is left to refuse.
 */
function liarHints(r: readonly KeyedRow[], lieRow: number, lie: KeyedAnswer, reintroduce = false) {
  const h = keyedLatestHints(r.map((x) => ({ ...x, write: false, hasKey: false })));
  type Tuple = { value: bigint; seen: boolean; time: bigint };
  const produced = new Map<bigint, Tuple[]>();
  const introRow = new Map<bigint, number>();
  r.forEach((row, i) => {
    if (!row.hasKey) return;
    const now = BigInt(i + 1);
    if (!produced.has(row.key)) {
      produced.set(row.key, [{ value: 0n, seen: false, time: 0n }]);
      introRow.set(row.key, i);
      h.intro[i] = 1n;
    }
    const history = produced.get(row.key)!;
    const current = history[history.length - 1]!;
    let read = current;
    if (i === lieRow) {
      if (reintroduce && !lie.seen) {
        h.intro[i] = 1n;
        h.finalValue[i] = current.value;
        h.finalSeen[i] = current.seen ? 1n : 0n;
        h.finalTime[i] = current.time;
        read = { value: 0n, seen: false, time: 0n };
      } else {
        const match = [...history]
          .reverse()
          .find((t) => t.seen === lie.seen && (t.value === lie.latest || !lie.seen));
        read = match ?? { value: lie.latest, seen: lie.seen, time: current.time };
        read = { ...read, value: lie.latest, seen: lie.seen };
      }
    }
    h.seen[i] = read.seen ? 1n : 0n;
    h.latest[i] = read.value;
    h.age[i] = now - 1n - read.time;
    history.push(row.write ? { value: row.value, seen: true, time: now } : { ...read, time: now });
  });
  for (const [key, i] of introRow) {
    const last = produced.get(key)!.at(-1)!;
    h.finalValue[i] = last.value;
    h.finalSeen[i] = last.seen ? 1n : 0n;
    h.finalTime[i] = last.time;
  }
  return h;
}

/** Weights a liar can give for its introductions: the certificate of the distinct ones, 0 on repeats. */
function liarWeights(r: readonly KeyedRow[], h: KeyedLatestHints): bigint[] {
  const firsts = new Map<bigint, number>();
  r.forEach((row, i) => {
    if (h.intro[i] === 1n && !firsts.has(row.key)) firsts.set(row.key, i);
  });
  const weights = partialFractionWeights([...firsts.keys()]);
  const out = Array<bigint>(r.length).fill(0n);
  [...firsts.values()].forEach((i, k) => (out[i] = weights[k]!));
  return out;
}

/** Every answer a liar might give row i instead of the model's: never, each other value its key held, 0, 99. */
function lies(r: readonly KeyedRow[], i: number): KeyedAnswer[] {
  const truth = keyedLatest(r)[i]!;
  const written = r.slice(0, i).flatMap((x) => (x.key === r[i]!.key && x.write ? [x.value] : []));
  const candidates: KeyedAnswer[] = [
    { seen: false, latest: 0n },
    ...[...new Set([...written, 0n, 99n])].map((latest) => ({ seen: true, latest })),
  ];
  return candidates.filter((a) => a.seen !== truth.seen || a.latest !== truth.latest);
}

describe("KeyedLatest (6 rows)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("keyed-latest", {
      includes: ["circuits/gadgets/keyed_latest.circom"],
      template: "KeyedLatest",
      args: [N],
      poseidon: "lean", // the same constraints as circomlib's, compiled about 4x faster
      publicSignals: ["key", "hasKey", "write", "value", "seed"],
    });
  });

  it("costs 1,622 constraints at 6 rows (178.6 a row at 1,024: docs/BENCHMARKS.md)", () => {
    expect(c.constraints).toBe(1622);
  });

  // [name, rows, the model's answers as "never" or the latest value, one per keyed row]
  const cases: [string, KeyedRow[], (bigint | null)[]][] = [
    ["no keys", keyedRows(N), []],
    ["a read before any write", keyedRows(N, "7", "7=3"), [null, null]],
    ["the last write wins", keyedRows(N, "7=3", "7=4", "7"), [null, 3n, 4n]],
    ["a write in the same row is not before it", keyedRows(N, "7=3"), [null]],
    ["keys apart", keyedRows(N, "7=3", "8=5", "7", "8", "9"), [null, null, 3n, 5n, null]],
    [
      "a read writes back what it read",
      keyedRows(N, "7=3", "7", "7", ".", "7=0", "7"),
      [null, 3n, 3n, 3n, 0n],
    ],
    ["a written 0 is seen, not never", keyedRows(N, "7=0", "7"), [null, 0n]],
    ["rows without a key between", keyedRows(N, ".", "7=1", ".", ".", ".", "7"), [null, 1n]],
    ["key 0 is a key", keyedRows(N, "0=2", "0"), [null, 2n]],
  ];

  it("agrees with the model, and the circuit accepts the model's answers", async () => {
    for (const [what, r, expected] of cases) {
      const answers = keyedLatest(r).filter((_, i) => r[i]!.hasKey);
      expect(
        answers.map((a) => (a.seen ? a.latest : null)),
        what,
      ).toEqual(expected);
      const w = await c.witness(wholeInput(r));
      expect(c.firstUnsatisfied(w), what).toBe(-1);
    }
  });

  it("refuses every other answer: an older write, never observed, a value never written", async () => {
    let tried = 0;
    for (const [what, r] of cases) {
      for (let i = 0; i < N; i++) {
        if (!r[i]!.hasKey) continue;
        for (const lie of lies(r, i)) {
          const h = liarHints(r, i, lie);
          const input = wholeInput(r, h, liarWeights(r, h));
          expect(await witnessFails(c, input), `${what}: row ${i}`).toBe(true);
          // And judged by the r1cs alone, every other signal solved from the constraints.
          expect((await play(c, { input })).accepted, `${what}: row ${i}, solved`).toBe(false);
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThan(40);
  });

  it("a second introduction balances the multisets, and the distinctness certificate refuses it", async () => {
    const r = keyedRows(N, "7=3", "8=1", "7=4", "7");
    for (const lieRow of [2, 3]) {
      const h = liarHints(r, lieRow, { seen: false, latest: 0n }, true);
      const honestWeights = liarWeights(r, h);
      const chain = keyedLatestChain(r, N, SEED, countBits(N), h, honestWeights);
      const closing = chain.carries.at(-1)!;
      expect(closing.consumed).toBe(closing.produced); // the memory check alone is fooled
      for (const weights of [honestWeights, honestWeights.map((w, i) => (h.intro[i] ? mod(w + 1n) : 0n))]) {
        const input = wholeInput(r, h, weights);
        expect(await witnessFails(c, input), `row ${lieRow}`).toBe(true);
        expect((await play(c, { input })).accepted, `row ${lieRow}, solved`).toBe(false);
      }
    }
  });

  it("hints solved after the challenge balance the products only at a challenge the hash refuses", async () => {
    const r = keyedRows(N, "7=3", "7=4", "7");
    const h = liarHints(r, 2, { seen: true, latest: 3n }); // the older write
    const chain = keyedLatestChain(r, N, SEED, countBits(N), h);
    const close = chain.carries.at(-1)!;
    expect(close.consumed).not.toBe(close.produced);
    // Solve the introducing row's final value so that the products agree at these (beta, zeta).
    const { beta, zeta } = chain;
    const beta2 = mod(beta * beta);
    const beta3 = mod(beta2 * beta);
    const finalFactor = (v: bigint) =>
      mod(zeta - (7n + beta * v + beta2 * h.finalSeen[0]! + beta3 * h.finalTime[0]!));
    const others = mod(close.consumed * inverse(finalFactor(h.finalValue[0]!)));
    const wanted = mod(close.produced * inverse(others)); // = zeta − print(final)
    const solvedValue = mod(
      (zeta - wanted - 7n - beta2 * h.finalSeen[0]! - beta3 * h.finalTime[0]!) * inverse(beta),
    );
    const forged = { ...h, finalValue: h.finalValue.map((v, i) => (i === 0 ? solvedValue : v)) };
    const atOld = keyedLatestChain(r, N, SEED, countBits(N), forged, undefined, { beta, zeta }).carries.at(
      -1,
    )!;
    expect(atOld.consumed).toBe(atOld.produced); // balanced at the old challenges
    // But the solved value is hashed into beta: the challenges it draws are others, where they disagree.
    const redrawn = keyedLatestChain(r, N, SEED, countBits(N), forged);
    expect(redrawn.beta).not.toBe(beta);
    expect(redrawn.carries.at(-1)!.consumed).not.toBe(redrawn.carries.at(-1)!.produced);
    // Keeping the old challenges in the witness breaks their pins to the hashes.
    const input = { ...wholeInput(r, forged), beta: String(beta), zeta: String(zeta) };
    expect((await play(c, { input })).accepted).toBe(false);
    expect(await witnessFails(c, input)).toBe(true);
  });

  it("rows without a key carry nothing: no introduction, answer, age or write", async () => {
    const r = keyedRows(N, "7=3", ".", "7");
    const honest = wholeInput(r);
    const edits: [string, number, string][] = [
      ["intro", 1, "1"],
      ["seen", 1, "1"],
      ["latest", 1, "5"],
      ["age", 1, "1"],
      ["write", 1, "1"],
    ];
    for (const [field, i, value] of edits) {
      const input = {
        ...honest,
        [field]: withAt(honest[field as keyof typeof honest] as string[], i, value),
      };
      expect((await play(c, { input })).accepted, field).toBe(false);
    }
    // An unused final value or time on a row that introduces nothing is pinned too.
    for (const field of ["finalValue", "finalSeen", "finalTime"] as const) {
      const input = { ...honest, [field]: withAt(honest[field], 2, "1") };
      expect((await play(c, { input })).accepted, field).toBe(false);
    }
  });

  it("an age past its bits (a read of a wrapped, future time) is refused", async () => {
    const r = keyedRows(N, "7", "7=3", "7");
    const h = keyedLatestHints(r);
    // Row 0 claims the value row 1 writes, from time 2: age = 1 − 1 − 2 = −2.
    const forged = {
      ...h,
      seen: withAt(h.seen, 0, 1n),
      latest: withAt(h.latest, 0, 3n),
      age: withAt(h.age, 0, P - 2n),
    };
    expect((await play(c, { input: wholeInput(r, forged) })).accepted).toBe(false);
  });

  it("a forged product, print or written tuple breaks a constraint", async () => {
    const r = keyedRows(N, "7=3", "8=1", "7", "7=4", "8");
    const w = await c.witness(wholeInput(r));
    expect(c.firstUnsatisfied(w)).toBe(-1);
    const targets = [
      "run.newSeen[2]",
      "run.newValue[3]",
      "run.readValue[2]",
      "run.writeValue[3]",
      "run.beta2",
      "run.beta3",
      "run.consumedOut",
      "run.produced.acc[10]",
      "run.rootsOut",
      "run.fractionsOut",
      "run.packChainOut",
      "run.weightChainOut",
    ];
    for (const name of targets)
      expect(
        c.firstUnsatisfied(forge(c, w, name, signalValue(c, w, name) + 1n)),
        name,
      ).toBeGreaterThanOrEqual(0);
  });

  it("agrees with the model on 40 random traces, and refuses a lie on each", async () => {
    const row = fc.record({
      key: fc.constantFrom(1n, 2n, 3n),
      hasKey: fc.boolean(),
      write: fc.boolean(),
      value: fc.constantFrom(0n, 5n, 6n),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: N, maxLength: N }), fc.nat(), async (raw, pick) => {
        const r = raw.map((x) => ({ ...x, write: x.hasKey && x.write }));
        expect(c.firstUnsatisfied(await c.witness(wholeInput(r)))).toBe(-1);
        const keyed = r.flatMap((x, i) => (x.hasKey ? [i] : []));
        if (keyed.length === 0) return;
        const i = keyed[pick % keyed.length]!;
        const options = lies(r, i);
        const lie = options[pick % options.length]!;
        const h = liarHints(r, i, lie);
        expect(await witnessFails(c, wholeInput(r, h, liarWeights(r, h)))).toBe(true);
      }),
      { numRuns: 40, seed: 20_261_205 },
    );
  });
});

describe("KeyedLatestFrom (segments of 4 rows)", () => {
  const S = 4;
  const TB = 4; // sessions up to 16 rows
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileKeyedLatestFrom(S, TB);
  });

  const slice = <T>(xs: readonly T[], j: number) => xs.slice(j * S, (j + 1) * S);
  function segmentInput(
    r: readonly KeyedRow[],
    j: number,
    m: number,
    h: KeyedLatestHints,
    carry: KeyedLatestCarry,
    chain: { beta: bigint; zeta: bigint; weight: bigint[] },
  ) {
    const sliced = Object.fromEntries(
      Object.entries(h).map(([k, v]) => [k, slice(v as bigint[], j)]),
    ) as unknown as KeyedLatestHints;
    return {
      ...keyedStatement(slice(r, j)),
      start: String(j * S),
      isLast: j === m - 1 ? "1" : "0",
      finalRoot: String(SEED),
      ...keyedHintInput(sliced, slice(chain.weight, j)),
      beta: String(chain.beta),
      zeta: String(chain.zeta),
      packChainIn: String(carry.packChain),
      weightChainIn: String(carry.weightChain),
      consumedIn: String(carry.consumed),
      producedIn: String(carry.produced),
      rootsIn: String(carry.roots),
      fractionsIn: String(carry.fractions),
      firstsIn: String(carry.firsts),
    };
  }
  /** Runs the segments in order, each from the carry the last one put out; true when all are accepted. */
  async function runChain(r: readonly KeyedRow[], h: KeyedLatestHints, weights?: bigint[]): Promise<boolean> {
    const m = r.length / S;
    const chain = keyedLatestChain(r, S, SEED, TB, h, weights);
    for (let j = 0; j < m; j++) {
      const input = segmentInput(r, j, m, h, chain.carries[j]!, chain);
      const { accepted, witness } = await play(c, { input });
      if (!accepted) return false;
      // The circuit's carry out is the model's.
      const out = chain.carries[j + 1]!;
      for (const [name, value] of Object.entries(out))
        expect(signalValue(c, witness, `${name}Out`), `${name}Out of segment ${j}`).toBe(value);
    }
    return true;
  }

  const session = keyedRows(12, "7=3", "8=1", ".", "7", "8=2", "7=4", ".", "8", "7", ".", "9", "7");

  it("accepts the model's answers over three segments, carrying the model's state", async () => {
    expect(keyedLatest(session).map((a) => (a.seen ? a.latest : null))).toEqual([
      null,
      null,
      null,
      3n,
      1n,
      3n,
      null,
      2n,
      4n,
      null,
      null,
      4n,
    ]);
    expect(await runChain(session, keyedLatestHints(session))).toBe(true);
  });

  it("refuses a lie across a boundary: an older write, or never observed with a second introduction", async () => {
    for (const i of [8, 11]) {
      for (const lie of lies(session, i)) {
        const h = liarHints(session, i, lie);
        expect(await runChain(session, h, liarWeights(session, h)), `row ${i}`).toBe(false);
      }
      const h = liarHints(session, i, { seen: false, latest: 0n }, true);
      expect(await runChain(session, h, liarWeights(session, h)), `row ${i}, reintroduced`).toBe(false);
    }
  });

  it("a lie survives the close only with carried values other than the segment before put out", async () => {
    // The older write at row 11, in the last segment: the close would need a consumed product that the
    // segment before did not put out; the segment state commitment of the caller ties the two together.
    const h = liarHints(session, 11, { seen: true, latest: 3n });
    const chain = keyedLatestChain(session, S, SEED, TB, h, liarWeights(session, h));
    const closing = chain.carries[3]!;
    const fix = mod(closing.produced * inverse(closing.consumed));
    const carried = { ...chain.carries[2]!, consumed: mod(chain.carries[2]!.consumed * fix) };
    const input = segmentInput(session, 2, 3, h, carried, chain);
    expect((await play(c, { input })).accepted).toBe(true);
    expect(carried.consumed).not.toBe(chain.carries[2]!.consumed);
  });
});
