// Measures one built circuit end to end on the in-process chain: record full-capacity traces through the
// real session recorder under the default checkpoint policy (a checkpoint every CHECKPOINT_INTERVAL records,
// each within the escrow's budget), file claims, prove each in a child process (scripts/bench/
// prove-child.ts) so its peak RSS and times are its own, settle with the proof, and let one claim default.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parseEther } from "viem";
import { embeddedChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { type Wallet } from "../../sdk/chain/network.js";
import { type EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import type { RecordBody, TraceRecord } from "../../sdk/core/records.js";
import { CHECKPOINT_INTERVAL } from "../../sdk/core/checkpoints.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { circuitArtifacts } from "../../sdk/manifest/manifest.js";
import { prepareClaim } from "../../prover/claims.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { packProof } from "../../sdk/core/claim.js";
import { ROOT } from "../../prover/artifacts/circuit-build.js";
import type { ProveMeasurement, ProveRequest } from "./prove-child.js";
import { spread } from "./analysis.js";
import { benchTraces, policyCheckpoints, recordMix } from "./traces.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

const run = promisify(execFile);
const PAYOUT = parseEther("1");
const BOND = parseEther("0.01");
const DAY = 24 * 3600;

export type Verdict = "satisfied" | "violated";

export interface ProofRun {
  verdict: Verdict;
  witnessSeconds: number;
  proveSeconds: number;
  proveCpuSeconds: number;
  verifySeconds: number;
  peakRssMB: number;
  loadAverage1m: number;
  settleGas: number;
}

export interface CircuitMeasurement {
  circuit: string;
  runs: ProofRun[];
  zkeyMB: number;
  gas: {
    openSession: number;
    /** Median gas of the checkpoints the recorded sessions sent; absent when they sent none. */
    checkpoint?: number;
    /** The first checkpoint of a session (its fold starts from an empty accumulator); absent when none. */
    checkpointFirst?: number;
    /** All checkpoints of one proven session together (median over the runs; 0 when none). */
    checkpointsTotal: number;
    closeSession: number;
    fileClaim: number;
    settleSatisfied: number;
    settleViolated: number;
    claimDefault: number;
  };
  /** Wall time of recording one full trace through the recorder, checkpoints and close included. */
  recordSeconds: number;
  /**
   * Checkpoints each proven trace got from the default policy (the same for every trace of the circuit: they
   * all hold `capacity` records), and the record counts they were taken at.
   */
  checkpointsPerTrace: number;
  checkpointAt: number[];
  traceMix: { satisfied: Record<string, number>; violated: Record<string, number> };
  traceSources: string[];
}

export interface BenchChain {
  chain: DevChainHandle;
  deployment: ZkVaiDeployment;
  escrow: EscrowClient;
  user: Wallet;
  store: TraceStore;
}

export async function benchChain(): Promise<BenchChain> {
  const chain = await embeddedChain();
  const [provider, user] = chain.wallets;
  const deployment = await deployZkVai(chain, provider, DEV);
  const dir = mkdtempSync(path.join(os.tmpdir(), "zkvai-bench-"));
  return {
    chain,
    deployment,
    escrow: deployment.escrow,
    user,
    store: TraceStore.open(path.join(dir, "s.sqlite")),
  };
}

const body = (r: TraceRecord): RecordBody => {
  const { seq: _seq, ts: _ts, ...rest } = r;
  return rest as RecordBody;
};

/**
 * Replays `records` through a Session under the default policy's record trigger: a checkpoint once
 * CHECKPOINT_INTERVAL records are not covered (at n = 10, 20, …), each within the escrow's budget, so the
 * claim's proof folds what the policy makes at this length. The 30 s trigger is off and every checkpoint is
 * waited for before the next record, so the checkpoints land at the same n on every run; the close covers
 * the rest.
 */
async function record(b: BenchChain, label: string, records: readonly TraceRecord[], profile: unknown) {
  const sessionId = scopedSessionId(
    b.escrow.wallet!.account!.address,
    `bench:${label}:${Date.now()}:${Math.random()}`,
  );
  const started = performance.now();
  const session = await Session.open({
    store: b.store,
    escrow: b.escrow,
    sessionId,
    user: b.user.account.address,
    profile: profile as never,
    policy: { everyRecords: CHECKPOINT_INTERVAL, everyMs: Infinity },
  });
  const checkpointGas: bigint[] = [];
  const checkpointAt: number[] = [];
  for (const r of records) {
    // A replay of a trace that already happened: append, not call() (nothing to run or gate).
    session.append(body(r));
    await session.flush();
    const s = session.stats;
    if (s.checkpointFailures) throw new Error(`${label}: a checkpoint failed (at ${s.lastCheckpointN})`);
    if (s.checkpoints > checkpointAt.length) {
      checkpointAt.push(s.lastCheckpointN);
      checkpointGas.push(s.lastCheckpointTx?.gasUsed ?? 0n);
    }
  }
  const close = await session.close();
  return {
    sessionId,
    seconds: (performance.now() - started) / 1000,
    checkpointAt,
    checkpointGas: checkpointGas.map(Number),
    gas: { openSession: session.openTx?.gasUsed ?? 0n, closeSession: close.gasUsed },
  };
}

async function proveInChild(req: ProveRequest): Promise<ProveMeasurement> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "zkvai-prove-"));
  const reqFile = path.join(dir, "request.json");
  const outFile = path.join(dir, "result.json");
  writeFileSync(reqFile, JSON.stringify(req));
  const tsx = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");
  try {
    await run(process.execPath, [tsx, path.join(ROOT, "scripts/bench/prove-child.ts"), reqFile, outFile], {
      cwd: ROOT,
      maxBuffer: 16 << 20,
    });
  } catch (e) {
    throw new Error(
      `proving child failed: ${(e as { stderr?: string }).stderr?.trim() || (e as Error).message}`,
    );
  }
  return JSON.parse(readFileSync(outFile, "utf8")) as ProveMeasurement;
}

