// What every predicate ships for the benchmarks (its ./<aapN>/samples.ts): traces built from the repository's
// fixtures at any capacity (scripts/bench/traces.ts checks each verdict with the oracle), and a long session
// produced one record at a time (scripts/bench/segments.ts). The fixtures are read by the caller and handed in,
// so the samples stay pure; the helpers below are the shapes the samples share.
import { canonicalJson } from "../canonical.js";
import type { EncodingProfile } from "../profile.js";
import type { RecordBody, TraceRecord } from "../records.js";
import { keccak256, toBytes } from "viem";

/** A fixture file of fixtures/<aap-n>/ as the samples read it: θ, profile and records. */
export interface SampleFixture {
  theta: unknown;
  profile: EncodingProfile;
  records: TraceRecord[];
}

/** How the samples read the repository's fixtures (paths relative to fixtures/). */
export interface SampleSource {
  fixture(file: string): SampleFixture;
  /** A VAI AgentDojo run, imported (fixtures/vai-agentdojo/runs/<caseId>.jsonl). */
  agentDojoRun(caseId: string): TraceRecord[];
  /** One promise of fixtures/vai-agentdojo/promises.json, as it stands there. */
  agentDojoPromise(promiseId: string): Record<string, unknown>;
}

/** A satisfied and a violated trace of exactly `capacity` records, and the fixtures they came from. */
export interface FixtureTraces {
  theta: unknown;
  profile: EncodingProfile;
  satisfied: TraceRecord[];
  violated: TraceRecord[];
  /** Fixture files the traces were built from, relative to fixtures/. */
  sources: string[];
}

export interface PredicateSamples {
  /** Traces of `capacity` records from the fixtures; the violated one ends in a violation. */
  fromFixtures(source: SampleSource, capacity: number): FixtureTraces;
  /** A session of any length, one record at a time: record i of a compliant run, or of one whose last record violates. */
  stream: {
    theta: unknown;
    profile: unknown;
    /** What the stream shows, for the bench's report. */
    description: string;
    record(i: number, bad: boolean): RecordBody;
  };
}

/** Copy of `records` as the k-th repetition: action ids renamed so no authorization is consumed twice. */
function repetition(records: readonly TraceRecord[], k: number): TraceRecord[] {
  return records.map((r) =>
    "actionId" in r && r.actionId !== undefined ? { ...r, actionId: `${r.actionId}#${k}` } : { ...r },
  );
}

/**
 * `once` first, then the blocks in turn until `length` records, then renumbers seq and ts from 0.
 * Grants and revokes go in `once` (and the tail): a session changes its permissions a few times, not
 * once per tool call, and the AAP-2/AAP-4 circuits hold a fixed number of them (their `events`).
 */
export function fill(
  blocks: readonly TraceRecord[][],
  length: number,
  tail: readonly TraceRecord[] = [],
  once: readonly TraceRecord[] = [],
): TraceRecord[] {
  const out: TraceRecord[] = repetition(once, -2);
  const want = Math.max(0, length - tail.length);
  for (let k = 0; out.length < want; k++) out.push(...repetition(blocks[k % blocks.length], k));
  out.length = want;
  out.push(...repetition(tail.slice(-length), -1));
  return out.map((r, seq) => ({ ...r, seq, ts: 1_700_000_000_000 + seq * 1000 }));
}

/** Puts a human allow, for exactly these args, before each call to `tool` (the approval flow of AAP-1). */
export function withApprovals(records: readonly TraceRecord[], tool: string): TraceRecord[] {
  const out: TraceRecord[] = [];
  records.forEach((r, i) => {
    if (r.kind === "call" && r.tool === tool && !r.blocked) {
      const actionId = `approve-${i}`;
      out.push({
        kind: "authorization",
        seq: 0,
        ts: 0,
        actionId,
        tool,
        argsHash: keccak256(toBytes(canonicalJson(r.args))),
        decision: "allow",
        authority: "human",
        scope: "once",
      });
      out.push({ ...r, actionId });
    } else out.push(r);
  });
  return out;
}
