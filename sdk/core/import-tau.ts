// Reads a τ³-bench run in the reference's ActionRecord layout (fixtures/vai-tau/SEMANTICS.md §2), and a
// τ³-bench promise object exactly as the reference's promises.json holds it.
//
// The layout: seq 1..N with no gaps, one session, ts 0 (metadata.benchmark_event in brackets).
//   seq 1           "tau.capture"    result {"turns_available": true}       [capture]
//   each user msg   "tau.user"       result <text>                          [user]
//   each agent msg  "tau.assistant"  result {"text", "calls": [k, …]}       [assistant]
//     its calls     <tool name>      args, result <content string>, metadata {benchmark_seq k, captured_error,
//                                    tool_call_id}
//   seq N           "tau.end"        result {}                              [end]
//
// How each maps to a zkVAI record. Every reference record becomes exactly one call record, in order, so
// zkVAI seq i is reference seq vaiSeq[i] (= i + 1) and a verdict reports in the reference's seq:
// - context records (capture, user turn, assistant message, end) keep their tool name ("tau.user", …), args
//   {} and result as recorded: a user turn's text is its result, an assistant message's {text, calls} is its
//   result. They are calls of pseudo-tools, as AAP-6 fixtures' "user_message" is, so an observation profile
//   reads them like any tool (e.g. tau.user's result text with a user-id pattern).
// - a tool call with a result keeps tool, args and result; its tool_call_id becomes the actionId.
// - a call the reference rejects (§3.3: captured_error true, or no captured_error flag and a result text
//   starting with "Error") becomes a *blocked* call whose `error` is the result text. The reference gives it
//   no check, no state change and no count: that is zkVAI's "blocked: not a call", whereas an `error` alone
//   would mean a call that ran and failed, which AAP-6 still checks. tau2 cannot tell a tool that refused its
//   arguments from one that raised, and the reference does not try, so both become blocked.
//   captured_error false with an "Error…" result is an ordinary successful call, as in the reference.
// - benchmark_seq is not a record field: it numbers the calls 1, 2, … in order (checked here) and is
//   returned in `events`, with each message's turn index, for the verdict's reason (§2).
// A run the reference would raise on is refused with a RecordError: seqs not 1..N in file order, a missing
// or misplaced capture or end, an assistant's `calls` that do not match the call records after it, benchmark
// seqs that are duplicated, out of order or gapped, a record of another session, a context record of the
// wrong shape, or a benchmark_event this layout does not define.
// Unlike importVaiJsonl, no Python-side args hash is kept: no τ³-bench verdict or authorization names one.
import { ThetaError } from "./predicates/types.js";
import { RecordError, parseRecord, type TraceRecord } from "./records.js";

/** What one reference record was, for reporting a verdict in the reference's terms (SEMANTICS.md §2). */
export type TauEvent =
  | { kind: "capture" }
  | { kind: "user"; turn: number }
  | { kind: "assistant"; turn: number; calls: number[] }
  | { kind: "call"; turn: number; benchmarkSeq: number; rejected: boolean }
  | { kind: "end"; turns: number };

export interface ImportedTauTrace {
  records: TraceRecord[];
  /** vaiSeq[i] is the reference seq of zkVAI record i. */
  vaiSeq: number[];
  /** events[i] says what zkVAI record i was in the reference's walk. */
  events: TauEvent[];
  sessionId: string;
  /** Native user and assistant messages, numbered from 0: the end event's benchmark_seq is -(turns + 1). */
  turns: number;
}

/**
 * The context records (SEMANTICS.md §2): tool name → metadata.benchmark_event. A Map, so no tool name reads a
 * prototype key.
 */
const CONTEXT_TOOLS = new Map<string, TauEvent["kind"]>([
  ["tau.capture", "capture"],
  ["tau.user", "user"],
  ["tau.assistant", "assistant"],
  ["tau.end", "end"],
]);

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** SEMANTICS.md §3.3: the reference's rejection rule. */
export function isRejectedTauCall(result: unknown, metadata: Record<string, unknown>): boolean {
  if (typeof metadata.captured_error === "boolean") return metadata.captured_error;
  return typeof result === "string" && result.startsWith("Error");
}

