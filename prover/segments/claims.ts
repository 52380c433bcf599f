// Answers a claim on a session too long for any whole-claim circuit: the trace checked against the chain as
// for any claim (loadClaim), cut into the escrow's segments, each proven (by a SegmentProver: the local pool
// or the BullMQ queue), checked locally and against the escrow's public inputs, sent with proveSegment as the
// words of the proof that verified (never words a worker sent), and the chain settled once with
// settleSegments. Segments the escrow already holds are not proven again, so an answer that stopped halfway
// resumes where it was. A proof that fails a check here or on-chain is discarded from its prover (the queue
// removes and dead-letters it) and the segment proven again; one still failing after `rounds` ends the
// answer with SegmentRejectedError, which the watcher retries while the proof window is open.
import { readFileSync } from "node:fs";
import { verifyGroth16 } from "../../sdk/chain/groth16.js";
import type { EscrowClient } from "../../sdk/chain/escrow.js";
import { revertName } from "../../sdk/chain/retry.js";
import { packProof, verdictLabel } from "../../sdk/core/claim.js";
import { chainStates } from "../../sdk/core/segments.js";
import type { Verdict } from "../../sdk/core/predicates/index.js";
import type { TraceStore } from "../../sdk/provider/store.js";
import { circuitArtifacts, loadManifest, segmentCircuits } from "../../sdk/manifest/manifest.js";
import { builtCircuitFor, ClaimError, loadClaim, type LoadedClaim } from "../claims.js";
import { segmentInputs } from "./witness.js";
import { LocalSegmentPool, type SegmentProver } from "./pool.js";
import { SegmentRejectedError, type SegmentProof, type SegmentTask } from "./task.js";

/** Whether the claim needs a segment chain: no whole-claim circuit built for its predicate holds the session. */
export function needsSegments(loaded: LoadedClaim): boolean {
  return !builtCircuitFor(loaded.predicate.id, loaded.records.length);
}

export interface PreparedSegments {
  claimId: bigint;
  circuit: string;
  segmentSize: number;
  verdict: Verdict;
  /** The chain settleSegments takes: 0, each segment's stateOut. */
  states: bigint[];
  tasks: SegmentTask[];
}

/** The claim's segment tasks for the escrow's segment verifier of its predicate. */
export async function prepareSegments(loaded: LoadedClaim, escrow: EscrowClient): Promise<PreparedSegments> {
  const { claimId, predicate } = loaded;
  const registered = await escrow.segmentVerifier(predicate.code);
  if (!registered)
    throw new ClaimError(
      `no whole-claim ${predicate.id} circuit holds ${loaded.records.length} records, and the escrow has no ${predicate.id} segment verifier`,
    );
  const built = segmentCircuits(loadManifest()).find(
    ([, c]) => c.predicate === predicate.id && 2 ** Number(c.params.depth) === registered.segmentSize,
  );
  if (!built)
    throw new ClaimError(
      `the escrow settles ${predicate.id} in segments of ${registered.segmentSize} records, but no such segment circuit is built; run setup`,
    );
  const [name, entry] = built;
  const artifacts = circuitArtifacts(name);
  const { inputs, plans, verdict } = segmentInputs({
    records: loaded.records,
    encoded: loaded.encoded,
    profile: loaded.stored.profile,
    sessionSecret: loaded.stored.secret,
    checkpoints: loaded.checkpoints,
    predicate,
    theta: loaded.theta,
    context: loaded.context,
    depth: Number(entry.params.depth),
    entrySlots: registered.checkpoints,
    ...(entry.params.events === undefined ? {} : { events: Number(entry.params.events) }),
  });
  const tasks = inputs.map((input, index) => ({
    claimId: String(claimId),
    index,
    circuit: name,
    wasm: artifacts.wasm,
    zkey: artifacts.zkey,
    input,
  }));
  return {
    claimId,
    circuit: name,
    segmentSize: registered.segmentSize,
    verdict,
    states: chainStates(plans),
    tasks,
  };
}

export interface SegmentedAnswer {
  claimId: bigint;
  verdict: Verdict;
  circuit: string;
  segments: number;
  /** Segments proven now (those the escrow already held are skipped). */
  proofs: SegmentProof[];
  /** Gas of each proveSegment sent now, by index. */
  segmentGas: Record<number, bigint>;
  settleGas: bigint;
  txHash: `0x${string}`;
  beneficiary: `0x${string}`;
  amount: bigint;
}

export interface SegmentedOptions {
  /** The claim as loadClaim read it, when the caller has it already. */
  loaded?: LoadedClaim;
  /** Where segments are proven: a local pool of `workers` processes unless given. */
  prover?: SegmentProver;
  workers?: number;
  step?: <T>(label: string, run: () => Promise<T>) => Promise<T>;
  /** Wraps each transaction (the watcher sends one at a time, so proofs never race for the wallet's nonce). */
  send?: <T>(op: () => Promise<T>) => Promise<T>;
  /**
   * Proving rounds in this call (default 2): a proof that fails a check is discarded and its segment proven
   * again in the next round; past the last, the call throws SegmentRejectedError, which the watcher retries.
   */
  rounds?: number;
  /** Hears each segment as it is proven, as it is sent, and as a proof of it is rejected. */
  progress?: (event: {
    stage: "proven" | "sent" | "rejected";
    index: number;
    of: number;
    seconds?: number;
    reason?: string;
    deadLetterId?: string;
  }) => void;
}

