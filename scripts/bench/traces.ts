// Bench traces of a given length, built from the repository's fixtures so the prover sees what an agent
// records: tool calls with their results, authorizations before gated calls, grants and revokes. Each
// predicate gets a satisfied trace (satisfied fixtures repeated to fill the capacity, action ids made
// unique per repetition) and a violated one (the same filler ending in a violated fixture or run). The TS
// oracle checks both verdicts, so a builder that drifts fails here rather than in a proof.
import { readFileSync } from "node:fs";
import path from "node:path";
import { keccak256, toBytes } from "viem";
import { canonicalJson } from "../../sdk/core/canonical.js";
import { CHECKPOINT_INTERVAL } from "../../sdk/core/checkpoints.js";
import { callAmount } from "../../sdk/core/encoding.js";
import { importVaiJsonl } from "../../sdk/core/import-vai.js";
import { predicateById } from "../../sdk/core/predicates/index.js";
import { parseProfile, type EncodingProfile } from "../../sdk/core/profile.js";
import { parseRecord, type CallRecord, type TraceRecord } from "../../sdk/core/records.js";
import { ROOT } from "../../prover/artifacts/circuit-build.js";

export interface BenchTraces {
  predicate: string;
  theta: unknown;
  profile: EncodingProfile;
  satisfied: TraceRecord[];
  violated: TraceRecord[];
  /** Fixture files the traces were built from, relative to fixtures/. */
  sources: string[];
}

interface Fixture {
  theta: unknown;
  profile: EncodingProfile;
  records: TraceRecord[];
}

function fixture(file: string): Fixture {
  const raw = JSON.parse(readFileSync(path.join(ROOT, "fixtures", file), "utf8"));
  return { theta: raw.theta, profile: parseProfile(raw.profile), records: raw.records.map(parseRecord) };
}

