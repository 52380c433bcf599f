// Answers a claim: load the session's records and the promise's θ from the store,
// check that they reproduce every on-chain commitment, evaluate the oracle, prove,
// verify locally, and settle through the escrow. Refuses with a clear error, and
// sends nothing, when the store and the chain disagree: the claim then defaults,
// which is the protocol's answer to a provider that cannot prove.
import type { Address, Hex } from "viem";
import { ClaimStatus, type EscrowClient } from "../sdk/chain/escrow.js";
import { chainHead, encodeTrace } from "../sdk/core/encoding.js";
import { accumulate } from "../sdk/core/hash.js";
import { commitmentRoot } from "../sdk/core/merkle.js";
import {
  findPredicate,
  paramsHashOf,
  type PredicateDefinition,
  type Verdict,
} from "../sdk/core/predicates/index.js";
import type { TraceRecord } from "../sdk/core/records.js";
import type { TraceStore } from "../sdk/provider/store.js";
import { capacityOfDepth, selectCircuit, verdictLabel } from "../sdk/core/claim.js";
import { circuitArtifacts, claimCircuits, loadManifest } from "../sdk/manifest/manifest.js";
import { prove, verifyLocally, type ProofResult } from "./prove.js";
import { capacityProblem, claimInput, shapeOf } from "./witness.js";
import { withDetails, ZkvaiError, type ZkvaiErrorOptions } from "../sdk/core/errors.js";

export class TraceMismatchError extends ZkvaiError {
  static override readonly code: string = "TRACE_MISMATCH";
  override name = "TraceMismatchError";
}
export class ClaimError extends ZkvaiError {
  static override readonly code: string = "CLAIM_ERROR";
  override name = "ClaimError";
}
/** The claim was settled, defaulted or withdrawn (or never filed): nothing is left to answer. */
export class ClaimNotOpenError extends ClaimError {
  static override readonly code: string = "CLAIM_NOT_OPEN";
  override name = "ClaimNotOpenError";
  constructor(
    readonly claimId: bigint,
    readonly status: ClaimStatus,
    options?: ZkvaiErrorOptions,
  ) {
    super(
      `claim ${claimId} is not open (status ${ClaimStatus[status]})`,
      withDetails(options, { claimId: String(claimId), status: ClaimStatus[status] ?? status }),
    );
  }
}
/** The session has no final commitment yet: a proof may become possible once the provider closes it. */
export class SessionNotClosedError extends ClaimError {
  static override readonly code: string = "SESSION_NOT_CLOSED";
  override name = "SessionNotClosedError";
  constructor(
    readonly sessionId: Hex,
    options?: ZkvaiErrorOptions,
  ) {
    super(
      `session ${sessionId} has no final commitment yet; it cannot be proven`,
      withDetails(options, { sessionId }),
    );
  }
}

/**
 * The session closed less than RECEIPT_WINDOW ago: the escrow takes no proof yet (ReceiptWindowOpen), and a
 * receipt the user may still post would change what the proof must honour. Prove once `opensAt` has passed.
 */
export class ReceiptWindowOpenError extends ClaimError {
  static override readonly code: string = "RECEIPT_WINDOW_OPEN";
  override name = "ReceiptWindowOpenError";
  constructor(
    readonly sessionId: Hex,
    readonly opensAt: bigint,
    options?: ZkvaiErrorOptions,
  ) {
    super(
      `session ${sessionId} closed less than the escrow's receipt window ago; settle opens at ${new Date(Number(opensAt) * 1000).toISOString()}`,
      withDetails(options, { sessionId, opensAt: String(opensAt) }),
    );
  }
}

/** A claim proven and checked, not yet sent: what a dry run reports. */
export interface ProvenClaim {
  claimId: bigint;
  verdict: Verdict;
  circuit: string;
  proveSeconds: number;
  /** The 8 words settle() takes. */
  proof: readonly bigint[];
}

export interface ClaimAnswer extends ProvenClaim {
  settleGas: bigint;
  txHash: Hex;
  beneficiary: Address;
  amount: bigint;
}

export interface AnswerOptions {
  /** Wraps each stage (progress reporting); the default runs it. */
  step?: <T>(label: string, run: () => Promise<T>) => Promise<T>;
  /** Runs after the store is checked against the chain, before proving (e.g. the verifier's code check). */
  beforeProving?: (prepared: PreparedClaim) => Promise<void>;
}

/**
 * The claim's trace and promise, checked against the chain: every stored record reproduces every on-chain
 * chain head and the final root, and θ hashes to the promise's paramsHash. Throws before any transaction.
 */
