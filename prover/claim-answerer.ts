// One attempt at one claim, for the watcher: prepare (store against chain), prove within the memory budget,
// and settle, reading the claim's on-chain status again just before sending. Every way an attempt can end is
// an Outcome; only protocol answers (a refusal, the claim resolved elsewhere, a settle) are final, and an RPC
// outage never is.
import { ClaimStatus, type EscrowClient, type TxResult } from "../sdk/chain/escrow.js";
import type { Logger } from "../sdk/provider/log.js";
import type { Verdict } from "../sdk/core/predicates/index.js";
import type { TraceStore } from "../sdk/provider/store.js";
import {
  checkPublicInputs,
  ClaimError,
  ClaimNotOpenError,
  loadClaim,
  prepareLoadedClaim,
  proveClaim,
  type LoadedClaim,
  ReceiptWindowOpenError,
  SessionNotClosedError,
  TraceMismatchError,
} from "./claims.js";
import { proofMemoryEstimateOfZkey, type MemoryBudget } from "./memory-budget.js";
import { ProofError, type ProofResult } from "./prove.js";
import { answerSegmentedClaim, needsSegments } from "./segments/claims.js";
import type { SegmentProver } from "./segments/pool.js";
import { SegmentProofError, SegmentQueueTimeout, SegmentRejectedError, WorkerDied } from "./segments/task.js";
import {
  firstLine,
  isTransportError,
  revertName,
  RpcUnavailableError,
  withRpcRetry,
  type RetryPolicy,
} from "./rpc-retry.js";
import { ZkvaiError } from "../sdk/core/errors.js";
import { AnsweredElsewhereError, LeaseLostError } from "./watcher-lease.js";

export type Outcome =
  | { kind: "settled"; tx: TxResult; proven: Proven }
  | { kind: "resolved"; status: ClaimStatus }
  | { kind: "refused"; reason: string }
  /** Nothing to answer yet (session not closed, reserve short): tried again later. */
  | { kind: "deferred"; reason: string }
  /** An RPC outage or a surprise: never an answer, so the claim stays pending. */
  | { kind: "retry"; reason: string; event: "claim.retry" | "claim.error" }
  /** Stopped by the watcher's shutdown; tried again on the next run. */
  | { kind: "abandoned"; reason: string };

export interface Proven {
  verdict: Verdict;
  circuit: string;
  proveSeconds: number;
  /** The whole-claim proof settle() takes; absent for a segment chain, whose links went out as proven. */
  proof?: ProofResult;
  /** Segments of the chain, for a claim settled by segments. */
  segments?: number;
}

/** A claim the watcher will not answer for good: it sends nothing, and the claim defaults. */
export class Refusal extends ZkvaiError {
  static override readonly code: string = "CLAIM_REFUSED";
  override name = "Refusal";
}

export interface AnswererDeps {
  store: TraceStore;
  escrow: EscrowClient;
  budget: MemoryBudget;
  log: Logger;
  retry: RetryPolicy;
  /** Proves the segments of claims too long for a whole-claim circuit (prover/segments/). */
  segmentProver: () => SegmentProver;
  /** With a shared store: throws LeaseLostError unless this watcher still holds the lease (watcher-lease.ts). */
  fence?: (claimId: bigint, step: "prove" | "settle") => Promise<void>;
}

export class ClaimAnswerer {
  /** Proofs whose settle did not go through yet (RPC outage, short reserve): not proven again. */
  private readonly proven = new Map<bigint, Proven>();
  /** settle() calls go out one at a time, so concurrent proofs never race for the wallet's nonce. */
  private sending: Promise<unknown> = Promise.resolve();
  private proofWindow?: bigint;

  constructor(private readonly deps: AnswererDeps) {}

  async attempt(claimId: bigint, attempt: number, signal?: AbortSignal): Promise<Outcome> {
    let outcome: Outcome;
    try {
      outcome = await this.answer(claimId, attempt, signal);
    } catch (e) {
      outcome = signal?.aborted ? { kind: "abandoned", reason: firstLine(e) } : this.classify(e);
    }
    if (outcome.kind !== "deferred" && outcome.kind !== "retry" && outcome.kind !== "abandoned")
      this.proven.delete(claimId);
    return outcome;
  }

