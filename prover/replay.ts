// The coverage replay (`npm run replay -- <dir>`, scripts/replay.ts): the reference's benchmark runs, each
// promise of each run judged by zkVAI and compared with the verdict the reference recorded, and with
// `prove`, each judged pair settled for real: recorded through the recorder on an in-process chain, claimed,
// proven with the claim's Groth16 circuit and settled by the escrow.
//
// A benchmark folder holds promises.json (the reference's promise objects), expected.jsonl (one line per
// (run, promise): case_id, promise_id, violated, seq) and runs/<case_id>.jsonl (the run in the reference's
// ActionRecord layout), as fixtures/vai-agentdojo and fixtures/vai-tau do. A τ³-bench arm with a rule
// (sdk/core/rules/tau-arms.ts) is an AAP-7 promise, judged and settled like any other; an arm with no rule
// is reported as not supported, with the reason, never guessed.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseEther } from "viem";
import { scopedSessionId } from "../sdk/chain/escrow.js";
import type { ChainHandle } from "../sdk/chain/network.js";
import { InputError } from "../sdk/core/errors.js";
import type { PromiseDocument } from "../sdk/core/promise-document.js";
import type { TraceRecord } from "../sdk/core/records.js";
import { parseTraceText } from "../sdk/core/trace-text.js";
import { registerPromise } from "../sdk/provider/promises.js";
import { Session, type RecordBody } from "../sdk/provider/session.js";
import { TraceStore } from "../sdk/provider/store.js";
import { withRowPads } from "../sdk/core/predicates/aap7/pads.js";
import { deployZkVai, type ZkVaiDeployment } from "./artifacts/deploy.js";
import { answerClaim } from "./claims.js";
import {
  claimCircuitFor,
  evaluatePromise,
  promiseProfile,
  readPromiseObject,
  traceImportOptions,
} from "./evaluate.js";

/** One (run, promise) pair of a benchmark folder, with the reference's verdict. */
export interface ReplayPair {
  benchmark: string;
  caseId: string;
  promiseId: string;
  reference: { violated: boolean; seq: number | null };
}

export interface ReplaySettlement {
  circuit: string;
  outcome: "violated" | "satisfied";
  proveSeconds: number;
  settleGas: number;
}

export interface ReplayRow extends ReplayPair {
  /** zkVAI's verdict (the oracle's, in the reference's seq), or why there is none. */
  zkvai: { violated: boolean; seq: number | null } | { unsupported: string };
  /** Verdict and seq both equal the reference's; undefined when unsupported. */
  agrees?: boolean;
  /** With prove: the claim settled on the in-process chain, or why it was not. */
  settlement?: ReplaySettlement | { skipped: string };
}

interface BenchmarkFolder {
  benchmark: string;
  promises: Map<string, Record<string, unknown>>;
  runs: Map<string, string>;
  pairs: ReplayPair[];
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** Reads a benchmark folder, refusing one that is not in the layout above with the file and the reason. */
export function readBenchmarkFolder(dir: string): BenchmarkFolder {
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), "utf8");
    } catch (e) {
      throw new InputError(
        `${dir}: cannot read ${file} (${(e as Error).message}); a benchmark folder holds promises.json, expected.jsonl and runs/`,
      );
    }
  };
  const promiseList = JSON.parse(read("promises.json")) as unknown;
  if (!Array.isArray(promiseList) || !promiseList.every(isObject))
    throw new InputError(`${dir}/promises.json: expected an array of promise objects`);
  const promises = new Map(promiseList.map((p) => [String(p.promise_id), p]));
  const runs = new Map(
    readdirSync(join(dir, "runs"))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => [f.replace(/\.jsonl$/, ""), readFileSync(join(dir, "runs", f), "utf8")]),
  );
  // τ³-bench promises name their benchmark; AgentDojo's name their suite.
  const benchmarkOf = (p: Record<string, unknown> | undefined) =>
    typeof p?.benchmark === "string"
      ? p.benchmark
      : typeof p?.suite === "string"
        ? `agentdojo`
        : basename(dir);
  const pairs = read("expected.jsonl")
    .split("\n")
    .filter((l) => l.trim())
    .map((line, i) => {
      const e = JSON.parse(line) as Record<string, unknown>;
      const caseId = String(e.case_id);
      const promiseId = String(e.promise_id);
      if (!runs.has(caseId))
        throw new InputError(`${dir}/expected.jsonl line ${i + 1}: no run ${caseId} in runs/`);
      if (!promises.has(promiseId))
        throw new InputError(`${dir}/expected.jsonl line ${i + 1}: no promise ${promiseId} in promises.json`);
      if (typeof e.violated !== "boolean")
        throw new InputError(`${dir}/expected.jsonl line ${i + 1}: "violated" is not a boolean`);
      return {
        benchmark: benchmarkOf(promises.get(promiseId)),
        caseId,
        promiseId,
        reference: { violated: e.violated, seq: typeof e.seq === "number" ? e.seq : null },
      };
    });
  return { benchmark: pairs[0]?.benchmark ?? basename(dir), promises, runs, pairs };
}

