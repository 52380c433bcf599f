// Keyed latest value: the model, and the prover's side of circuits/gadgets/keyed_latest.circom.
// For each row, the value the last strictly earlier write of its key left, or "never observed" (seen false,
// a state of its own, distinct from every value, 0 included). The circuit checks the answers by offline
// memory checking: every access reads a tuple (key, value, seen, time) and writes one back, each key's
// initial tuple is produced and its final tuple consumed by the row that introduces the key, and the two
// multisets must agree (the circuit's header has the argument; docs/SOUNDNESS.md "Keyed latest value").
// The packing, chains and challenges below mirror the circuit exactly.
import { FIELD_MODULUS, hashVector } from "./hash.js";
import { addDistinctRoot, packLabels, rowWeights } from "./multiset.js";

const P = FIELD_MODULUS;
const mod = (x: bigint) => ((x % P) + P) % P;

/** One row: an access to `key` when hasKey, writing `value` when write (a write needs a key). */
export interface KeyedRow {
  key: bigint;
  hasKey: boolean;
  write: boolean;
  value: bigint;
}

/** What a row's key held before it: the latest earlier write's value, or never observed. */
export interface KeyedAnswer {
  seen: boolean;
  /** 0 when never observed. */
  latest: bigint;
}

/** The model: each row's answer, from the rows before it (a row without a key answers never observed). */
export function keyedLatest(rows: readonly KeyedRow[]): KeyedAnswer[] {
  const state = new Map<bigint, bigint>();
  return rows.map((row, i) => {
    if (row.write && !row.hasKey) throw new RangeError(`row ${i} writes without a key`);
    if (!row.hasKey) return { seen: false, latest: 0n };
    const held = state.get(row.key);
    if (row.write) state.set(row.key, row.value);
    return held === undefined ? { seen: false, latest: 0n } : { seen: true, latest: held };
  });
}

/** The circuit's hint inputs, one per row of the session (row i is session record i). */
export interface KeyedLatestHints {
  seen: bigint[];
  latest: bigint[];
  /** now − 1 − the time of the tuple read, now = i + 1 (time 0: the initial tuple). */
  age: bigint[];
  /** 1 on the row that introduces its key (its first access in the session). */
  intro: bigint[];
  finalValue: bigint[];
  finalSeen: bigint[];
  finalTime: bigint[];
}

/** The honest hints for a session's rows. */
export function keyedLatestHints(rows: readonly KeyedRow[]): KeyedLatestHints {
  const n = rows.length;
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
  // Per key: the tuple its last access wrote, and the row that introduced it.
  const held = new Map<bigint, { value: bigint; seen: boolean; time: bigint; introRow: number }>();
  rows.forEach((row, i) => {
    if (!row.hasKey) return;
    const now = BigInt(i + 1);
    let tuple = held.get(row.key);
    if (tuple === undefined) {
      h.intro[i] = 1n;
      tuple = { value: 0n, seen: false, time: 0n, introRow: i };
    }
    h.seen[i] = tuple.seen ? 1n : 0n;
    h.latest[i] = tuple.value;
    h.age[i] = now - 1n - tuple.time;
    const written = row.write ? { value: row.value, seen: true } : { value: tuple.value, seen: tuple.seen };
    held.set(row.key, { ...written, time: now, introRow: tuple.introRow });
  });
  for (const tuple of held.values()) {
    h.finalValue[tuple.introRow] = tuple.value;
    h.finalSeen[tuple.introRow] = tuple.seen ? 1n : 0n;
    h.finalTime[tuple.introRow] = tuple.time;
  }
  return h;
}

/** What one segment carries to the next (the first segment starts from keyedLatestStart). */
export interface KeyedLatestCarry {
  packChain: bigint;
  weightChain: bigint;
  consumed: bigint;
  produced: bigint;
  roots: bigint;
  fractions: bigint;
  firsts: bigint;
}

export const keyedLatestStart = (): KeyedLatestCarry => ({
  packChain: 0n,
  weightChain: 0n,
  consumed: 1n,
  produced: 1n,
  roots: 1n,
  fractions: 0n,
  firsts: 0n,
});