  /** Protocol refusals and the claim's own state are answers; anything else is retried later. */
  private classify(e: unknown): Outcome {
    if (e instanceof ClaimNotOpenError) return { kind: "resolved", status: e.status };
    if (e instanceof AnsweredElsewhereError) return { kind: "resolved", status: ClaimStatus.Settled };
    if (e instanceof LeaseLostError) return { kind: "abandoned", reason: e.message };
    if (e instanceof SessionNotClosedError || e instanceof ReceiptWindowOpenError)
      return { kind: "deferred", reason: e.message };
    if (e instanceof TraceMismatchError || e instanceof ProofError || e instanceof Refusal)
      return { kind: "refused", reason: e.message };
    // A segment with no witness is refused; a worker that died (killed, out of memory), a queue that did not
    // answer in time, or proofs that failed their checks (discarded, to be proven again) are tried again: a
    // bad worker delays the answer within the proof window, it does not decide it.
    if (
      e instanceof SegmentProofError &&
      !(e instanceof WorkerDied) &&
      !(e instanceof SegmentQueueTimeout) &&
      !(e instanceof SegmentRejectedError)
    )
      return { kind: "refused", reason: e.message };
    // Missing θ, predicate mismatch, no circuit large enough, a proof that does not verify.
    if (e instanceof ClaimError) return { kind: "refused", reason: e.message };
    const outage = e instanceof RpcUnavailableError || isTransportError(e);
    return { kind: "retry", reason: firstLine(e), event: outage ? "claim.retry" : "claim.error" };
  }

  private async answer(claimId: bigint, attempt: number, signal?: AbortSignal): Promise<Outcome> {
    let proven = this.proven.get(claimId);
    if (!proven) {
      // Reads the claim first: one no longer open throws ClaimNotOpenError before any proving.
      const loaded = await this.rpc(
        "loadClaim",
        () => loadClaim(this.deps.store, this.deps.escrow, claimId),
        signal,
        {
          claimId,
        },
      );
      // With a shared store, only the lease's holder proves (and it checks again before sending).
      await this.deps.fence?.(claimId, "prove");
      if (needsSegments(loaded)) return this.answerBySegments(loaded, attempt, signal);
      const prepared = prepareLoadedClaim(loaded);
      await this.assertProofWindowOpen(claimId, prepared.claim.filedAt, signal);
      const estimate = proofMemoryEstimateOfZkey(prepared.artifacts.zkey);
      const release = await this.deps.budget.acquire(estimate, signal);
      let proof: ProofResult;
      try {
        this.deps.log.log("info", "claim.proving", {
          claimId,
          attempt,
          circuit: prepared.artifacts.name,
          estimateMB: Math.round(estimate / 2 ** 20),
          concurrent: this.deps.budget.inUse.running,
        });
        proof = await proveClaim(prepared);
      } finally {
        release();
      }
      const violated = prepared.verdict.violated;
      await this.rpc(
        "publicInputs",
        () => checkPublicInputs(this.deps.escrow, claimId, violated, proof),
        signal,
        { claimId },
      );
      proven = {
        proof,
        verdict: prepared.verdict,
        circuit: prepared.artifacts.name,
        proveSeconds: proof.proveSeconds,
      };
      this.proven.set(claimId, proven);
    }
    return this.submit(claimId, proven, signal);
  }

