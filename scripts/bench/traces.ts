// Bench traces of a given length, built from the repository's fixtures so the prover sees what an agent
// records: tool calls with their results, authorizations before gated calls, grants and revokes. Each
// predicate's samples (sdk/core/predicates/<aapN>/samples.ts) build a satisfied trace (satisfied fixtures
// repeated to fill the capacity, action ids made unique per repetition) and a violated one (the same filler
// ending in a violated fixture or run); this file reads the fixtures for them, and the TS oracle checks both
// verdicts, so a sample that drifts fails here rather than in a proof.
import { readFileSync } from "node:fs";
import path from "node:path";
import { CHECKPOINT_INTERVAL } from "../../sdk/core/checkpoints.js";
import { importVaiJsonl } from "../../sdk/core/import-vai.js";
import { PREDICATE_LIST, predicateById } from "../../sdk/core/predicates/index.js";
import type { FixtureTraces, SampleSource } from "../../sdk/core/predicates/samples.js";
import { parseProfile } from "../../sdk/core/profile.js";
import { parseRecord, type TraceRecord } from "../../sdk/core/records.js";
import { ROOT } from "../../prover/artifacts/circuit-build.js";

export interface BenchTraces extends FixtureTraces {
  predicate: string;
}

/** The repository's fixtures, as each predicate's samples read them. */
const FIXTURES: SampleSource = {
  fixture(file) {
    const raw = JSON.parse(readFileSync(path.join(ROOT, "fixtures", file), "utf8"));
    return { theta: raw.theta, profile: parseProfile(raw.profile), records: raw.records.map(parseRecord) };
  },
  agentDojoRun(caseId) {
    const text = readFileSync(path.join(ROOT, "fixtures/vai-agentdojo/runs", `${caseId}.jsonl`), "utf8");
    return importVaiJsonl(text).records;
  },
  agentDojoPromise(promiseId) {
    const file = path.join(ROOT, "fixtures/vai-agentdojo/promises.json");
    const all = JSON.parse(readFileSync(file, "utf8")) as Array<Record<string, unknown>>;
    const found = all.find((p) => p.promise_id === promiseId);
    if (!found) throw new Error(`no ${promiseId} in ${file}`);
    return found;
  },
};

/** Every registered predicate has bench samples (its samples.ts). */
export const BENCH_PREDICATES = PREDICATE_LIST.map((d) => d.id);

export function benchTraces(predicate: string, capacity: number): BenchTraces {
  const def = predicateById(predicate);
  const t = { predicate, ...def.samples.fromFixtures(FIXTURES, capacity) };
  const theta = def.parseTheta(t.theta);
  def.checkProfile(theta, t.profile);
  for (const [which, records, want] of [
    ["satisfied", t.satisfied, false],
    ["violated", t.violated, true],
  ] as const) {
    if (records.length !== capacity)
      throw new Error(`${predicate} ${which} bench trace has ${records.length} records, not ${capacity}`);
    const verdict = def.evaluate(records, theta, t.profile);
    if (verdict.violated !== want)
      throw new Error(
        `${predicate} ${which} bench trace at ${capacity} records evaluates ${verdict.violated ? "violated" : "satisfied"} (${verdict.reason})`,
      );
  }
  return t;
}

/** Counts of each record kind, to report the mix. */
export function recordMix(records: readonly TraceRecord[]): Record<string, number> {
  const mix: Record<string, number> = {};
  for (const r of records) {
    const k = r.kind === "call" && r.blocked ? "blocked" : r.kind;
    mix[k] = (mix[k] ?? 0) + 1;
  }
  return mix;
}

/**
 * Where the default policy's record trigger checkpoints a trace of `length` records replayed one at a
 * time, each checkpoint landing before the next record (scripts/bench/measure.ts): once
 * CHECKPOINT_INTERVAL records are not covered, so at n = 10, 20, … up to `length`. The k-th sits at
 * n = 10·k > 10·(k − 1): each is within the escrow's budget.
 */
export function policyCheckpoints(length: number): number[] {
  return Array.from(
    { length: Math.floor(length / CHECKPOINT_INTERVAL) },
    (_, k) => (k + 1) * CHECKPOINT_INTERVAL,
  );
}