/** Parses a τ³-bench run (JSONL text, one reference record a line) into zkVAI records. */
export function importTauJsonl(text: string): ImportedTauTrace {
  const lines = text.split("\n").filter((l) => l.trim().length > 0);
  const raw = lines.map((line, i) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (e) {
      throw new RecordError(`τ³-bench trace line ${i + 1}: not JSON (${(e as Error).message})`);
    }
  });
  return importTauRecords(raw);
}

/** Parses a τ³-bench run given as parsed reference records, in file order. */
export function importTauRecords(raw: readonly unknown[]): ImportedTauTrace {
  if (raw.length < 2)
    throw new RecordError("τ³-bench trace: needs at least the tau.capture and tau.end records");
  const records: TraceRecord[] = [];
  const events: TauEvent[] = [];
  let sessionId: string | undefined;
  let turns = 0;
  let nextBenchmarkSeq = 1;
  /** The benchmark seqs the last assistant message announced and not yet seen. */
  let expectedCalls: number[] = [];
  let assistantTurn = -1;
  raw.forEach((r, i) => {
    const position = i + 1;
    if (!isObject(r)) throw new RecordError(`τ³-bench trace line ${position}: not a JSON object`);
    if (r.seq !== position)
      throw new RecordError(
        `τ³-bench trace line ${position}: seq ${JSON.stringify(r.seq)}, expected ${position} (seqs run 1..N with no gaps)`,
      );
    const where = `τ³-bench seq ${position}`;
    if (typeof r.session_id !== "string" || r.session_id.length === 0)
      throw new RecordError(`${where}: session_id must be a non-empty string`);
    if (sessionId === undefined) sessionId = r.session_id;
    else if (r.session_id !== sessionId)
      throw new RecordError(
        `${where}: session ${JSON.stringify(r.session_id)} in run ${JSON.stringify(sessionId)}`,
      );
    if (typeof r.tool !== "string" || r.tool.length === 0)
      throw new RecordError(`${where}: tool must be a non-empty string`);
    const metadata = isObject(r.metadata) ? r.metadata : {};
    const event = CONTEXT_TOOLS.get(r.tool);
    // "Tools with a benchmark_event are context records": one this layout does not define is refused.
    if (event === undefined && metadata.benchmark_event !== undefined)
      throw new RecordError(
        `${where}: unknown context record ${r.tool} (benchmark_event ${JSON.stringify(metadata.benchmark_event)})`,
      );
    const isFirst = position === 1;
    const isLast = position === raw.length;
    if (event !== undefined) {
      if (metadata.benchmark_event !== event)
        throw new RecordError(
          `${where}: ${r.tool} must have metadata.benchmark_event "${event}", got ${JSON.stringify(metadata.benchmark_event)}`,
        );
      if (event !== "assistant" && expectedCalls.length > 0)
        throw new RecordError(
          `${where}: the assistant message at turn ${assistantTurn} announced calls [${expectedCalls.join(", ")}] that have no records`,
        );
    }
    if (isFirst !== (event === "capture"))
      throw new RecordError(
        isFirst ? `${where}: the first record must be tau.capture` : `${where}: a second tau.capture`,
      );
    if (isLast !== (event === "end"))
      throw new RecordError(
        isLast ? `${where}: the last record must be tau.end` : `${where}: tau.end before the last record`,
      );
    const ts = Number.isSafeInteger(r.ts) && (r.ts as number) >= 0 ? (r.ts as number) : 0;
    const seq = i;
    const args = r.args === undefined ? {} : r.args;
    const result = r.result === undefined ? null : r.result;
    switch (event) {
      case "capture":
        events.push({ kind: "capture" });
        break;
      case "end":
        events.push({ kind: "end", turns });
        break;
      case "user":
        if (typeof result !== "string")
          throw new RecordError(`${where}: a tau.user result must be the turn's text`);
        events.push({ kind: "user", turn: turns++ });
        break;
      case "assistant": {
        if (expectedCalls.length > 0)
          throw new RecordError(
            `${where}: the assistant message at turn ${assistantTurn} announced calls [${expectedCalls.join(", ")}] that have no records`,
          );
        const calls = isObject(result) ? result.calls : undefined;
        if (!isObject(result) || typeof result.text !== "string" || !Array.isArray(calls))
          throw new RecordError(
            `${where}: a tau.assistant result must be {"text": string, "calls": [benchmark seqs]}`,
          );
        if (!calls.every((k) => Number.isSafeInteger(k)))
          throw new RecordError(`${where}: a tau.assistant's calls must be integer benchmark seqs`);
        assistantTurn = turns++;
        expectedCalls = [...(calls as number[])];
        events.push({ kind: "assistant", turn: assistantTurn, calls: [...expectedCalls] });
        break;
      }
      default: {
        const k = metadata.benchmark_seq;
        if (!Number.isSafeInteger(k))
          throw new RecordError(`${where}: tool call ${r.tool} has no integer metadata.benchmark_seq`);
        if (expectedCalls.length === 0)
          throw new RecordError(
            `${where}: tool call ${r.tool} (benchmark_seq ${k}) that no preceding tau.assistant announced`,
          );
        if (k !== expectedCalls[0])
          throw new RecordError(
            `${where}: tool call benchmark_seq ${k}, but the assistant message at turn ${assistantTurn} announced ${expectedCalls[0]} next`,
          );
        if (k !== nextBenchmarkSeq)
          throw new RecordError(
            `${where}: benchmark_seq ${k} out of order (calls are numbered 1, 2, … over the run; expected ${nextBenchmarkSeq})`,
          );
        expectedCalls.shift();
        nextBenchmarkSeq += 1;
        const rejected = isRejectedTauCall(result, metadata);
        events.push({ kind: "call", turn: assistantTurn, benchmarkSeq: k as number, rejected });
        const actionId =
          typeof metadata.tool_call_id === "string" && metadata.tool_call_id.length > 0
            ? metadata.tool_call_id
            : undefined;
        const errorText = typeof result === "string" ? result : JSON.stringify(result);
        records.push(
          parseRecord({
            kind: "call",
            seq,
            ts,
            tool: r.tool,
            args,
            actionId,
            ...(rejected
              ? { blocked: true, error: errorText.length > 0 ? errorText : "captured_error" }
              : { result }),
          }),
        );
        return;
      }
    }
    records.push(parseRecord({ kind: "call", seq, ts, tool: r.tool, args, result }));
  });
  return { records, vaiSeq: records.map((_, i) => i + 1), events, sessionId: sessionId!, turns };
}