  /**
   * A session longer than any whole-claim circuit: its segments proven by the segment prover, each sent as it
   * is checked, and the chain settled (prover/segments/claims.ts). Resumable: a later attempt proves only the
   * links the escrow does not hold yet.
   */
  private async answerBySegments(
    loaded: LoadedClaim,
    attempt: number,
    signal?: AbortSignal,
  ): Promise<Outcome> {
    const { claimId } = loaded;
    await this.assertProofWindowOpen(claimId, loaded.claim.filedAt, signal);
    this.deps.log.log("info", "claim.proving", {
      claimId,
      attempt,
      segmented: true,
      records: loaded.records.length,
    });
    const answer = await answerSegmentedClaim(this.deps.store, this.deps.escrow, claimId, {
      loaded,
      prover: this.deps.segmentProver(),
      send: (op) =>
        this.serially(async () => {
          await this.deps.fence?.(claimId, "settle");
          return op();
        }),
      progress: (e) => this.deps.log.log("info", `claim.segment_${e.stage}`, { claimId, ...e }),
    });
    const proveSeconds = answer.proofs.reduce((t, p) => t + p.witnessSeconds + p.proveSeconds, 0);
    return {
      kind: "settled",
      tx: { txHash: answer.txHash, gasUsed: answer.settleGas },
      proven: { verdict: answer.verdict, circuit: answer.circuit, proveSeconds, segments: answer.segments },
    };
  }

  private async submit(claimId: bigint, proven: Proven, signal?: AbortSignal): Promise<Outcome> {
    const words = proven.proof!.words;
    const violated = proven.verdict.violated;
    type Sent = { tx: TxResult } | { status: ClaimStatus } | { revert: string; error: unknown };
    const sent = await this.serially(async () => {
      await this.deps.fence?.(claimId, "settle");
      return this.rpc(
        "settle",
        async (): Promise<Sent> => {
          // Again just before sending: a settle of an earlier run may have landed before a crash.
          const { status } = await this.deps.escrow.claim(claimId);
          if (status !== ClaimStatus.Open) return { status };
          try {
            return { tx: await this.deps.escrow.settle(claimId, words, violated) };
          } catch (e) {
            const revert = revertName(e);
            if (revert === undefined) throw e;
            return { revert, error: e };
          }
        },
        signal,
        { claimId },
      );
    });
    if ("tx" in sent) return { kind: "settled", tx: sent.tx, proven };
    if ("status" in sent) return { kind: "resolved", status: sent.status };
    switch (sent.revert) {
      case "ClaimNotOpen": {
        const { status } = await this.rpc("getClaim", () => this.deps.escrow.claim(claimId), signal, {
          claimId,
        });
        return { kind: "resolved", status };
      }
      case "InsufficientReserve":
        return {
          kind: "deferred",
          reason: "the reserve is below the payout: the violated verdict settles once the promise is funded",
        };
      case "ProofWindowClosed":
        return {
          kind: "refused",
          reason: "the proof window closed before the settle landed; the claim defaults",
        };
      default:
        return { kind: "refused", reason: `settle reverted: ${sent.revert} (${firstLine(sent.error)})` };
    }
  }

  /** A claim past its proof window can only default; proving it would waste the proof. */
  private async assertProofWindowOpen(claimId: bigint, filedAt: bigint, signal?: AbortSignal): Promise<void> {
    const { publicClient } = this.deps.escrow.chain;
    this.proofWindow ??= (
      await this.rpc("PROOF_WINDOW", () => this.deps.escrow.constants(), signal)
    ).proofWindow;
    const { timestamp } = await this.rpc(
      "getBlock",
      () => publicClient.getBlock({ blockTag: "latest" }),
      signal,
    );
    const endsAt = filedAt + this.proofWindow;
    if (timestamp >= endsAt)
      throw new Refusal(
        `claim ${claimId}: its proof window closed at ${isoDate(endsAt)} (chain time ${isoDate(timestamp)})`,
      );
  }

  private serially<T>(op: () => Promise<T>): Promise<T> {
    const next = this.sending.then(op, op);
    this.sending = next.catch(() => undefined);
    return next;
  }

  private rpc<T>(
    operation: string,
    op: () => Promise<T>,
    signal?: AbortSignal,
    fields?: Record<string, unknown>,
  ) {
    return withRpcRetry(operation, op, { policy: this.deps.retry, log: this.deps.log, signal, fields });
  }
}

/** A chain time (Unix seconds) as people read it. */
const isoDate = (seconds: bigint): string => new Date(Number(seconds) * 1000).toISOString();
