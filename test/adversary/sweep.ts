// The adversarial witness sweep run for every predicate main (test/adversary/*.sweep.test.ts):
// from an honest claim input at n < capacity, a dishonest prover claims the other outcome
// with the escrow's public inputs unchanged, and tries each tamper class: rows past n
// (challenge values included), active rows, θ, checkpoints, the predicate's hint inputs,
// and every kind of internal `<--` hint. Each move is turned into a full witness by the
// r1cs solver and judged by the build's own constraints (test/helpers/adversary.ts).
// ZKVAI_SWEEP=wide (npm run test:full) plays every variant of each class on every case; the default
// plays the first variant of each on the first two cases (one of each verdict), so `npm test` stays fast.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { expect } from "vitest";
import { claimInput, shapeOf, type CircuitInput } from "../../prover/witness.js";
import { PUBLIC_INPUTS } from "../../sdk/core/claim.js";
import { KIND, SLOT, SLOT_COUNT } from "../../sdk/core/encoding.js";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import { predicateById, type PredicateDefinition } from "../../sdk/core/predicates/index.js";
import { parseProfile, type EncodingProfile } from "../../sdk/core/profile.js";
import { parseRecord, type TraceRecord } from "../../sdk/core/records.js";
import { BIT_NAMES, play, signalsLike, type Move } from "../helpers/adversary.js";
import { builtCircuit, type TestCircuit } from "../helpers/circuit.js";
import { instance } from "../helpers/instance.js";

const WIDE = process.env.ZKVAI_SWEEP === "wide";

/**
 * A sweep is a fixed amount of work, not a race: its time limit is generous (a loaded 2-core machine takes
 * several times the ~20 s a default sweep takes alone), so no run fails on timing.
 */
export const SWEEP_TIMEOUT_MS = WIDE ? 3_600_000 : 900_000;
const P = FIELD_MODULUS;

export interface SweepCase {
  label: string;
  theta: unknown;
  profile: EncodingProfile;
  records: TraceRecord[];
}

/** A predicate fixture (fixtures/aap-N/<name>.json) as a sweep case. */
export function fixtureCase(path: string): SweepCase {
  const raw = JSON.parse(readFileSync(`fixtures/${path}.json`, "utf8"));
  return {
    label: path,
    theta: raw.theta,
    profile: parseProfile(raw.profile),
    records: (raw.records as unknown[]).map(parseRecord),
  };
}

/** Deterministic pseudo-random field elements, so a failing move can be replayed. */
function stream(seed: number): () => bigint {
  let x = BigInt(seed) + 0x9e3779b97f4a7c15n;
  return () => {
    x = (x * 6364136223846793005n + 1442695040888963407n) % (1n << 128n);
    return (x * x + 7n) % P;
  };
}

type Input = Record<string, unknown>;
// The public inputs, defined once in sdk/core/claim.ts: input keys that are neither θ nor a witness hint.
const TRACE_KEYS = new Set<string>(PUBLIC_INPUTS);
// status, obs and content (a circuit that reads observations) are played as hint inputs too, and by
// the observation classes.
const TRACE_ARRAYS = new Set(["slots", "digest", "cpN", "cpHead", "cpActive", "cpHits"]);
const SLOT_NAMES = Object.entries(SLOT).sort((a, b) => a[1] - b[1]);

interface Context {
  honest: CircuitInput;
  flipped: string;
  n: number;
  capacity: number;
  thetaKeys: string[];
  hintKeys: string[];
  circuit: TestCircuit;
}

type TamperClass = { name: string; moves: (c: Context) => Move[] };

const clone = (x: CircuitInput): Input => JSON.parse(JSON.stringify(x));
const withSlots = (c: Context, edit: (slots: string[][]) => void): Input => {
  const input = clone(c.honest);
  edit(input.slots as string[][]);
  return { ...input, outcome: c.flipped };
};

/** The values an adversary would most like to see in a slot: challenges, θ entries, live values. */
function candidateValues(c: Context, k: number): bigint[] {
  const theta = c.thetaKeys
    .flatMap((key) => (c.honest[key] as (string | string[])[]).flat().map(BigInt))
    .filter((v) => v !== 0n);
  const live = (c.honest.slots as string[][]).slice(0, c.n).map((r) => BigInt(r[k]!));
  const challenges = challengeValues(c);
  return [...new Set([...challenges, ...theta.slice(0, 3), ...live, 1n, P - 1n])];
}