export async function loadClaim(store: TraceStore, escrow: EscrowClient, claimId: bigint) {
  const claim = await escrow.claim(claimId);
  if (claim.status !== ClaimStatus.Open) throw new ClaimNotOpenError(claimId, claim.status);
  const { sessionId, promiseId } = claim;
  const onChain = await escrow.session(sessionId);
  if (!onChain.closed) throw new SessionNotClosedError(sessionId);
  const [opensAt, latest] = await Promise.all([
    escrow.settleOpensAt(sessionId),
    escrow.chain.publicClient.getBlock(),
  ]);
  if (latest.timestamp < opensAt) throw new ReceiptWindowOpenError(sessionId, opensAt);

  const stored = store.session(sessionId);
  if (!stored) throw new TraceMismatchError(`session ${sessionId} is not in the trace store`);
  if (stored.profileHash !== onChain.profileHash) {
    throw new TraceMismatchError(
      `session ${sessionId}: stored encoding profile hash differs from the one committed on-chain`,
    );
  }
  const all = store.records(sessionId);
  if (all.length < onChain.finalN) {
    throw new TraceMismatchError(
      `session ${sessionId}: the store holds ${all.length} records, the final commitment ${onChain.finalN}`,
    );
  }
  const records = all.slice(0, onChain.finalN);
  // Encoded once here and handed on to the witness builders (claimInput, segmentInputs): at about 2 ms of
  // Poseidon a record, encoding 10,000 records twice was half of a segmented claim's cut.
  const encoded = encodeTrace(records, stored.profile, stored.secret);
  const leaves = encoded.map((r) => r.leaf);

  const checkpoints = (await escrow.checkpointsOf(sessionId)).map(({ n, root }) => ({ n, root }));
  // Entries are checked in n order, so a mismatch is narrowed to the records after the last prefix that held.
  let held = 0;
  for (const [i, c] of [...checkpoints.entries()].sort(([, a], [, b]) => a.n - b.n)) {
    if (c.n > leaves.length) {
      throw new TraceMismatchError(
        `session ${sessionId}: checkpoint ${i} covers ${c.n} records, the final commitment only ${leaves.length}`,
      );
    }
    const mine = chainHead(leaves, c.n);
    if (mine !== c.root) {
      throw new TraceMismatchError(
        `session ${sessionId}: checkpoint ${i} (first ${c.n} records) has chain head ${hex(c.root)} on-chain but the stored records give ${hex(mine)}: a stored record among seq ${held}..${c.n - 1} was changed after it was committed`,
      );
    }
    held = c.n;
  }
  if (accumulate(checkpoints) !== onChain.acc) {
    throw new TraceMismatchError(
      `session ${sessionId}: the on-chain checkpoint accumulator does not match its Checkpointed events`,
    );
  }
  const finalRoot = commitmentRoot(leaves);
  if (finalRoot !== onChain.finalRoot) {
    throw new TraceMismatchError(
      `session ${sessionId}: final root ${hex(onChain.finalRoot)} on-chain but the stored records give ${hex(finalRoot)}`,
    );
  }

  const promise = await escrow.promise(promiseId);
  const storedPromise = store.promise(promiseId);
  if (!storedPromise) throw new ClaimError(`promise ${promiseId} (its θ) is not in the trace store`);
  const predicate = findPredicate(storedPromise.predicate);
  if (!predicate || predicate.code !== promise.predicateId) {
    throw new ClaimError(
      `promise ${promiseId}: predicate ${storedPromise.predicate} does not match on-chain id ${promise.predicateId}`,
    );
  }
  const theta = predicate.parseTheta(storedPromise.theta);
  if (paramsHashOf(predicate, theta) !== promise.paramsHash) {
    throw new ClaimError(`promise ${promiseId}: the stored θ does not hash to the on-chain paramsHash`);
  }

  const context = await escrow.context(sessionId, promiseId);
  return { claimId, claim, records, encoded, stored, checkpoints, predicate, theta, context, promise };
}

export type LoadedClaim = Awaited<ReturnType<typeof loadClaim>>;

/** Everything the proof needs, checked against the chain; throws before any transaction. */
export async function prepareClaim(store: TraceStore, escrow: EscrowClient, claimId: bigint) {
  return prepareLoadedClaim(await loadClaim(store, escrow, claimId));
}

/** A loaded claim laid out for the one whole-claim circuit the escrow verifies it with. */
export function prepareLoadedClaim(loaded: LoadedClaim) {
  const { claimId, claim, records, encoded, stored, checkpoints, predicate, theta, context } = loaded;
  const circuit = pickCircuit(predicate, records, checkpoints.length);
  const artifacts = circuitArtifacts(circuit.name);
  const { input, verdict } = claimInput({
    records,
    encoded,
    profile: stored.profile,
    sessionSecret: stored.secret,
    checkpoints,
    predicate,
    theta,
    context,
    shape: circuit.shape,
  });
  return { claimId, claim, artifacts, input, verdict };
}

