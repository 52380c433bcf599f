// Which suites run where: the one list of what `npm test` leaves to `npm run test:full`, and the runs test:full
// makes (scripts/test-full.ts runs them; vitest.config.ts excludes FULL_ONLY unless ZKVAI_FULL=1).

/**
 * Suites that run only in `npm run test:full` (ZKVAI_FULL=1), which `.ci/run` runs after `npm test`: the
 * adversarial sweeps of AAP-2…7 (npm test keeps AAP-1's narrow sweep and every targeted exploit in
 * test/adversary/exploits.test.ts) and the multi-process provider runtime (a hardhat node, a recorder and a
 * watcher as child processes, killed and restarted), the `vai` flow as processes against a hardhat node, the
 * segment-chain attacks on real proofs and the segment circuits' predicate carriers. Keeps a fresh `npm test`
 * within its 10 minutes (595 s and 630 s measured fresh before the `vai` flow moved here; 686 s and 707 s on
 * CI before the multi-process suites and the demo's test moved here).
 */
export const FULL_ONLY = [
  "test/adversary/aap2.sweep.test.ts",
  "test/adversary/aap3.sweep.test.ts",
  "test/adversary/aap4.sweep.test.ts",
  "test/adversary/aap5.sweep.test.ts",
  "test/adversary/aap6.sweep.test.ts",
  "test/adversary/aap7.sweep.test.ts",
  "test/integration/provider-runtime.test.ts",
  "test/full/segment-attacks.test.ts",
  // A lying BullMQ worker against the claim watcher (issue 34, finding 3): 9 real segment proofs, about 2 min.
  "test/full/segment-queue-liar.test.ts",
  // A 2,000-record AAP-6 session settled by 32 real aap6_seg64 proofs (issue 36).
  "test/full/segment-grounding-2000.test.ts",
  // The predicates' carried state (AAP-2's scope log and named violations, AAP-4's recipient log, AAP-5's
  // totals and its repeat argument, AAP-1's authorization chains, attacked with forged labels) on their
  // own compiled segment circuits, and the violated chain through the local pool. npm test keeps the chain's
  // attacks on the compiled AAP-3 segment (test/circuits/segment.test.ts) and the escrow's
  // (test/contracts/segments.test.ts).
  "test/circuits/segment-events.test.ts",
  "test/circuits/segment-scope.test.ts",
  "test/circuits/segment-limits.test.ts",
  "test/circuits/segment-authorization.test.ts",
  "test/circuits/segment-grounding.test.ts",
  "test/circuits/segment-rule.test.ts",
  "test/e2e/segments.test.ts",
  // The whole `vai` flow as separate processes against a real hardhat node (about 50 s): a multi-process
  // service test. npm test keeps the CLI's in-process tests (test/cli/config and the others below).
  "test/cli/vai-flow.test.ts",
  // Guard mode's record reservation under a held lock and a full disk: three of its cases wait out the store's
  // 15 s lock retry (about 50 s, mostly waiting).
  "test/sdk/session-guard-reserve.test.ts",
  // The README's fragments type-checked against the SDK and every framework's types (about 25 s of tsc).
  "test/docs/readme-snippets.test.ts",
  // Multi-process suites (the brief puts them here), measured on a cold compile cache: the queue-backed
  // watcher's settlement and its vai verify on two BullMQ worker processes and a private Redis (58 s), and the
  // store's writer lock against a second recorder process (10 s).
  "test/prover/segment-queue.test.ts",
  "test/sdk/store-concurrency.test.ts",
  // The Postgres store against other processes (issue 40): the writer lock against recorder processes, one of
  // them killed, a racing writer, and recorder processes sharing the database; 10 to 22 s with its private
  // cluster's start on a shared 2-core machine. npm test keeps the store's contract on Postgres
  // (test/sdk/store.test.ts), its migrations (test/sdk/store-postgres.test.ts) and a Session recovered from it
  // (test/sdk/session-recover-postgres.test.ts).
  "test/sdk/store-postgres-writers.test.ts",
  // Two claim watcher processes on one Postgres store (issue 40): the lease holder answers, is killed while it
  // proves, and the standby takes over and settles once (2 real proofs, a hardhat node, a private cluster).
  "test/full/watcher-failover.test.ts",
  // The Postgres store through a server restart (pg_ctl stop -m immediate, then start) under two recorders'
  // load: nothing acknowledged lost, clear errors while down, sessions recovered after (about 7 s).
  "test/full/store-postgres-restart.test.ts",
  // A connection dropped mid-transaction (psql processes hold the row and end the store's backend), and recorder
  // processes sharing one cluster (scripts/bench-store-load.ts --postgres, small): about 20 s.
  "test/full/store-postgres-faults.test.ts",
  // The demo's assertions on its six claims (65 s). `.ci/run` runs `npm run demo` itself, first, on the fresh
  // clone; this test checks what it settles.
  "test/e2e/demo.test.ts",
  // Moved here when a fresh npm test measured 670 s on CI (issue 38's batch tests added 54 s to about 630):
  // every predicate's satisfied and violated fixture settled on-chain with real proofs (40 s), `vai`'s input
  // refusals against a hardhat node process (23 s), and `vai check` as child processes (41 s). npm test keeps
  // the on-chain settlement of every outcome and field (test/e2e/settlement.test.ts), every fixture through
  // oracle and circuit (test/predicates/fixtures.test.ts), and the CLI's in-process tests.
  "test/e2e/predicates.test.ts",
  "test/cli/vai-input.test.ts",
  "test/cli/check.test.ts",
  // The independent adversarial review of the keyed-latest-value gadget: exhaustive multiset search and the
  // segment-interface attacks (25 s). npm test keeps test/circuits/keyed-latest.test.ts.
  "test/circuits/keyed-latest-review.test.ts",
  // The independent adversarial review of the rule gadget (issue 37). npm test keeps test/rules/tau-rules.test.ts
  // (every τ³ fixture through the oracle and the gadget) and test/predicates/aap7-rules.test.ts.
  "test/rules/rule-review.test.ts",
  // The independent review of the sub-row gadgets (RecordRows, the register, pair keys; issue 37).
  "test/circuits/rule-rows-review.test.ts",
  // The independent review of the row stream (segments whose rows cross boundaries): the eight carried values
  // edited at a boundary, a record's rows over three segments. npm test keeps test/circuits/row-stream.test.ts.
  "test/circuits/row-stream-review.test.ts",
  // The coverage replay with every judged AgentDojo pair settled on an in-process chain with real proofs
  // (issue 37). npm test keeps the verdicts-only replay (test/prover/replay.test.ts).
  "test/full/replay.test.ts",
  // The check page in Debian's chromium against a hardhat node (issue 39): twelve cases, five claims proven and
  // settled first (about 55 s on 2 cores). npm test keeps test/page/bundle.test.ts (the bundle carries no Node).
  "test/page/page.test.ts",
];