/** The in-circuit challenges of the honest witness (AAP-1, AAP-5), read off the solved honest witness. */
const challengeCache = new WeakMap<Context, bigint[]>();
function challengeValues(c: Context): bigint[] {
  return challengeCache.get(c) ?? [];
}

const rowPastN: TamperClass[] = [
  ...SLOT_NAMES.map(([slotName, k]): TamperClass => ({
    name: `row past n: ${slotName} slot set (challenges, θ entries, live values)`,
    moves: (c) =>
      candidateValues(c, k).map((v) => ({
        input: withSlots(c, (s) => {
          const row = s[c.capacity - 1]!;
          if (k !== SLOT.kind) row[SLOT.kind] = String(KIND.call);
          row[k] = String(v);
        }),
      })),
  })),
  {
    name: "row past n: copy of an active row",
    moves: (c) =>
      Array.from({ length: c.n }, (_, r) => ({
        input: withSlots(c, (s) => (s[c.n] = [...s[r]!])),
      })),
  },
  {
    name: "row past n: every slot of every padding row random",
    moves: (c) => {
      const next = stream(c.n);
      return [
        {
          input: withSlots(c, (s) => {
            for (let i = c.n; i < c.capacity; i++)
              s[i] = Array.from({ length: SLOT_COUNT }, () => String(next()));
          }),
        },
      ];
    },
  },
  {
    name: "row past n: digests random",
    moves: (c) => {
      const next = stream(99);
      const input = clone(c.honest);
      // Or, where the circuit recomputes digests, their content.
      const digest = (input.digest ?? input.content) as string[];
      for (let i = c.n; i < c.capacity; i++) digest[i] = String(next());
      return [{ input: { ...input, outcome: c.flipped } }];
    },
  },
];

const activeRows: TamperClass[] = [
  ...SLOT_NAMES.map(([slotName, k]): TamperClass => ({
    name: `active row: ${slotName} slot edited`,
    moves: (c) =>
      Array.from({ length: c.n }, (_, r) => ({
        input: withSlots(c, (s) => (s[r]![k] = String((BigInt(s[r]![k]!) + 1n) % P))),
      })),
  })),
  {
    name: "active row: digest edited (a result, error or ts rewritten)",
    moves: (c) =>
      Array.from({ length: c.n }, (_, r) => {
        const input = clone(c.honest);
        const digest = (input.digest ?? input.content) as string[];
        digest[r] = String((BigInt(digest[r]!) + 1n) % P);
        return { input: { ...input, outcome: c.flipped } };
      }),
  },
];

const bindings: TamperClass[] = [
  {
    name: "outcome flipped, witness otherwise honest",
    moves: (c) => [{ input: { ...clone(c.honest), outcome: c.flipped } }],
  },
  {
    name: "checkpoint: an unused slot activated at the final root",
    moves: (c) => {
      const input = clone(c.honest);
      (input.cpActive as string[])[0] = "1";
      (input.cpN as string[])[0] = String(c.n);
      (input.cpHead as string[])[0] = c.honest.finalRoot as string;
      return [{ input: { ...input, outcome: c.flipped } }];
    },
  },
  {
    name: "checkpoint lookup: a row hit that no entry names (1, 2 or 3 times)",
    moves: (c) =>
      Array.from({ length: c.n }, (_, r) =>
        [1, 2, 3].map((m) => {
          const input = clone(c.honest);
          (input.cpHits as string[][])[r] = [String(m & 1), String(m >> 1)];
          return { input: { ...input, outcome: c.flipped } };
        }),
      ).flat(),
  },
  {
    name: "θ: a private entry edited (paramsHash unchanged)",
    moves: (c) =>
      c.thetaKeys.map((key) => {
        const input = clone(c.honest);
        // A θ input is a list, or a list of columns (AAP-7's entry table): its first element is edited.
        const list = input[key] as (string | string[])[];
        const first = list[0]!;
        if (Array.isArray(first)) first[0] = String((BigInt(first[0]!) + 1n) % P);
        else list[0] = String((BigInt(first) + 1n) % P);
        return { input: { ...input, outcome: c.flipped } };
      }),
  },
];