export type PreparedClaim = Awaited<ReturnType<typeof prepareClaim>>;

/** Proves and verifies locally; no chain access, so a caller may retry the chain steps without re-proving. */
export async function proveClaim(prepared: PreparedClaim): Promise<ProofResult> {
  const proof = await prove(prepared.artifacts, prepared.input);
  if (!(await verifyLocally(prepared.artifacts, proof)))
    throw new ClaimError(`claim ${prepared.claimId}: the proof does not verify locally`);
  return proof;
}

/** A proof whose public inputs differ from the escrow's would only revert; refuse it before sending. */
export async function checkPublicInputs(
  escrow: EscrowClient,
  claimId: bigint,
  violated: boolean,
  proof: ProofResult,
): Promise<void> {
  const expected = await escrow.publicInputs(claimId, violated);
  if (expected.some((x, i) => x !== proof.publicSignals[i])) {
    throw new ClaimError(
      `claim ${claimId}: the proof's public inputs differ from what the escrow will rebuild`,
    );
  }
}

/**
 * Everything but the settle transaction: the store checked against the chain, the proof made and verified
 * locally, and its public inputs compared with those the escrow will rebuild. Sends nothing.
 */
export async function proveClaimChecked(
  store: TraceStore,
  escrow: EscrowClient,
  claimId: bigint,
  opts: AnswerOptions = {},
): Promise<ProvenClaim> {
  const step = opts.step ?? ((_label, run) => run());
  const prepared = await step("check the store against the chain", async () => {
    const p = await prepareClaim(store, escrow, claimId);
    await opts.beforeProving?.(p);
    return p;
  });
  const { artifacts, verdict } = prepared;
  const proof = await step(`prove ${verdictLabel(verdict.violated)} with ${artifacts.name}`, () =>
    proveClaim(prepared),
  );
  await step("check the public inputs against the escrow's", () =>
    checkPublicInputs(escrow, claimId, verdict.violated, proof),
  );
  return { claimId, verdict, circuit: artifacts.name, proveSeconds: proof.proveSeconds, proof: proof.words };
}

/** Proves the claim (proveClaimChecked) and settles it on-chain. */
export async function answerClaim(
  store: TraceStore,
  escrow: EscrowClient,
  claimId: bigint,
  opts: AnswerOptions = {},
): Promise<ClaimAnswer> {
  const proven = await proveClaimChecked(store, escrow, claimId, opts);
  const step = opts.step ?? ((_label, run) => run());
  const tx = await step("settle on-chain", () =>
    escrow.settle(claimId, proven.proof, proven.verdict.violated),
  );
  return {
    ...proven,
    settleGas: tx.gasUsed,
    txHash: tx.txHash,
    beneficiary: tx.beneficiary,
    amount: tx.amount,
  };
}

/** Among the manifest's circuits of a predicate, the one the escrow's rule picks for n records. */
export function builtCircuitFor(predicateId: string, n: number) {
  const built = claimCircuits(loadManifest())
    .filter(([, c]) => c.predicate === predicateId)
    .map(([name, c]) => ({
      name,
      shape: shapeOf(c.params),
      capacity: capacityOfDepth(Number(c.params.depth)),
    }));
  return selectCircuit(built, n);
}

/**
 * The circuit the escrow will verify with: among the built circuits of the predicate, the one the escrow's
 * rule picks for n records (selectCircuit, sdk/core/claim.ts). A larger circuit with more event slots would
 * not help, since its verifier is not the one the escrow calls: a trace that circuit cannot hold (too many
 * events or checkpoints) cannot be proven, and the prover says so.
 */
export function pickCircuit<Theta>(
  predicate: PredicateDefinition<Theta>,
  records: readonly TraceRecord[],
  checkpoints: number,
) {
  const chosen = builtCircuitFor(predicate.id, records.length);
  if (!chosen) {
    throw new ClaimError(
      `no ${predicate.id} circuit holds ${records.length} records and ${checkpoints} checkpoints; build a larger instance`,
    );
  }
  const problem = capacityProblem(predicate, records, checkpoints, chosen.shape);
  if (problem)
    throw new ClaimError(`${chosen.name}, the circuit the escrow verifies this claim with: ${problem}`);
  return chosen;
}

const hex = (x: bigint) => `0x${x.toString(16).padStart(64, "0")}`;
