// The τ³-bench importer (sdk/core/import-tau.ts): the two dev runs import with their seqs mapped back to the
// reference's, rejected calls become blocked calls, malformed runs are refused as the reference refuses them,
// and promise objects load exactly as promises.json holds them.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ThetaError } from "../../sdk/core/predicates/types.js";
import {
  TAU_ARMS,
  importTauJsonl,
  importTauRecords,
  parseTauPromise,
  tauBenchmarkSeq,
} from "../../sdk/core/import-tau.js";
import { RecordError, checkContiguous, type CallRecord } from "../../sdk/core/records.js";

const DEV = join(import.meta.dirname, "..", "..", "fixtures", "vai-tau");
const AIRLINE = "case_c21db24e907a7b6e9fdae3603e7c2ec5537e522710be8709a13ac88ccda19742";
const RETAIL = "case_78a2fab54191ef946bc1ce0ee89b2bd21af1347f41bb806e7e3781d420291463";
const runText = (caseId: string) => readFileSync(join(DEV, "runs", `${caseId}.jsonl`), "utf8");
const promises = JSON.parse(readFileSync(join(DEV, "promises.json"), "utf8")) as Record<string, unknown>[];

/** A minimal well-formed run: capture, greeting, user, an assistant with one call, end. */
function minimalRun(call: Record<string, unknown> = {}): Record<string, unknown>[] {
  const session = "case_test";
  const base = (seq: number, tool: string, result: unknown, metadata: Record<string, unknown>) => ({
    seq,
    session_id: session,
    tool,
    args: {},
    result,
    ts: 0,
    metadata,
  });
  return [
    base(1, "tau.capture", { turns_available: true }, { benchmark_event: "capture" }),
    base(
      2,
      "tau.assistant",
      { text: "Hi! How can I help you today?", calls: [] },
      { benchmark_event: "assistant" },
    ),
    base(3, "tau.user", "Cancel order #W1", { benchmark_event: "user" }),
    base(4, "tau.assistant", { text: "", calls: [1] }, { benchmark_event: "assistant" }),
    {
      ...base(5, "get_order_details", '{"order_id": "#W1", "status": "pending"}', {
        benchmark_seq: 1,
        captured_error: false,
        tool_call_id: "call_1",
      }),
      args: { order_id: "#W1" },
      ...call,
    },
    base(6, "tau.end", {}, { benchmark_event: "end" }),
  ];
}

const refused = (records: unknown[], message: RegExp) => {
  expect(() => importTauRecords(records)).toThrow(RecordError);
  expect(() => importTauRecords(records)).toThrow(message);
};

describe("importTauJsonl: the dev runs", () => {
  it("imports the airline run: one zkVAI record per reference record, seq i ↔ reference seq i + 1", () => {
    const trace = importTauJsonl(runText(AIRLINE));
    expect(trace.records).toHaveLength(14);
    expect(trace.vaiSeq).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    expect(() => checkContiguous(trace.records)).not.toThrow();
    expect(trace.sessionId).toBe(AIRLINE);
    expect(trace.turns).toBe(10);
    expect(trace.records.map((r) => (r as CallRecord).tool)).toEqual([
      "tau.capture",
      "tau.assistant",
      "tau.user",
      "tau.assistant",
      "tau.user",
      "tau.assistant",
      "get_reservation_details",
      "tau.assistant",
      "tau.user",
      "tau.assistant",
      "transfer_to_human_agents",
      "tau.assistant",
      "tau.user",
      "tau.end",
    ]);
    const read = trace.records[6] as CallRecord;
    expect(read.kind).toBe("call");
    expect(read.args).toEqual({ reservation_id: "EHGLP3" });
    expect(read.actionId).toBe("call_5106");
    expect(read.blocked).toBeUndefined();
    expect(typeof read.result).toBe("string");
    // The user's text is the tau.user record's result.
    expect((trace.records[4] as CallRecord).result).toMatch(/emma_kim_9957/);
  });

  it("reports the reference's seq and benchmark_seq of each kind of verdict (SEMANTICS.md §2, §8 Dev 1)", () => {
    const trace = importTauJsonl(runText(AIRLINE));
    // tool_with_response fired at reference record 10 (zkVAI 9), benchmark_seq -8: the message at turn 7.
    expect(trace.vaiSeq[9]).toBe(10);
    expect(tauBenchmarkSeq(trace, 9)).toBe(-8);
    expect(trace.events[9]).toEqual({ kind: "assistant", turn: 7, calls: [2] });
    // The transfer is benchmark call 2 at reference record 11.
    expect(tauBenchmarkSeq(trace, 10)).toBe(2);
    expect(trace.events[10]).toEqual({ kind: "call", turn: 7, benchmarkSeq: 2, rejected: false });
    // The end event is -(turns + 1).
    expect(tauBenchmarkSeq(trace, 13)).toBe(-11);
    expect(tauBenchmarkSeq(trace, 0)).toBeUndefined();
    expect(tauBenchmarkSeq(trace, 2)).toBeUndefined();
  });

  it("imports the retail run", () => {
    const trace = importTauJsonl(runText(RETAIL));
    expect(trace.records).toHaveLength(10);
    expect(trace.turns).toBe(7);
    expect(trace.vaiSeq[6]).toBe(7);
    expect(trace.events[6]).toEqual({ kind: "call", turn: 4, benchmarkSeq: 1, rejected: false });
    expect((trace.records[6] as CallRecord).result).toBe("Transfer successful");
    expect(tauBenchmarkSeq(trace, 9)).toBe(-8);
  });

  it("imports every fixture run under fixtures/tau (also checked per fixture by tau-fixtures.test.ts)", () => {
    const root = join(DEV, "..", "tau");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const { records } = JSON.parse(readFileSync(join(root, file), "utf8")) as { records: unknown[] };
      expect(importTauRecords(records).records).toHaveLength(records.length);
    }
  });
});