/** Rows of a hint input (a flat array, or AAP-2's per-record path witness). */
function editHint(
  c: Context,
  key: string,
  edit: (rows: unknown[], next: () => bigint) => void,
  seed: number,
): Move {
  const input = clone(c.honest);
  const next = stream(seed);
  const value = input[key];
  if (Array.isArray(value)) edit(value, next);
  else input[key] = String(next() % BigInt(c.capacity));
  return { input: { ...input, outcome: c.flipped } };
}
const bump = (x: unknown, d: bigint): unknown =>
  Array.isArray(x) ? x.map((y) => bump(y, d)) : String((((BigInt(x as string) + d) % P) + P) % P);

/**
 * Observations (record encoding v3; AAP-6 reads them from status, obs and content inputs, AAP-7 from status, facts
 * and content): a value that is not
 * what the committed record observed, copied from another row (the query's value into an earlier source row,
 * a ground's into the query) or set in a row past n, and a status edited.
 */
/** The input holding each row's observed values: AAP-6's `obs`, AAP-7's domain `facts`; none for AAP-1…5. */
const observedKey = (c: Context): "obs" | "facts" | undefined =>
  c.honest.obs !== undefined ? "obs" : c.honest.facts !== undefined ? "facts" : undefined;

const observations: TamperClass[] = [
  {
    name: "observation: an active row's value replaced by another row's observed value",
    moves: (c) => {
      const key = observedKey(c);
      const obs = key && (c.honest[key] as string[][]);
      if (!key || !obs) return [];
      const values = [...new Set(obs.slice(0, c.n).flat())].filter((v) => v !== "0");
      return Array.from({ length: c.n }, (_, r) =>
        obs[r]!.flatMap((_, k) =>
          values.map((v) => {
            const input = clone(c.honest);
            (input[key] as string[][])[r]![k] = v;
            return { input: { ...input, outcome: c.flipped } };
          }),
        ),
      ).flat();
    },
  },
  {
    name: "observation: a row past n observes every live value, status ok",
    moves: (c) => {
      const key = observedKey(c);
      const obs = key && (c.honest[key] as string[][]);
      if (!key || !obs) return [];
      return obs
        .slice(0, c.n)
        .flat()
        .filter((v) => v !== "0")
        .map((v) => {
          const input = clone(c.honest);
          (input[key] as string[][])[c.n] = obs[0]!.map(() => v);
          (input.status as string[])[c.n] = "1";
          return { input: { ...input, outcome: c.flipped } };
        });
    },
  },
  {
    name: "observation: an active row set to status ok observing another row's value (a row not observed dressed as a read)",
    moves: (c) => {
      const key = observedKey(c);
      const obs = key && (c.honest[key] as string[][]);
      if (!key || !obs) return [];
      const values = [...new Set(obs.slice(0, c.n).flat())].filter((v) => v !== "0");
      return Array.from({ length: c.n }, (_, r) =>
        values.map((v) => {
          const input = clone(c.honest);
          (input[key] as string[][])[r] = obs[0]!.map(() => v);
          (input.status as string[])[r] = "1";
          return { input: { ...input, outcome: c.flipped } };
        }),
      ).flat();
    },
  },
  {
    name: "observation: an active row's status set to each other status",
    moves: (c) => {
      const status = c.honest.status as string[] | undefined;
      if (status === undefined) return [];
      return Array.from({ length: c.n }, (_, r) =>
        ["0", "1", "2", "3"]
          .filter((s) => s !== status[r])
          .map((s) => {
            const input = clone(c.honest);
            (input.status as string[])[r] = s;
            return { input: { ...input, outcome: c.flipped } };
          }),
      ).flat();
    },
  },
  {
    name: "observation: an active row's content replaced by its digest (read as v2, observations dropped)",
    moves: (c) => {
      const content = c.honest.content as string[] | undefined;
      const key = observedKey(c);
      if (content === undefined || !key) return [];
      return Array.from({ length: c.n }, (_, r) => {
        const input = clone(c.honest);
        (input[key] as string[][])[r] = (c.honest[key] as string[][])[0]!.map(() => "0");
        return { input: { ...input, outcome: c.flipped } };
      });
    },
  },
];