/**
 * The reference's benchmark_seq of a verdict at zkVAI record i (SEMANTICS.md §2): the call's number for a
 * tool call, -(turn + 1) for an assistant message, -(turns + 1) for the end; undefined for other records.
 */
export function tauBenchmarkSeq(trace: ImportedTauTrace, i: number): number | undefined {
  const event = trace.events[i];
  switch (event?.kind) {
    case "call":
      return event.benchmarkSeq;
    case "assistant":
      return -(event.turn + 1);
    case "end":
      return -(event.turns + 1);
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Promises (SEMANTICS.md §1): one object of promises.json, e.g.
//   {"promise_id": "tau_retail/status_precondition", "benchmark": "tau_retail", "domain": "retail",
//    "rule": "status_precondition", "predicate": "AAP-2", "artifact_predicate": "action_within_declared_scope",
//    "params": {"observation_profile": "0x7d4e…0f3b", "rule": "status_precondition"},
//    "artifact_predicate_hash": "0xa295…", "reported_in_paper": true, "note": ""}
// All policy constants live in the profile the hash names, so the rule name is the only parameter.

export const TAU_BENCHMARKS = ["tau_airline", "tau_retail"] as const;
export type TauBenchmark = (typeof TAU_BENCHMARKS)[number];

/** The observation-profile hash of each domain (SEMANTICS.md §1). */
export const TAU_PROFILE_HASHES: Record<TauBenchmark, `0x${string}`> = {
  tau_airline: "0x32a9796bf991648414f74e5da40cee1b95e400003c5a2997f0a615e0f02742e5",
  tau_retail: "0x7d4e298595f6b4c483888a115cacf75ae570a192565118b83709e388028c0f3b",
};

/** The reference's catalog entry per family (SEMANTICS.md §1 table): AAP id, artifact name and hash. */
export const TAU_FAMILIES = {
  "AAP-2": {
    artifactPredicate: "action_within_declared_scope",
    hash: "0xa2958d0d8b7194f781db62103470e129c79910856aebcb9f8144c340872f192c",
  },
  "AAP-3": {
    artifactPredicate: "payment_within_mandate",
    hash: "0xbcbdd01860817193567040bf4e3edb6d32b27a6ea87ba0fe9de10b24bf0436c3",
  },
  "AAP-5": {
    artifactPredicate: "aggregate_within_cap",
    hash: "0x227cb1d0b688da1f1b7d85c9110e5595b329e3af834dcfdd53c22aa6e7901c87",
  },
} as const;
export type TauFamily = keyof typeof TAU_FAMILIES;

/** Every arm of each domain and its family (SEMANTICS.md §1); the format arms are not in the paper. */
export const TAU_ARMS: Record<TauBenchmark, Record<string, TauFamily>> = {
  tau_airline: {
    user_id_from_user: "AAP-2",
    bookable_status: "AAP-2",
    basic_economy_no_modify: "AAP-2",
    flown_no_cabin_change: "AAP-2",
    no_bag_removal: "AAP-2",
    passenger_count_fixed: "AAP-2",
    cancel_flown: "AAP-2",
    cancel_eligibility: "AAP-2",
    certificate_eligibility: "AAP-2",
    route_preserved: "AAP-2",
    baggage_allowance: "AAP-2",
    baggage_allowance_after_cabin_change: "AAP-2",
    required_transfer_after_flown_cancellation: "AAP-2",
    transfer_notice_requires_call: "AAP-2",
    transfer_notice_after_success: "AAP-2",
    tool_with_response: "AAP-2",
    payment_in_profile: "AAP-3",
    payment_composition: "AAP-3",
    modification_payment_type: "AAP-3",
    certificate_mandate: "AAP-3",
    baggage_fee_after_cabin_change: "AAP-3",
    passenger_cap: "AAP-5",
    one_tool_at_a_time: "AAP-5",
  },
  tau_retail: {
    auth_first: "AAP-2",
    one_user: "AAP-2",
    status_precondition: "AAP-2",
    modify_items_lockout: "AAP-2",
    new_item_differs: "AAP-2",
    cancel_reason_enum: "AAP-2",
    transfer_notice_requires_call: "AAP-2",
    transfer_notice_after_success: "AAP-2",
    tool_with_response: "AAP-2",
    once_per_order: "AAP-5",
    one_tool_at_a_time: "AAP-5",
  },
};

/** The message-format arms the paper leaves out (SEMANTICS.md §6.1). */
export const TAU_FORMAT_ARMS = ["one_tool_at_a_time", "tool_with_response"] as const;

export interface TauPromise {
  promiseId: string;
  benchmark: TauBenchmark;
  domain: "airline" | "retail";
  rule: string;
  predicate: TauFamily;
  artifactPredicate: string;
  profileHash: `0x${string}`;
  reportedInPaper: boolean;
}

const PROMISE_KEYS = [
  "promise_id",
  "benchmark",
  "domain",
  "rule",
  "predicate",
  "artifact_predicate",
  "params",
  "artifact_predicate_hash",
  "reported_in_paper",
  "note",
];

/**
 * Checks one promise object as it stands in the reference's promises.json (given parsed, or as JSON text)
 * and returns it typed; a ThetaError says which field is wrong, e.g. an unknown rule or a profile hash that
 * is not its domain's.
 */
export function parseTauPromise(json: unknown): TauPromise {
  let value = json;
  if (typeof json === "string") {
    try {
      value = JSON.parse(json) as unknown;
    } catch (e) {
      throw new ThetaError(`τ³-bench promise: not JSON (${(e as Error).message})`);
    }
  }
  if (!isObject(value)) throw new ThetaError("τ³-bench promise: must be a JSON object");
  const where = `τ³-bench promise ${JSON.stringify(value.promise_id ?? null)}`;
  const unknown = Object.keys(value).find((k) => !PROMISE_KEYS.includes(k));
  if (unknown !== undefined)
    throw new ThetaError(`${where}: unknown key "${unknown}" (known: ${PROMISE_KEYS.join(", ")})`);
  const benchmark = value.benchmark;
  if (!TAU_BENCHMARKS.includes(benchmark as TauBenchmark))
    throw new ThetaError(
      `${where}: benchmark must be tau_airline or tau_retail, got ${JSON.stringify(benchmark)}`,
    );
  const bench = benchmark as TauBenchmark;
  const domain = bench === "tau_airline" ? "airline" : "retail";
  if (value.domain !== domain)
    throw new ThetaError(
      `${where}: domain must be "${domain}" for ${bench}, got ${JSON.stringify(value.domain)}`,
    );
  const rule = value.rule;
  if (typeof rule !== "string" || !Object.prototype.hasOwnProperty.call(TAU_ARMS[bench], rule))
    throw new ThetaError(
      `${where}: unknown rule ${JSON.stringify(rule)} for ${bench} (known: ${Object.keys(TAU_ARMS[bench]).join(", ")})`,
    );
  if (value.promise_id !== `${bench}/${rule}`)
    throw new ThetaError(`${where}: promise_id must be "${bench}/${rule}"`);
  const family = TAU_ARMS[bench][rule];
  if (value.predicate !== family)
    throw new ThetaError(`${where}: rule ${rule} is ${family}, not ${JSON.stringify(value.predicate)}`);
  const { artifactPredicate, hash } = TAU_FAMILIES[family];
  if (value.artifact_predicate !== artifactPredicate)
    throw new ThetaError(`${where}: artifact_predicate must be "${artifactPredicate}" for ${family}`);
  if (value.artifact_predicate_hash !== undefined && value.artifact_predicate_hash !== hash)
    throw new ThetaError(`${where}: artifact_predicate_hash is not ${family}'s (${hash})`);
  const params = value.params;
  if (!isObject(params) || Object.keys(params).sort().join(",") !== "observation_profile,rule")
    throw new ThetaError(`${where}: params must be exactly {"observation_profile", "rule"}`);
  if (params.rule !== rule)
    throw new ThetaError(`${where}: params.rule ${JSON.stringify(params.rule)} differs from rule "${rule}"`);
  const profile = params.observation_profile;
  if (profile !== TAU_PROFILE_HASHES[bench]) {
    const other = TAU_BENCHMARKS.find((b) => TAU_PROFILE_HASHES[b] === profile);
    throw new ThetaError(
      other !== undefined
        ? `${where}: params.observation_profile is the ${other} profile, not ${bench}'s`
        : `${where}: params.observation_profile ${JSON.stringify(profile)} is not a known profile (${bench} is ${TAU_PROFILE_HASHES[bench]})`,
    );
  }
  const reported = value.reported_in_paper;
  if (reported !== undefined && typeof reported !== "boolean")
    throw new ThetaError(`${where}: reported_in_paper must be a boolean`);
  return {
    promiseId: `${bench}/${rule}`,
    benchmark: bench,
    domain,
    rule,
    predicate: family,
    artifactPredicate,
    profileHash: TAU_PROFILE_HASHES[bench],
    reportedInPaper: reported ?? !(TAU_FORMAT_ARMS as readonly string[]).includes(rule),
  };
}
