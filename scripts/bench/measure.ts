// Measures one built circuit end to end on the in-process chain: record full-capacity traces through the
// real session recorder (checkpoints included), file claims, prove each in a child process (scripts/bench/
// prove-child.ts) so its peak RSS and times are its own, settle with the proof, and let one claim default.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { keccak256, parseEther, toHex, type Hex } from "viem";
import { embeddedChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { type Wallet } from "../../sdk/chain/network.js";
import { type EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import type { RecordBody, TraceRecord } from "../../sdk/core/records.js";
import { Session } from "../../sdk/session.js";
import { TraceStore } from "../../sdk/store.js";
import { circuitArtifacts } from "../../prover/artifacts/manifest.js";
import { prepareClaim } from "../../prover/claims.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { registerPromise } from "../../sdk/promises.js";
import { packProof } from "../../sdk/core/claim.js";
import { ROOT } from "../../prover/artifacts/circuit-build.js";
import type { ProveMeasurement, ProveRequest } from "./prove-child.js";
import { benchTraces, recordMix } from "./traces.js";

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
    checkpoint: number;
    closeSession: number;
    fileClaim: number;
    settleSatisfied: number;
    settleViolated: number;
    claimDefault: number;
  };
  /** Wall time of recording one full trace through the recorder, checkpoints and close included. */
  recordSeconds: number;
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
  const deployment = await deployZkVai(chain, provider);
  const dir = mkdtempSync(path.join(os.tmpdir(), "zkvai-bench-"));
  return {
    chain,
    deployment,
    escrow: deployment.escrow,
    user,
    store: TraceStore.open(path.join(dir, "s.sqlite")),
  };
}

/** Four checkpoints spread over the trace: every checkpoint slot of the circuits is in use. */
const checkpointAt = (capacity: number) =>
  new Set([1, 2, 3, 4].map((i) => Math.max(1, Math.floor((i * capacity) / 5))));

const body = (r: TraceRecord): RecordBody => {
  const { seq: _seq, ts: _ts, ...rest } = r;
  return rest as RecordBody;
};

async function record(b: BenchChain, label: string, records: readonly TraceRecord[], profile: unknown) {
  const sessionId = scopedSessionId(
    b.escrow.wallet!.account!.address,
    `bench:${label}:${Date.now()}:${Math.random()}`,
  );
  const started = performance.now();
  // Checkpoints at fixed points only, so every session has exactly the circuit's 4.
  const session = await Session.open({
    store: b.store,
    escrow: b.escrow,
    sessionId,
    user: b.user.account.address,
    profile: profile as never,
    policy: { everyRecords: Infinity, everyMs: Infinity },
  });
  const at = checkpointAt(records.length);
  let checkpoint = 0n;
  for (const [i, r] of records.entries()) {
    // A replay of a trace that already happened: append, not call() (nothing to run or gate).
    session.append(body(r));
    if (at.has(i + 1) && i + 1 < records.length) {
      await session.checkpointNow();
      checkpoint = session.stats.lastCheckpointTx?.gasUsed ?? 0n;
    }
  }
  const close = await session.close();
  return {
    sessionId,
    seconds: (performance.now() - started) / 1000,
    gas: { openSession: session.openTx?.gasUsed ?? 0n, checkpoint, closeSession: close.gasUsed },
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
  let gas = { openSession: 0, checkpoint: 0, closeSession: 0, fileClaim: 0 };
  const settle: Record<Verdict, number> = { satisfied: 0, violated: 0 };
  let recordSeconds = 0;
  for (let i = 0; i < runs; i++) {
    const verdict: Verdict = i % 2 === 0 ? "satisfied" : "violated";
    note(`run ${i + 1}/${runs} (${verdict}): recording ${capacity} records`);
    const session = await record(b, `${circuit}-${i}`, traces[verdict], traces.profile);
    recordSeconds = session.seconds;
    const claim = await asUser.fileClaim(session.sessionId, promiseId, BOND);
    gas = {
      ...Object.fromEntries(Object.entries(session.gas).map(([k, v]) => [k, Number(v)])),
      fileClaim: Number(claim.gasUsed),
    } as typeof gas;
    const prepared = await prepareClaim(b.store, b.escrow, claim.claimId);
    if (prepared.artifacts.name !== circuit)
      throw new Error(`expected the prover to pick ${circuit}, it picked ${prepared.artifacts.name}`);
    if (prepared.verdict.violated !== (verdict === "violated"))
      throw new Error(
        `${circuit} ${verdict} trace: the oracle says ${prepared.verdict.reason || "satisfied"}`,
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
      settleSatisfied: settle.satisfied,
      settleViolated: settle.violated,
      claimDefault: Number(dflt.gasUsed),
    },
    recordSeconds,
    traceMix: { satisfied: recordMix(traces.satisfied), violated: recordMix(traces.violated) },
    traceSources: traces.sources,
  };
}