/**
 * Checks a segment proof as it came back from a prover: it verifies under the circuit's key for exactly the
 * public inputs the escrow will rebuild. Returns the 8 words to send, packed from that verified proof, or why
 * it is refused. Nothing the worker sent is trusted: a malformed answer is a refusal, not a crash.
 */
export async function checkSegmentProof(
  vkey: unknown,
  proof: SegmentProof,
  expected: readonly bigint[],
): Promise<bigint[] | string> {
  try {
    const signals = proof.publicSignals;
    if (
      !Array.isArray(signals) ||
      signals.length !== expected.length ||
      expected.some((x, i) => x !== BigInt(signals[i]!))
    )
      return "its public inputs differ from what the escrow will rebuild";
    if (!(await verifyGroth16(vkey, signals, proof.proof))) return "the proof does not verify locally";
    return packProof(proof.proof);
  } catch (e) {
    return `malformed proof (${String((e as Error)?.message ?? e).split("\n")[0]})`;
  }
}

/** Proves every segment the escrow does not hold yet, sends each, and settles the chain. */
export async function answerSegmentedClaim(
  store: TraceStore,
  escrow: EscrowClient,
  claimId: bigint,
  opts: SegmentedOptions = {},
): Promise<SegmentedAnswer> {
  const step = opts.step ?? ((_label, run) => run());
  const send = opts.send ?? ((op) => op());
  const loaded =
    opts.loaded ?? (await step("check the store against the chain", () => loadClaim(store, escrow, claimId)));
  const prepared = await step("cut the trace into segments", () => prepareSegments(loaded, escrow));
  const { tasks, states } = prepared;
  // The escrow verifies every segment against the digest openSegments stores: open (again) if it differs.
  const digests = await escrow.claimDigests(claimId);
  if (digests.opened !== digests.current)
    await step("open the claim for segments", () => send(() => escrow.openSegments(claimId)));
  const held = await Promise.all(
    tasks.map((t) => escrow.segmentProven(claimId, states[t.index]!, states[t.index + 1]!)),
  );
  const vkey = JSON.parse(readFileSync(circuitArtifacts(prepared.circuit).vkey, "utf8"));
  const rounds = Math.max(1, opts.rounds ?? 2);
  const prover = opts.prover ?? new LocalSegmentPool({ workers: opts.workers ?? 1 });
  const proofs: SegmentProof[] = [];
  const segmentGas: Record<number, bigint> = {};
  let todo = tasks.filter((_, i) => !held[i]);
  try {
    for (let round = 1; todo.length > 0; round++) {
      const got = await step(
        `prove ${todo.length} of ${tasks.length} segments (${verdictLabel(prepared.verdict.violated)}) with ${prepared.circuit}` +
          (round > 1 ? `, round ${round}` : ""),
        () =>
          prover.proveAll(todo, (p) =>
            opts.progress?.({
              stage: "proven",
              index: p.index,
              of: tasks.length,
              seconds: p.witnessSeconds + p.proveSeconds,
            }),
          ),
      );
      const rejected: { task: SegmentTask; proof: SegmentProof; reason: string }[] = [];
      for (const task of todo) {
        const p = got.find((g) => g.index === task.index);
        const [stateIn, stateOut] = [states[task.index]!, states[task.index + 1]!];
        const checked = p
          ? await checkSegmentProof(vkey, p, [digests.current, stateIn, stateOut])
          : "no proof came back";
        if (typeof checked === "string") {
          rejected.push({ task, proof: p!, reason: checked });
          continue;
        }
        // The words are the verified proof's, never the worker's. Anyone may send a proof it saw in the
        // mempool first: the link is then recorded, which is all we need.
        const tx = await step(`send segment ${task.index}`, () =>
          send(() =>
            escrow.proveSegment(claimId, stateIn, stateOut, checked).catch((e: unknown) => {
              const revert = revertName(e);
              if (revert === "SegmentAlreadyProven") return undefined;
              if (revert === "InvalidProof") return "the escrow's verifier refused it (InvalidProof)";
              throw e;
            }),
          ),
        );
        if (typeof tx === "string") {
          rejected.push({ task, proof: p!, reason: tx });
          continue;
        }
        if (tx) segmentGas[task.index] = tx.gasUsed;
        proofs.push(p!);
        opts.progress?.({ stage: "sent", index: task.index, of: tasks.length });
      }
      for (const r of rejected) {
        const deadLetterId = r.proof ? await prover.discard(r.task, r.proof, r.reason) : undefined;
        opts.progress?.({
          stage: "rejected",
          index: r.task.index,
          of: tasks.length,
          reason: r.reason,
          ...(deadLetterId === undefined ? {} : { deadLetterId }),
        });
      }
      if (rejected.length > 0 && round >= rounds)
        throw new SegmentRejectedError(
          String(claimId),
          rejected.map((r) => ({
            index: r.task.index,
            worker: typeof r.proof?.worker === "string" ? r.proof.worker : "unknown",
            reason: r.reason,
          })),
        );
      todo = rejected.map((r) => r.task);
    }
  } finally {
    if (!opts.prover) await prover.close();
  }
  const settled = await step("settle the chain", () => send(() => escrow.settleSegments(claimId, states)));
  return {
    claimId,
    verdict: prepared.verdict,
    circuit: prepared.circuit,
    segments: tasks.length,
    proofs: proofs.sort((a, b) => a.index - b.index),
    segmentGas,
    settleGas: settled.gasUsed,
    txHash: settled.txHash,
    beneficiary: settled.beneficiary,
    amount: settled.amount,
  };
}
