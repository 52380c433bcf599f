// Answers a claim on a session too long for any whole-claim circuit: the trace checked against the chain as
// for any claim (loadClaim), cut into the escrow's segments, each proven (by a SegmentProver: the local pool
// or the BullMQ queue), checked locally and against the escrow's public inputs, and sent as the words of the
// proof that verified (never words a worker sent), in batches the escrow checks with one pairing check each:
// settleChain for a chain of up to MAX_BATCH_LINKS links, else proveSegments spans and settleSegments. The
// per-link proveSegment stays in the escrow for anyone who wants to record links as they come; the prover and
// the watcher batch, because every link must be proven before a claim settles anyway, and a batch of m links
// costs m + 3 pairings instead of 4m. A proof that fails a check here is discarded from its prover (the queue
// removes and dead-letters it) and the segment proven again; one still failing after `rounds` ends the
// answer with SegmentRejectedError, which the watcher retries while the proof window is open.
import { readFileSync } from "node:fs";
import { verifyGroth16 } from "../../sdk/chain/groth16.js";
import type { EscrowClient } from "../../sdk/chain/escrow.js";
import { revertName } from "../../sdk/chain/retry.js";
import { packProof, verdictLabel } from "../../sdk/core/claim.js";
import { chainStates, MAX_BATCH_LINKS } from "../../sdk/core/segments.js";
import type { ProofWords } from "../../sdk/core/claim.js";
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
  /** Gas of each proveSegments span sent now, by its first segment's index (none when settleChain took all). */
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

/** A run of consecutive links sent in one transaction: segments [from, to). */
export interface SegmentBatch {
  from: number;
  to: number;
}

/** The chain's links cut into batches of at most MAX_BATCH_LINKS, in order. */
export function segmentBatches(links: number, size = MAX_BATCH_LINKS): SegmentBatch[] {
  const batches: SegmentBatch[] = [];
  for (let from = 0; from < links; from += size) batches.push({ from, to: Math.min(links, from + size) });
  return batches;
}

/**
 * Proves every segment, checks each proof locally, and settles: a chain of at most MAX_BATCH_LINKS links in one
 * settleChain transaction (one pairing check, nothing stored per link); a longer one in spans of that many
 * (openSegments, one proveSegments each) and then settleSegments over the spans' ends. Spans the escrow already
 * holds are not proven again, so a long answer that stopped halfway resumes where it was.
 */
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
  const batches = segmentBatches(tasks.length);
  const spans = batches.length > 1;
  // Spans are proven against the digest openSegments stores: open (again) if it differs. settleChain needs none.
  const digests = await escrow.claimDigests(claimId);
  if (spans && digests.opened !== digests.current)
    await step("open the claim for segments", () => send(() => escrow.openSegments(claimId)));
  const held = spans
    ? await Promise.all(batches.map((b) => escrow.segmentProven(claimId, states[b.from]!, states[b.to]!)))
    : [false];
  const vkey = JSON.parse(readFileSync(circuitArtifacts(prepared.circuit).vkey, "utf8"));
  const rounds = Math.max(1, opts.rounds ?? 2);
  const prover = opts.prover ?? new LocalSegmentPool({ workers: opts.workers ?? 1 });
  const proofs: SegmentProof[] = [];
  // The words to send, by segment index: always the locally verified proof's, never a worker's.
  const words = new Map<number, bigint[]>();
  let todo = tasks.filter((t) => !held[batches.findIndex((b) => t.index >= b.from && t.index < b.to)]);
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
        if (typeof checked === "string") rejected.push({ task, proof: p!, reason: checked });
        else {
          words.set(task.index, checked);
          proofs.push(p!);
        }
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
  const wordsOf = (b: SegmentBatch) =>
    tasks.slice(b.from, b.to).map((t) => words.get(t.index)! as ProofWords);
  const segmentGas: Record<number, bigint> = {};
  let settled: Awaited<ReturnType<EscrowClient["settleChain"]>>;
  if (!spans) {
    settled = await step(`settle the chain of ${tasks.length} segments in one transaction`, () =>
      send(() => escrow.settleChain(claimId, states, wordsOf(batches[0]!))),
    );
  } else {
    for (const [i, b] of batches.entries()) {
      if (held[i]) continue;
      const tx = await step(`send segments ${b.from}–${b.to - 1} as one span`, () =>
        send(() =>
          escrow.proveSegments(claimId, states.slice(b.from, b.to + 1), wordsOf(b)).catch((e: unknown) => {
            // Anyone may send a span it saw in the mempool first: it is then recorded, which is all we need.
            if (revertName(e) === "SegmentAlreadyProven") return undefined;
            throw e;
          }),
        ),
      );
      if (tx) segmentGas[b.from] = tx.gasUsed;
      for (let j = b.from; j < b.to; j++) opts.progress?.({ stage: "sent", index: j, of: tasks.length });
    }
    const ends = [...batches.map((b) => states[b.from]!), states[tasks.length]!];
    settled = await step("settle the chain of spans", () => send(() => escrow.settleSegments(claimId, ends)));
  }
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
