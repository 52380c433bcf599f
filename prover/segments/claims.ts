// Answers a claim on a session too long for any whole-claim circuit: the trace checked against the chain as
// for any claim (loadClaim), cut into the escrow's segments, each proven (by a SegmentProver: the local pool
// or the BullMQ queue), checked locally and against the escrow's public inputs, sent with proveSegment, and
// the chain settled once with settleSegments. Segments the escrow already holds are not proven again, so an
// answer that stopped halfway resumes where it was.
import { readFileSync } from "node:fs";
import * as snarkjs from "snarkjs";
import type { EscrowClient } from "../../sdk/chain/escrow.js";
import { revertName } from "../../sdk/chain/retry.js";
import { verdictLabel } from "../../sdk/core/claim.js";
import { chainStates } from "../../sdk/core/segments.js";
import type { Verdict } from "../../sdk/core/predicates/index.js";
import type { TraceStore } from "../../sdk/store.js";
import { circuitArtifacts, loadManifest, segmentCircuits } from "../artifacts/manifest.js";
import { builtCircuitFor, ClaimError, loadClaim, type LoadedClaim } from "../claims.js";
import { segmentInputs } from "./witness.js";
import { LocalSegmentPool, type SegmentProver } from "./pool.js";
import type { SegmentProof, SegmentTask } from "./task.js";

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
  /** Hears each segment as it is proven and as it is sent. */
  progress?: (event: { stage: "proven" | "sent"; index: number; of: number; seconds?: number }) => void;
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
  const todo = tasks.filter((_, i) => !held[i]);
  const prover = opts.prover ?? new LocalSegmentPool({ workers: opts.workers ?? 1 });
  let proofs: SegmentProof[];
  try {
    proofs = await step(
      `prove ${todo.length} of ${tasks.length} segments (${verdictLabel(prepared.verdict.violated)}) with ${prepared.circuit}`,
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
  } finally {
    if (!opts.prover) await prover.close();
  }
  const vkey = JSON.parse(readFileSync(circuitArtifacts(prepared.circuit).vkey, "utf8"));
  const segmentGas: Record<number, bigint> = {};
  for (const p of proofs.sort((a, b) => a.index - b.index)) {
    const [stateIn, stateOut] = [states[p.index]!, states[p.index + 1]!];
    if (!(await snarkjs.groth16.verify(vkey, p.publicSignals, p.proof as never)))
      throw new ClaimError(`claim ${claimId} segment ${p.index}: the proof does not verify locally`);
    const expected = [digests.current, stateIn, stateOut];
    if (expected.some((x, i) => x !== BigInt(p.publicSignals[i]!)))
      throw new ClaimError(
        `claim ${claimId} segment ${p.index}: the proof's public inputs differ from what the escrow will rebuild`,
      );
    // Anyone may send a proof it saw in the mempool first: the link is then recorded, which is all we need.
    const tx = await step(`send segment ${p.index}`, () =>
      send(() =>
        escrow.proveSegment(claimId, stateIn, stateOut, p.words.map(BigInt)).catch((e: unknown) => {
          if (revertName(e) === "SegmentAlreadyProven") return undefined;
          throw e;
        }),
      ),
    );
    if (tx) segmentGas[p.index] = tx.gasUsed;
    opts.progress?.({ stage: "sent", index: p.index, of: tasks.length });
  }
  const settled = await step("settle the chain", () => send(() => escrow.settleSegments(claimId, states)));
  return {
    claimId,
    verdict: prepared.verdict,
    circuit: prepared.circuit,
    segments: tasks.length,
    proofs,
    segmentGas,
    settleGas: settled.gasUsed,
    txHash: settled.txHash,
    beneficiary: settled.beneficiary,
    amount: settled.amount,
  };
}