const hintInputs: TamperClass[] = [
  {
    name: "hint inputs: one row + 1",
    moves: (c) =>
      c.hintKeys.flatMap((key) =>
        Array.from({ length: c.n }, (_, r) => editHint(c, key, (rows) => (rows[r] = bump(rows[r], 1n)), r)),
      ),
  },
  {
    name: "hint inputs: one row - 1",
    moves: (c) =>
      c.hintKeys.flatMap((key) =>
        Array.from({ length: c.n }, (_, r) => editHint(c, key, (rows) => (rows[r] = bump(rows[r], -1n)), r)),
      ),
  },
  {
    name: "hint inputs: two rows swapped",
    moves: (c) =>
      c.hintKeys.map((key) =>
        editHint(c, key, (rows) => ([rows[0], rows[c.n - 1]] = [rows[c.n - 1], rows[0]]), 1),
      ),
  },
  {
    name: "hint inputs: zeroed",
    moves: (c) =>
      c.hintKeys.map((key) =>
        editHint(c, key, (rows) => rows.forEach((_, i) => (rows[i] = zero(rows[i]))), 2),
      ),
  },
  {
    name: "hint inputs: random in rows past n",
    moves: (c) =>
      c.hintKeys.map((key) =>
        editHint(
          c,
          key,
          (rows, next) => {
            for (let i = c.n; i < rows.length; i++)
              rows[i] = Array.isArray(rows[i])
                ? (rows[i] as unknown[]).map(() => String(next()))
                : String(next());
          },
          3,
        ),
      ),
  },
];
const zero = (x: unknown): unknown => (Array.isArray(x) ? x.map(zero) : "0");

/** Overrides of internal `<--` hints, set after the solver has computed everything else. */
function overrideClass(
  name: string,
  pattern: RegExp,
  value: (old: bigint, i: number, next: () => bigint) => bigint,
  perSignal: boolean,
): TamperClass {
  return {
    name,
    moves: (c) => {
      const names = signalsLike(c.circuit, pattern);
      if (names.length === 0) return [];
      const next = stream(names.length);
      const groups = perSignal ? names.map((n) => [n]) : [names];
      return groups.map((group) => ({
        input: { ...clone(c.honest), outcome: c.flipped },
        override: (peek) => Object.fromEntries(group.map((n, i) => [n, value(peek(n), i, next)])),
      }));
    },
  };
}

const internalHints: TamperClass[] = [
  overrideClass(
    "<-- IsZero inverses: all random",
    /(^|\.)isz\.inv$|IsZero[^.]*\.inv$/,
    (_o, _i, next) => next(),
    false,
  ),
  overrideClass("<-- Num2Bits: one bit flipped", BIT_NAMES, (old) => 1n - old, true),
  overrideClass("<-- CountOneHot: one entry flipped", /\.bit\[\d+\]$/, (old) => 1n - old, true),
  overrideClass(
    "<-- DistinctRoots inverses: random on every row",
    /DistinctRoots[^.]*\.inv\[\d+\]$/,
    (_o, _i, next) => next(),
    false,
  ),
  overrideClass(
    "<-- StrictGrounding lookup inverses: random on every element",
    /(queryInv|groundInv)\[\d+\]$/,
    (_o, _i, next) => next(),
    false,
  ),
  overrideClass(
    "<-- StrictGrounding lookup inverse: one element + 1",
    /(queryInv|groundInv)\[\d+\]$/,
    (old) => (old + 1n) % P,
    true,
  ),
  overrideClass(
    "<-- DistinctRoots inverse: one row + 1",
    /DistinctRoots[^.]*\.inv\[\d+\]$/,
    (old) => (old + 1n) % P,
    true,
  ),
];

export const TAMPER_CLASSES: TamperClass[] = [
  ...bindings,
  ...rowPastN,
  ...activeRows,
  ...observations,
  ...hintInputs,
  ...internalHints,
];

export interface SweepReport {
  predicate: string;
  instance: string;
  classes: { name: string; moves: number; accepted: number }[];
}