const PAYOUT = parseEther("1");
const BOND = parseEther("0.1");

/** An in-process chain with zkVAI deployed (claims settle right after close) and a scratch store. */
interface SettlementBench {
  chain: ChainHandle;
  deployment: ZkVaiDeployment;
  store: TraceStore;
  dir: string;
}

async function openBench(openChain: () => Promise<ChainHandle>): Promise<SettlementBench> {
  const chain = await openChain();
  const deployment = await deployZkVai(chain, chain.wallets[0], { receiptWindow: 0 });
  const dir = mkdtempSync(join(tmpdir(), "zkvai-replay-"));
  return { chain, deployment, store: TraceStore.open(join(dir, "store.sqlite")), dir };
}

/** Records the run as the recorder would (a checkpoint after record 0, then close), claims, proves, settles. */
async function settle(
  bench: SettlementBench,
  doc: PromiseDocument,
  records: readonly TraceRecord[],
  label: string,
): Promise<ReplaySettlement> {
  const { chain, deployment, store } = bench;
  const escrow = deployment.escrow;
  const profile = promiseProfile(doc, records);
  const { promiseId } = await registerPromise(deployment.record, escrow, store, {
    predicate: doc.predicate.id,
    theta: doc.theta,
    profile,
    payout: PAYOUT,
    reserve: PAYOUT,
  });
  const user = chain.wallets[1]!;
  const sessionId = scopedSessionId(chain.wallets[0]!.account.address, label);
  const session = await Session.open({ store, escrow, sessionId, user: user.account.address, profile });
  for (const [i, r] of records.entries()) {
    const { seq: _seq, ts: _ts, ...body } = r;
    // append, not call: a replayed run holds what call() would refuse (blocked records, re-executions).
    session.append(body as RecordBody);
    if (i === 0) await session.checkpointNow();
  }
  await session.close();
  const { claimId } = await escrow.as(user).fileClaim(sessionId, promiseId, BOND);
  const answer = await answerClaim(store, escrow, claimId);
  return {
    circuit: answer.circuit,
    outcome: answer.verdict.violated ? "violated" : "satisfied",
    proveSeconds: Number(answer.proveSeconds.toFixed(3)),
    settleGas: Number(answer.settleGas),
  };
}

export interface ReplayOptions {
  /** Settle every judged pair on an in-process chain with real proofs. */
  prove?: boolean;
  /**
   * The chain settlements run on, started once after the builds (the script passes sdk/dev's embedded chain;
   * the prover does not import dev tools). Required with `prove`.
   */
  chain?: () => Promise<ChainHandle>;
  /** Builds a circuit instance a run needs that is not built yet (setup's `--only`). */
  build?: (circuit: string) => Promise<void>;
  /** Called after each pair (progress). */
  onRow?: (row: ReplayRow, index: number, total: number) => void;
}

/**
 * Replays every pair of each benchmark folder, in file order: first every verdict (building, with `prove`,
 * each circuit a claim needs that is not built yet), then, with `prove`, every settlement, on one chain
 * deployed after the builds, so that the escrow has a verifier for every size.
 */