/** The small hints of row i as the circuit packs them: seen | age | intro | finalSeen | finalTime. */
function smallLabel(h: KeyedLatestHints, i: number, timeBits: number): bigint {
  const tb = BigInt(timeBits);
  return (
    h.seen[i]! +
    (h.age[i]! << 1n) +
    (h.intro[i]! << (tb + 1n)) +
    (h.finalSeen[i]! << (tb + 2n)) +
    (h.finalTime[i]! << (tb + 3n))
  );
}

export interface KeyedLatestChain {
  beta: bigint;
  zeta: bigint;
  weight: bigint[];
  /** carries[j] goes into segment j; carries[m] is what the last segment closes. */
  carries: KeyedLatestCarry[];
}

/**
 * The argument over a session's `rows` (m·size of them, rows past its end without a key) cut every `size` rows, with
 * the given hints (the honest ones by default; tests pass forged ones): beta = HashVector(finalRoot,
 * packChain), the distinctness weights of the introduced keys, zeta = HashVector(beta, weightChain), and
 * each segment's running products at those challenges. Two introductions of one key have no weights, and
 * throw, unless `weights` are given (a forger's). `timeBits` is the circuit's TB: countBits(N) for a whole claim, SESSION_COUNT_BITS for segments.
 */
export function keyedLatestChain(
  rows: readonly KeyedRow[],
  size: number,
  finalRoot: bigint,
  timeBits: number,
  hints: KeyedLatestHints = keyedLatestHints(rows),
  weights?: readonly bigint[],
  /** Evaluate the products at these challenges instead of the drawn ones (a forger's view). */
  at?: { beta: bigint; zeta: bigint },
): KeyedLatestChain {
  if (rows.length % size !== 0) throw new RangeError(`${rows.length} rows are not whole segments of ${size}`);
  const m = rows.length / size;
  const width = 2 * timeBits + 4;
  const segment = <T>(xs: readonly T[], j: number) => xs.slice(j * size, (j + 1) * size);
  const packChains = [0n];
  for (let j = 0; j < m; j++) {
    const labels = Array.from({ length: size }, (_, i) => smallLabel(hints, j * size + i, timeBits));
    packChains.push(
      hashVector([
        packChains[j]!,
        ...segment(hints.latest, j),
        ...segment(hints.finalValue, j),
        ...packLabels(labels, width).map(mod), // as the circuit sums them: in the field
      ]),
    );
  }
  const beta = at?.beta ?? hashVector([finalRoot, packChains[m]!]);
  const weight = weights
    ? [...weights]
    : rowWeights(rows.map((r, i) => (hints.intro[i] === 1n ? r.key : null)));
  const weightChains = [0n];
  for (let j = 0; j < m; j++) weightChains.push(hashVector([weightChains[j]!, ...segment(weight, j)]));
  const zeta = at?.zeta ?? hashVector([beta, weightChains[m]!]);

  const beta2 = (beta * beta) % P;
  const beta3 = (beta2 * beta) % P;
  const print = (key: bigint, value: bigint, seen: bigint, time: bigint) =>
    mod(key + beta * value + beta2 * seen + beta3 * time);
  let c = keyedLatestStart();
  const carries = [c];
  for (let j = 0; j < m; j++) {
    let { consumed, produced, roots, fractions, firsts } = c;
    for (let i = j * size; i < (j + 1) * size; i++) {
      const r = rows[i]!;
      if (r.hasKey) {
        const now = BigInt(i + 1);
        const seen = hints.seen[i]!;
        const latest = hints.latest[i]!;
        consumed = (consumed * mod(zeta - print(r.key, latest, seen, now - 1n - hints.age[i]!))) % P;
        const written = r.write ? [r.value, 1n] : [latest, seen];
        produced = (produced * mod(zeta - print(r.key, written[0]!, written[1]!, now))) % P;
      }
      if (hints.intro[i] === 1n) {
        consumed =
          (consumed *
            mod(zeta - print(r.key, hints.finalValue[i]!, hints.finalSeen[i]!, hints.finalTime[i]!))) %
          P;
        produced = (produced * mod(zeta - r.key)) % P;
        ({ roots, fractions, firsts } = addDistinctRoot(
          { roots, fractions, firsts },
          r.key,
          weight[i]!,
          zeta,
        ));
      }
    }
    c = {
      packChain: packChains[j + 1]!,
      weightChain: weightChains[j + 1]!,
      consumed,
      produced,
      roots,
      fractions,
      firsts,
    };
    carries.push(c);
  }
  return { beta, zeta, weight, carries };
}