/**
 * `runs` proofs alternating satisfied and violated traces (satisfied first), then one more violated
 * session whose claim defaults. `note` reports progress.
 */
export async function measureCircuit(
  b: BenchChain,
  circuit: string,
  predicate: string,
  capacity: number,
  runs: number,
  note: (m: string) => void,
): Promise<CircuitMeasurement> {
  const traces = benchTraces(predicate, capacity);
  const artifacts = circuitArtifacts(circuit);
  const { promiseId } = await registerPromise(b.deployment.record, b.escrow, b.store, {
    predicate,
    theta: traces.theta,
    profile: traces.profile,
    payout: PAYOUT,
    reserve: PAYOUT * BigInt(runs + 2),
  });
  const asUser = b.escrow.as(b.user);
  const out: ProofRun[] = [];
  let gas = { openSession: 0, closeSession: 0, fileClaim: 0 };
  const settle: Record<Verdict, number> = { satisfied: 0, violated: 0 };
  const checkpointGas: number[] = [];
  const firstCheckpointGas: number[] = [];
  const sessionCheckpointGas: number[] = [];
  // Every proven trace holds `capacity` records, so each gets the same checkpoints.
  const checkpointAt = policyCheckpoints(capacity);
  let recordSeconds = 0;
  for (let i = 0; i < runs; i++) {
    const verdict: Verdict = i % 2 === 0 ? "satisfied" : "violated";
    note(`run ${i + 1}/${runs} (${verdict}): recording ${capacity} records`);
    const session = await record(b, `${circuit}-${i}`, traces[verdict], traces.profile);
    recordSeconds = session.seconds;
    if (checkpointAt.join() !== session.checkpointAt.join())
      throw new Error(
        `${circuit}: checkpoints at ${session.checkpointAt.join(", ") || "none"}, the default policy puts them at ${checkpointAt.join(", ") || "none"}`,
      );
    checkpointGas.push(...session.checkpointGas);
    if (session.checkpointGas.length) firstCheckpointGas.push(session.checkpointGas[0]!);
    sessionCheckpointGas.push(session.checkpointGas.reduce((a, x) => a + x, 0));
    const claim = await asUser.fileClaim(session.sessionId, promiseId, BOND);
    gas = {
      openSession: Number(session.gas.openSession),
      closeSession: Number(session.gas.closeSession),
      fileClaim: Number(claim.gasUsed),
    };
    const prepared = await prepareClaim(b.store, b.escrow, claim.claimId);
    if (prepared.artifacts.name !== circuit)
      throw new Error(`expected the prover to pick ${circuit}, it picked ${prepared.artifacts.name}`);
    if (prepared.verdict.violated !== (verdict === "violated"))
      throw new Error(
        `${circuit} ${verdict} trace: the oracle says ${prepared.verdict.reason || "satisfied"}`,
      );
    // The proof must fold exactly the checkpoints the session sent (no receipts are posted here).
    const { cpN, cpActive } = prepared.input as Record<string, string[]>;
    const folded = cpN!.filter((_, k) => cpActive![k] === "1");
    if (folded.join() !== session.checkpointAt.join())
      throw new Error(
        `${circuit}: the proof folds checkpoints at ${folded.join(", ") || "none"}, the session sent ${session.checkpointAt.join(", ") || "none"}`,
      );
    note(`run ${i + 1}/${runs} (${verdict}): proving in a child process`);
    const m = await proveInChild({
      wasm: artifacts.wasm,
      zkey: artifacts.zkey,
      vkey: artifacts.vkey,
      input: prepared.input,
    });
    if (!m.verified) throw new Error(`${circuit}: the proof does not verify locally`);
    const expected = await b.escrow.publicInputs(claim.claimId, prepared.verdict.violated);
    if (expected.some((x, k) => String(x) !== m.publicSignals[k]))
      throw new Error(`${circuit}: the proof's public inputs differ from what the escrow rebuilds`);
    const tx = await b.escrow.settle(claim.claimId, packProof(m.proof), prepared.verdict.violated);
    settle[verdict] = Number(tx.gasUsed);
    out.push({
      verdict,
      witnessSeconds: m.witnessSeconds,
      proveSeconds: m.proveSeconds,
      proveCpuSeconds: m.proveCpuSeconds,
      verifySeconds: m.verifySeconds,
      peakRssMB: m.peakRssMB,
      loadAverage1m: m.loadAverage1m,
      settleGas: Number(tx.gasUsed),
    });
  }
  note("claimDefault: a violated session nobody proves for 3 days");
  const unanswered = await record(b, `${circuit}-default`, traces.violated, traces.profile);
  const filed = await asUser.fileClaim(unanswered.sessionId, promiseId, BOND);
  await b.chain.testClient.increaseTime({ seconds: 3 * DAY + 1 });
  await b.chain.testClient.mine({ blocks: 1 });
  const dflt = await asUser.claimDefault(filed.claimId);
  return {
    circuit,
    runs: out,
    zkeyMB: statSync(artifacts.zkey).size / 2 ** 20,
    gas: {
      ...gas,
      ...(checkpointGas.length
        ? {
            checkpoint: spread(checkpointGas).median,
            checkpointFirst: spread(firstCheckpointGas).median,
          }
        : {}),
      checkpointsTotal: spread(sessionCheckpointGas).median,
      settleSatisfied: settle.satisfied,
      settleViolated: settle.violated,
      claimDefault: Number(dflt.gasUsed),
    },
    recordSeconds,
    checkpointsPerTrace: checkpointAt.length,
    checkpointAt,
    traceMix: { satisfied: recordMix(traces.satisfied), violated: recordMix(traces.violated) },
    traceSources: traces.sources,
  };
}