export async function replay(dirs: readonly string[], opts: ReplayOptions = {}): Promise<ReplayRow[]> {
  const folders = dirs.map(readBenchmarkFolder);
  const judged: { row: ReplayRow; settle?: { doc: PromiseDocument; records: TraceRecord[] } }[] = [];
  for (const folder of folders)
    for (const pair of folder.pairs) judged.push(await judgePair(folder, pair, opts));
  let bench: SettlementBench | undefined;
  try {
    for (const [i, { row, settle: pending }] of judged.entries()) {
      if (pending) {
        if (!opts.chain) throw new InputError("replay: settling needs a chain (ReplayOptions.chain)");
        bench ??= await openBench(opts.chain);
        row.settlement = await settle(bench, pending.doc, pending.records, `${row.caseId}:${row.promiseId}`);
      }
      opts.onRow?.(row, i + 1, judged.length);
    }
  } finally {
    bench?.store.close();
    if (bench) rmSync(bench.dir, { recursive: true, force: true });
  }
  return judged.map((j) => j.row);
}

/** A pair's verdict, and with `prove` what its settlement needs (its circuit built by now). */
async function judgePair(folder: BenchmarkFolder, pair: ReplayPair, opts: ReplayOptions) {
  const doc = readPromiseObject(folder.promises.get(pair.promiseId)!, `promise ${pair.promiseId}`);
  if ("unsupported" in doc) return { row: { ...pair, zkvai: doc } };
  const trace = parseTraceText(folder.runs.get(pair.caseId)!, traceImportOptions(doc));
  const evaluation = await evaluatePromise(doc, trace);
  const zkvai = { violated: evaluation.verdict.violated, seq: evaluation.verdict.seq };
  const agrees = zkvai.violated === pair.reference.violated && zkvai.seq === pair.reference.seq;
  const row: ReplayRow = { ...pair, zkvai, agrees };
  if (!opts.prove) return { row };
  if (trace.records.length === 0)
    return { row: { ...row, settlement: { skipped: "the run holds no record to commit" } } };
  // The recorder closes the session with its row pads (sdk/core/predicates/aap7/pads.ts): the claim is on those.
  await claimCircuitFor(
    doc.predicate,
    withRowPads(trace.records, promiseProfile(doc, trace.records)),
    opts.build,
  );
  return { row, settle: { doc, records: trace.records } };
}

/** One line of the Table-1-style summary: a benchmark's promise over its runs. */
export interface ReplaySummary {
  benchmark: string;
  promiseId: string;
  runs: number;
  referenceViolations: number;
  zkvaiViolations: number;
  supported: number;
  agreeing: number;
  settled: number;
  /** Settled with the outcome the oracle gave. */
  settledAgreeing: number;
  proveSecondsMedian: number | null;
  settleGasMedian: number | null;
  unsupported?: string;
}

const median = (xs: number[]) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export function summarise(rows: readonly ReplayRow[]): ReplaySummary[] {
  const groups = new Map<string, ReplayRow[]>();
  for (const r of rows) {
    const key = `${r.benchmark}\u0000${r.promiseId}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((g) => {
    const judged = g.filter((r) => !("unsupported" in r.zkvai));
    const settled = g.flatMap((r) =>
      r.settlement && "circuit" in r.settlement ? [{ r, s: r.settlement }] : [],
    );
    const unsupported = g.find((r) => "unsupported" in r.zkvai)?.zkvai;
    return {
      benchmark: g[0]!.benchmark,
      promiseId: g[0]!.promiseId,
      runs: g.length,
      referenceViolations: g.filter((r) => r.reference.violated).length,
      zkvaiViolations: judged.filter((r) => "violated" in r.zkvai && r.zkvai.violated).length,
      supported: judged.length,
      agreeing: judged.filter((r) => r.agrees).length,
      settled: settled.length,
      settledAgreeing: settled.filter(
        ({ r, s }) => "violated" in r.zkvai && (s.outcome === "violated") === r.zkvai.violated,
      ).length,
      proveSecondsMedian: median(settled.map(({ s }) => s.proveSeconds)),
      settleGasMedian: median(settled.map(({ s }) => s.settleGas)),
      ...(unsupported && "unsupported" in unsupported ? { unsupported: unsupported.unsupported } : {}),
    };
  });
}
