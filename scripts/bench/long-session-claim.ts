// The claim side of npm run bench:long (scripts/bench/long-session.ts) when it settles by segment proofs
// (--segment-size), and the results file it appends to. Kept apart so the recording script stays readable.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { EscrowClient } from "../../sdk/chain/escrow.js";
import type { TraceStore } from "../../sdk/provider/store.js";
import { answerSegmentedClaim } from "../../prover/segments/claims.js";

/** The per-transaction gas cap a settlement must stay under (EIP-7825's 2^24): no claim may need more. */
export const TX_GAS_CAP = 2 ** 24;

/** The escrow's settlement transactions for a segment chain, whichever the prover picks for its length. */
const SETTLEMENT_TXS = new Set(["openSegments", "proveSegments", "settleChain", "settleSegments"]);

/**
 * The escrow client, with every settlement transaction's gas written to `txs` as it is sent. The prover picks
 * settleChain (up to MAX_BATCH_LINKS links) or openSegments + proveSegments spans + settleSegments, and its
 * answer keeps only part of that gas; watching the client sees each transaction, whichever path runs.
 */
function recordingGas(escrow: EscrowClient, txs: { tx: string; gas: number }[]): EscrowClient {
  return new Proxy(escrow, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const method = (value as (...a: unknown[]) => unknown).bind(target);
      if (typeof prop !== "string" || !SETTLEMENT_TXS.has(prop)) return method;
      return async (...args: unknown[]) => {
        const sent = (await method(...args)) as { gasUsed?: bigint } | undefined;
        if (sent?.gasUsed !== undefined) txs.push({ tx: prop, gas: Number(sent.gasUsed) });
        return sent;
      };
    },
  });
}

const seconds = (ms: number) => +(ms / 1000).toFixed(1);

/**
 * Answers the claim as the watcher does for a session longer than any whole-claim circuit
 * (answerSegmentedClaim, one local worker: snarkjs already uses every core), timing each step, and returns
 * the result's fields: the circuit, the segments (links), each segment's witness and proof seconds, the prove
 * wall time, and every settlement transaction's gas with the total, the largest and whether each stays under
 * 2^24.
 */
export async function settleBySegments(store: TraceStore, escrow: EscrowClient, claimId: bigint) {
  const txs: { tx: string; gas: number }[] = [];
  const steps: { step: string; seconds: number }[] = [];
  const t0 = performance.now();
  const answer = await answerSegmentedClaim(store, recordingGas(escrow, txs), claimId, {
    step: async (label, run) => {
      const s = performance.now();
      const out = await run();
      steps.push({ step: label, seconds: seconds(performance.now() - s) });
      console.log(`  ${label}: ${steps.at(-1)!.seconds} s`);
      return out;
    },
    progress: (e) => {
      if (e.stage === "proven")
        console.log(`    segment ${e.index + 1}/${e.of} proven in ${e.seconds?.toFixed(1)} s`);
      if (e.stage === "rejected") console.log(`    segment ${e.index + 1}/${e.of} rejected: ${e.reason}`);
    },
  });
  const answerSeconds = seconds(performance.now() - t0);
  const gas = txs.map((t) => t.gas);
  return {
    violated: answer.verdict.violated,
    paidTo: answer.beneficiary,
    fields: {
      circuit: answer.circuit,
      verdict: answer.verdict.violated ? "violated" : "satisfied",
      segments: answer.segments,
      // Every segment is one link of the chain the escrow checks.
      links: answer.segments,
      segmentProofs: answer.proofs.map((p) => ({
        index: p.index,
        witnessSeconds: +p.witnessSeconds.toFixed(1),
        proveSeconds: +p.proveSeconds.toFixed(1),
        peakRssMiB: Math.round(p.peakRssBytes / 2 ** 20),
      })),
      // The proving rounds' wall time (every segment, one after another), apart from cutting and sending.
      proveWallSeconds: +steps
        .filter((s) => s.step.startsWith("prove "))
        .reduce((a, s) => a + s.seconds, 0)
        .toFixed(1),
      answerSeconds,
      steps,
      settlementGas: {
        txs,
        total: gas.reduce((a, b) => a + b, 0),
        largest: Math.max(...gas),
        cap: TX_GAS_CAP,
        eachUnderCap: gas.every((g) => g < TX_GAS_CAP),
      },
      paidTo: answer.beneficiary,
    },
  };
}

/**
 * Writes a result to `file`; where the file already holds one (or an array of them), appends to it as an
 * array, so runs of several outcomes land in one file.
 */
export function appendResult(file: string, result: Record<string, unknown>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const before: unknown = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
  const out = before === undefined ? result : [...(Array.isArray(before) ? before : [before]), result];
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
}