describe("importTauRecords: rejected calls", () => {
  it("a captured_error call becomes a blocked call carrying its error text", () => {
    const trace = importTauRecords(
      minimalRun({
        result: "Error: Order not found",
        metadata: { benchmark_seq: 1, captured_error: true, tool_call_id: "call_1" },
      }),
    );
    const call = trace.records[4] as CallRecord;
    expect(call.blocked).toBe(true);
    expect(call.error).toBe("Error: Order not found");
    expect(call.result).toBeUndefined();
    expect(trace.events[4]).toEqual({ kind: "call", turn: 2, benchmarkSeq: 1, rejected: true });
  });

  it("without the flag, a result starting with Error is rejected; with the flag false it is a result", () => {
    const unflagged = importTauRecords(
      minimalRun({ result: "Error: Order not found", metadata: { benchmark_seq: 1 } }),
    );
    expect((unflagged.records[4] as CallRecord).blocked).toBe(true);
    const flaggedFalse = importTauRecords(
      minimalRun({ result: "Error: Order not found", metadata: { benchmark_seq: 1, captured_error: false } }),
    );
    expect((flaggedFalse.records[4] as CallRecord).blocked).toBeUndefined();
    expect((flaggedFalse.records[4] as CallRecord).result).toBe("Error: Order not found");
  });
});

