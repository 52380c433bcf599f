// One segment proof as a unit of work: what a worker needs (the circuit's files and the segment's input)
// and what it hands back. The local pool's child processes and the BullMQ workers both run provePayload,
// so a segment proves the same way wherever it runs.
import * as snarkjs from "snarkjs";
import { withCurveThreads } from "../../sdk/chain/groth16.js";
import { packProof, type Groth16ProofJson } from "../../sdk/core/claim.js";
import type { CircuitInput } from "../../sdk/core/inputs.js";
import { ZkvaiError } from "../../sdk/core/errors.js";

export interface SegmentTask {
  /** Which claim and which of its segments; the pair is the task's identity (idempotence). */
  claimId: string;
  index: number;
  /** The segment circuit (a manifest name) and its files on the worker's machine. */
  circuit: string;
  wasm: string;
  zkey: string;
  input: CircuitInput;
}

export interface SegmentProof {
  claimId: string;
  index: number;
  proof: Groth16ProofJson;
  publicSignals: string[];
  /**
   * The 8 words proveSegment takes, as decimal strings (JSON-safe). What a worker says: the prover sends
   * packProof(proof) of the proof it verified itself (prover/segments/claims.ts), never these.
   */
  words: string[];
  witnessSeconds: number;
  proveSeconds: number;
  /** CPU time of the witness and the proof, user and system, over all the process's threads. */
  cpuSeconds: number;
  /** The worker process's peak resident set so far, in bytes. */
  peakRssBytes: number;
  /** Who proved it (host:pid), for the benchmark and the logs. */
  worker: string;
}

export class SegmentProofError extends ZkvaiError {
  static override readonly code: string = "SEGMENT_PROOF_FAILED";
  override name = "SegmentProofError";
}

/** A worker process ended while it held a segment: the segment may be tried again elsewhere. */
export class WorkerDied extends SegmentProofError {
  static override readonly code: string = "SEGMENT_WORKER_DIED";
  override name = "WorkerDied";
}

/**
 * A queue prover's proveAll timeout passed before every segment came back. Nothing is wrong with the claim (its jobs stay
 * queued, and a later proveAll picks up what they proved), so the watcher tries it again rather than refusing.
 */
export class SegmentQueueTimeout extends SegmentProofError {
  static override readonly code: string = "SEGMENT_QUEUE_TIMEOUT";
  override name = "SegmentQueueTimeout";
}

/**
 * A segment proof that came back and failed a check (it does not verify locally, its public inputs are not the
 * escrow's, or the escrow's verifier refused it): it was removed from where it came from (the queue) and
 * dead-lettered, and the segment is proven again. When it keeps failing within one answer, the answer stops
 * with this error, which the watcher retries (within the proof window): a bad worker delays a claim, it does
 * not decide it.
 */
export class SegmentRejectedError extends SegmentProofError {
  static override readonly code: string = "SEGMENT_PROOF_REJECTED";
  override name = "SegmentRejectedError";
  constructor(
    readonly claimId: string,
    readonly rejected: readonly { index: number; worker: string; reason: string }[],
  ) {
    super(
      `claim ${claimId}: ${rejected.length} segment proof(s) failed their checks and were discarded ` +
        `(${rejected.map((r) => `segment ${r.index} from ${r.worker}: ${r.reason}`).join("; ")}); ` +
        `the segments are proven again on the next attempt`,
    );
  }
}

/** Computes the witness and the proof of one segment in this process. */
export async function provePayload(task: SegmentTask, worker: string): Promise<SegmentProof> {
  const wtns = { type: "mem" } as { type: "mem"; data?: Uint8Array };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    await snarkjs.wtns.calculate(task.input as never, task.wasm, wtns as never);
  } catch (e) {
    throw new SegmentProofError(
      `claim ${task.claimId} segment ${task.index} (${task.circuit}): no witness satisfies the circuit (${String((e as Error)?.message ?? e).split("\n")[0]})`,
    );
  }
  const t1 = performance.now();
  const { proof, publicSignals } = await withCurveThreads(() =>
    snarkjs.groth16.prove(task.zkey, wtns as never),
  );
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  return {
    claimId: task.claimId,
    index: task.index,
    proof: proof as unknown as Groth16ProofJson,
    publicSignals: publicSignals.map(String),
    words: packProof(proof as unknown as Groth16ProofJson).map(String),
    witnessSeconds: (t1 - t0) / 1000,
    proveSeconds: (t2 - t1) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    // maxRSS is in kilobytes.
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    worker,
  };
}