/**
 * Runs every applicable tamper class on each case, in both directions (each case's honest
 * outcome is flipped), and returns what was tried. Fails on any accepted move.
 */
export async function sweep(
  instanceName: string,
  cases: SweepCase[],
  /**
   * In wide mode, at most this many moves of each class, spread evenly over its variants (every variant when
   * absent): a large circuit's per-bit classes run to thousands of solves.
   */
  widePerClass?: number,
): Promise<SweepReport> {
  const inst = instance(instanceName);
  const predicate = predicateById(inst.predicate) as PredicateDefinition<unknown>;
  const circuit = await builtCircuit(instanceName);
  const report = new Map<string, { moves: number; accepted: number }>();
  const outcomes = new Set<boolean>();
  for (const sc of WIDE ? cases : cases.slice(0, 2)) {
    const theta = predicate.parseTheta(sc.theta);
    const { input: honest, verdict } = claimInput({
      records: sc.records,
      profile: sc.profile,
      sessionSecret: 0x5eedn,
      checkpoints: [],
      predicate,
      theta,
      context: 4242n,
      shape: shapeOf(inst.params),
    });
    outcomes.add(verdict.violated);
    const capacity = 2 ** inst.params.depth;
    expect(sc.records.length, `${sc.label} leaves a row past n`).toBeLessThan(capacity);
    const thetaKeys = Object.keys(predicate.circuitInputs(theta));
    const hintKeys = Object.keys(honest).filter(
      (k) => !TRACE_KEYS.has(k) && !TRACE_ARRAYS.has(k) && !thetaKeys.includes(k),
    );
    const ctx: Context = {
      honest,
      flipped: verdict.violated ? "0" : "1",
      n: sc.records.length,
      capacity,
      thetaKeys,
      hintKeys,
      circuit,
    };
    // The solver has teeth here: the honest witness, and a harmless edit of it, are accepted.
    const honestPlay = await play(circuit, { input: honest });
    expect(honestPlay.accepted, `${sc.label}: honest witness`).toBe(true);
    expect(honestPlay.outcome).toBe(verdict.violated ? 1n : 0n);
    // A padding row's digest (or, where the circuit recomputes digests, its content) is free.
    const digests = clone(honest);
    ((digests.digest ?? digests.content) as string[])[capacity - 1] = "12345";
    expect((await play(circuit, { input: digests })).accepted, `${sc.label}: padding digest is free`).toBe(
      true,
    );
    const challenges = signalsLike(circuit, /(^|\.)(beta|zeta)$/).map(
      (n) => honestPlay.witness[circuit.signals.get(n)!]!,
    );
    challengeCache.set(ctx, challenges);

    for (const tc of TAMPER_CLASSES) {
      const all = tc.moves(ctx);
      const spread =
        widePerClass !== undefined && all.length > widePerClass
          ? Array.from({ length: widePerClass }, (_, i) => all[Math.floor((i * all.length) / widePerClass)]!)
          : all;
      const moves = WIDE ? spread : all.slice(0, 1);
      const entry = report.get(tc.name) ?? { moves: 0, accepted: 0 };
      for (const move of moves) {
        const r = await play(circuit, move);
        entry.moves++;
        if (r.accepted && r.outcome !== (verdict.violated ? 1n : 0n)) entry.accepted++;
      }
      report.set(tc.name, entry);
    }
  }
  expect([...outcomes].sort(), "cases cover both verdicts").toEqual([false, true]);
  const classes = [...report.entries()].filter(([, e]) => e.moves > 0).map(([name, e]) => ({ name, ...e }));
  const result = { predicate: inst.predicate, instance: instanceName, classes };
  // Kept for docs/SOUNDNESS.md's table (its numbers come from `npm run test:full`).
  mkdirSync("build/adversary", { recursive: true });
  writeFileSync(
    `build/adversary/${instanceName}${WIDE ? "-wide" : ""}.json`,
    JSON.stringify(result, null, 2),
  );
  expect(classes.length, "tamper classes tried").toBeGreaterThanOrEqual(20);
  expect(
    classes.filter((c) => c.accepted > 0).map((c) => c.name),
    "classes with an accepted move",
  ).toEqual([]);
  return result;
}