/**
 * Suites `npm test` runs narrow, which test:full reruns wide: every variant of every tamper class
 * (ZKVAI_SWEEP=wide, docs/SOUNDNESS.md), the README's local-chain blocks, and the segment frontier's long cases.
 */
export const WIDENED = ["test/adversary", "test/docs/readme.test.ts", "test/sdk/segment-frontier.test.ts"];

export interface FullRun {
  env: Record<string, string>;
  files: string[];
  /** vitest's -t: only the tests whose names match. */
  only?: string;
}

/** `npm run test:full`, in order; each run must pass before the next starts. */
export const FULL_RUNS: FullRun[] = [
  { env: { ZKVAI_SWEEP: "wide", ZKVAI_FULL: "1" }, files: [...WIDENED, ...FULL_ONLY] },
  // The random-trace property tests at their full run counts.
  {
    env: { ZKVAI_FULL: "1" },
    files: ["test/predicates", "test/circuits/active-set.test.ts", "test/contracts/invariants.test.ts"],
    only: "random",
  },
  // Every τ³ fixture and dev pair of an arm with a rule through AAP-7's whole-claim circuit, and AAP-7's own
  // fixtures past 8 records (npm test checks those against the oracle only).
  { env: { ZKVAI_FULL: "1" }, files: ["test/predicates/fixtures.test.ts"], only: "AAP-7" },
  { env: { ZKVAI_FULL: "1" }, files: ["test/rules/tau-rules.test.ts"], only: "AAP-7's circuit" },
  // Every HashVector chunk boundary, and the tree at capacity 64.
  { env: { ZKVAI_FULL: "1" }, files: ["test/circuits/gadgets.test.ts"], only: "HashVector|MerkleTree" },
];