describe("importTauRecords: malformed runs are refused (SEMANTICS.md §2)", () => {
  it("seqs that do not run 1..N", () => {
    const gap = minimalRun();
    gap[3] = { ...gap[3], seq: 5 };
    refused(gap, /seq 5, expected 4/);
    const zeroBased = minimalRun().map((r) => ({ ...r, seq: (r.seq as number) - 1 }));
    refused(zeroBased, /seq 0, expected 1/);
  });

  it("a missing or misplaced end", () => {
    refused(minimalRun().slice(0, -1), /last record must be tau.end/);
    const run = minimalRun();
    const early = [...run.slice(0, 2), run[5], ...run.slice(2)].map((r, i) => ({ ...r, seq: i + 1 }));
    refused(early, /seq 3: tau.end before the last record/);
  });

  it("a missing capture", () => {
    const run = minimalRun()
      .slice(1)
      .map((r, i) => ({ ...r, seq: i + 1 }));
    refused(run, /first record must be tau.capture/);
  });

  it("an assistant's calls that do not match the records after it", () => {
    const announcedTwo = minimalRun();
    announcedTwo[3] = { ...announcedTwo[3], result: { text: "", calls: [1, 2] } };
    refused(announcedTwo, /announced calls \[2\] that have no records/);
    const announcedNone = minimalRun();
    announcedNone[3] = { ...announcedNone[3], result: { text: "", calls: [] } };
    refused(announcedNone, /that no preceding tau.assistant announced/);
    const other = minimalRun();
    other[3] = { ...other[3], result: { text: "", calls: [7] } };
    refused(other, /announced 7 next/);
  });

  it("benchmark seqs duplicated, out of order or missing", () => {
    const dup = minimalRun();
    dup.splice(5, 0, { ...dup[3], seq: 6, result: { text: "", calls: [1] } }, { ...dup[4], seq: 7 });
    dup[7] = { ...dup[7], seq: 8 };
    refused(dup, /benchmark_seq 1 out of order/);
    const skipped = minimalRun({ metadata: { benchmark_seq: 2, captured_error: false } });
    skipped[3] = { ...skipped[3], result: { text: "", calls: [2] } };
    refused(skipped, /benchmark_seq 2 out of order/);
    refused(minimalRun({ metadata: { captured_error: false } }), /has no integer metadata.benchmark_seq/);
  });

  it("records of another session, and context records of the wrong shape", () => {
    const mixed = minimalRun();
    mixed[2] = { ...mixed[2], session_id: "case_other" };
    refused(mixed, /session "case_other" in run "case_test"/);
    const userObject = minimalRun();
    userObject[2] = { ...userObject[2], result: { text: "hi" } };
    refused(userObject, /tau.user result must be the turn's text/);
    const assistantText = minimalRun();
    assistantText[1] = { ...assistantText[1], result: "Hi!" };
    refused(assistantText, /tau.assistant result must be/);
    const wrongEvent = minimalRun();
    wrongEvent[2] = { ...wrongEvent[2], metadata: { benchmark_event: "assistant" } };
    refused(wrongEvent, /must have metadata.benchmark_event "user"/);
    const unknownContext = minimalRun();
    unknownContext[2] = { ...unknownContext[2], tool: "tau.system", metadata: { benchmark_event: "system" } };
    refused(unknownContext, /unknown context record tau.system/);
  });

  it("lines that are not JSON objects", () => {
    expect(() => importTauJsonl(runText(RETAIL) + "\n{not json\n")).toThrow(/line 11: not JSON/);
    refused([...minimalRun().slice(0, 2), 7], /line 3: not a JSON object/);
  });
});

describe("parseTauPromise", () => {
  it("loads every object of promises.json, as given or as JSON text", () => {
    expect(promises).toHaveLength(34);
    for (const promise of promises) {
      const parsed = parseTauPromise(promise);
      expect(parsed.promiseId).toBe(promise.promise_id);
      expect(parsed.rule).toBe(promise.rule);
      expect(parsed.predicate).toBe(promise.predicate);
      expect(parsed.profileHash).toBe((promise.params as Record<string, string>).observation_profile);
      expect(parsed.reportedInPaper).toBe(promise.reported_in_paper);
      expect(parseTauPromise(JSON.stringify(promise))).toEqual(parsed);
    }
    const arms = Object.entries(TAU_ARMS).flatMap(([bench, rules]) =>
      Object.keys(rules).map((r) => `${bench}/${r}`),
    );
    expect(arms.sort()).toEqual(promises.map((p) => p.promise_id).sort());
  });

  const base = promises.find((p) => p.promise_id === "tau_retail/status_precondition")!;
  const params = base.params as Record<string, unknown>;
  const airlineHash = "0x32a9796bf991648414f74e5da40cee1b95e400003c5a2997f0a615e0f02742e5";
  const cases: [string, unknown, RegExp][] = [
    [
      "an unknown rule",
      { ...base, rule: "read_before_write" },
      /unknown rule "read_before_write" for tau_retail/,
    ],
    [
      "an airline rule under retail",
      {
        ...base,
        rule: "cancel_flown",
        promise_id: "tau_retail/cancel_flown",
        params: { ...params, rule: "cancel_flown" },
      },
      /unknown rule "cancel_flown" for tau_retail/,
    ],
    [
      "the other domain's profile",
      { ...base, params: { ...params, observation_profile: airlineHash } },
      /is the tau_airline profile/,
    ],
    [
      "an unknown profile",
      { ...base, params: { ...params, observation_profile: "0x00" } },
      /"0x00" is not a known profile/,
    ],
    [
      "params.rule differing from rule",
      { ...base, params: { ...params, rule: "auth_first" } },
      /differs from rule/,
    ],
    ["an extra parameter", { ...base, params: { ...params, cap: 2 } }, /params must be exactly/],
    [
      "an unknown benchmark",
      { ...base, benchmark: "clawsbench" },
      /benchmark must be tau_airline or tau_retail/,
    ],
    ["a wrong domain", { ...base, domain: "airline" }, /domain must be "retail"/],
    [
      "a wrong promise_id",
      { ...base, promise_id: "promise-1" },
      /promise_id must be "tau_retail\/status_precondition"/,
    ],
    ["a wrong family", { ...base, predicate: "AAP-5" }, /status_precondition is AAP-2/],
    [
      "a wrong catalog entry",
      { ...base, artifact_predicate: "payment_within_mandate" },
      /artifact_predicate must be/,
    ],
    [
      "a wrong predicate hash",
      { ...base, artifact_predicate_hash: "0x01" },
      /artifact_predicate_hash is not AAP-2's/,
    ],
    ["an unknown key", { ...base, theta: {} }, /unknown key "theta"/],
    ["not an object", [base], /must be a JSON object/],
    ["not JSON", "{promise", /not JSON/],
  ];
  for (const [what, value, message] of cases)
    it(`refuses ${what}`, () => {
      expect(() => parseTauPromise(value)).toThrow(ThetaError);
      expect(() => parseTauPromise(value)).toThrow(message);
    });
});