function agentDojoRun(caseId: string): TraceRecord[] {
  const text = readFileSync(path.join(ROOT, "fixtures/vai-agentdojo/runs", `${caseId}.jsonl`), "utf8");
  return importVaiJsonl(text).records;
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
function fill(
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
function withApprovals(records: readonly TraceRecord[], tool: string): TraceRecord[] {
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

type Builder = (capacity: number) => Omit<BenchTraces, "predicate">;

const BUILDERS: Record<string, Builder> = {
  "AAP-1": (capacity) => {
    const base = fixture("aap-1/compliant.json");
    const filler = [base.records, fixture("aap-1/allow-after-deny-stands.json").records];
    const tail = fixture("aap-1/approval-reused.json").records;
    return {
      theta: base.theta,
      profile: base.profile,
      satisfied: fill(filler, capacity),
      violated: fill(filler, capacity, tail),
      sources: ["aap-1/compliant.json", "aap-1/allow-after-deny-stands.json", "aap-1/approval-reused.json"],
    };
  },
  "AAP-2": (capacity) => {
    const base = fixture("aap-2/compliant.json");
    const granted = fixture("aap-2/grant-then-call.json").records;
    const filler = [withApprovals(base.records, "write_file"), fixture("aap-2/blocked-call.json").records];
    const tail = fixture("aap-2/grant-then-revoke-then-call.json").records;
    return {
      theta: base.theta,
      profile: base.profile,
      satisfied: fill(filler, capacity, [], granted),
      violated: fill(filler, capacity, tail, granted),
      sources: [
        "aap-2/compliant.json",
        "aap-2/grant-then-call.json",
        "aap-2/blocked-call.json",
        "aap-2/grant-then-revoke-then-call.json",
      ],
    };
  },
  "AAP-3": (capacity) => {
    const base = fixture("aap-3/compliant.json");
    const filler = [
      withApprovals(base.records, "send_payment"),
      fixture("aap-3/blocked-payment.json").records,
      withApprovals(fixture("aap-3/amount-equals-cap.json").records, "send_payment"),
    ];
    const tail = withApprovals(fixture("aap-3/merchant-off-list.json").records, "send_payment");
    return {
      theta: base.theta,
      profile: base.profile,
      satisfied: fill(filler, capacity),
      violated: fill(filler, capacity, tail),
      sources: [
        "aap-3/compliant.json",
        "aap-3/blocked-payment.json",
        "aap-3/amount-equals-cap.json",
        "aap-3/merchant-off-list.json",
      ],
    };
  },
  // The AgentDojo travel suite under its send_email promise (promise-10): a real satisfied run, a recipient
  // grant followed by a send to the granted address (as fixtures/aap-4/grant-then-send.json), and the real
  // run that mailed a passport to an address off the list.
  "AAP-4": (capacity) => {
    const promise = (
      JSON.parse(readFileSync(path.join(ROOT, "fixtures/vai-agentdojo/promises.json"), "utf8")) as Array<{
        promise_id: string;
        egress_tools: string[];
        recipient_allowlist: string[];
      }>
    ).find((p) => p.promise_id === "promise-10")!;
    const satisfiedRun = agentDojoRun(
      "case_eedcb06d6673e8ad58321c58588d8a828103d623d81f41be9c949cd97a7cb408",
    );
    const violatedRun = agentDojoRun("case_ef43d6a345f10d54fb34060a410f85dfb86fae0cdb9f394a5557c3d96c03f8f0");
    const tools: EncodingProfile["tools"] = {};
    for (const r of [...satisfiedRun, ...violatedRun]) if (r.kind === "call") tools[r.tool] = {};
    tools.send_email = { target: "recipients" };
    const granted = "travel-agent@bluesparrowtech.example";
    const grant: TraceRecord[] = [
      { kind: "grant", seq: 0, ts: 0, namespace: "recipient", value: granted },
      {
        kind: "call",
        seq: 0,
        ts: 0,
        tool: "send_email",
        args: { recipients: [granted], subject: "Itinerary", body: "Luxury Palace, 2024-05-01 to 05-05." },
        result: "sent",
      },
    ];
    // The grant comes once; later blocks send to the granted address again.
    const filler = [satisfiedRun, withApprovals(grant.slice(1), "send_email")];
    const once = withApprovals(grant, "send_email");
    return {
      theta: { outboundTools: promise.egress_tools, allowlist: promise.recipient_allowlist },
      profile: { version: 1, tools },
      satisfied: fill(filler, capacity, [], once),
      violated: fill(filler, capacity, violatedRun, once),
      sources: [
        "vai-agentdojo/promises.json (promise-10)",
        "vai-agentdojo/runs/case_eedcb06d….jsonl",
        "vai-agentdojo/runs/case_ef43d6a3….jsonl",
        "aap-4/grant-then-send.json",
      ],
    };
  },
  // All three limits at once. The limits are set to exactly what the satisfied trace uses (as
  // count-at-max / sum-at-max / repeats-at-max do), and the violated trace repeats one more email.
  "AAP-5": (capacity) => {
    const count = fixture("aap-5/count-at-max.json");
    const filler = [
      count.records,
      withApprovals(fixture("aap-5/sum-at-max.json").records, "send_payment"),
      fixture("aap-5/repeats-at-max.json").records,
    ];
    const satisfied = fill(filler, capacity);
    const profile = count.profile;
    const calls = satisfied.filter((r): r is CallRecord => r.kind === "call" && !r.blocked);
    let sum = 0n;
    for (const c of calls.filter((c) => c.tool === "send_payment")) {
      const a = callAmount(c, profile);
      if (typeof a !== "bigint") throw new Error(`AAP-5 bench trace: payment ${c.seq} has no amount`);
      sum += a;
    }
    const repeats = new Map<string, number>();
    for (const c of calls) {
      const key = `${c.tool}\0${canonicalJson(c.args)}`;
      repeats.set(key, (repeats.get(key) ?? 0) + 1);
    }
    const lastEmail = calls.filter((c) => c.tool === "send_email").at(-1);
    if (!lastEmail) throw new Error("AAP-5 bench trace: no email to repeat");
    const violated = [...satisfied.slice(0, -1), { ...lastEmail, seq: capacity - 1 }];
    return {
      theta: {
        countedTools: ["send_email"],
        maxCount: calls.filter((c) => c.tool === "send_email").length,
        summedTools: ["send_payment"],
        maxSum: Number(sum),
        maxRepeat: Math.max(...repeats.values()),
      },
      profile,
      satisfied,
      violated,
      sources: ["aap-5/count-at-max.json", "aap-5/sum-at-max.json", "aap-5/repeats-at-max.json"],
    };
  },
};

export const BENCH_PREDICATES = Object.keys(BUILDERS);

export function benchTraces(predicate: string, capacity: number): BenchTraces {
  const build = BUILDERS[predicate];
  if (!build) throw new Error(`no bench traces for ${predicate} (known: ${BENCH_PREDICATES.join(", ")})`);
  const t = { predicate, ...build(capacity) };
  const def = predicateById(predicate);
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
