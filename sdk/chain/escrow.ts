// The escrow: a client typed by its ABI (sdk/chain/generated, made from contracts/Escrow.sol): reads return
// the contract's own types, and every function and event name is checked by tsc. Deploying it and the session
// ids it accepts are in escrow-deploy.ts, re-exported here. Everything else talks to the escrow through here.
import {
  isAddressEqual,
  parseEventLogs,
  type Address,
  type ContractEventName,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type Hex,
} from "viem";
import type { ProofWords, PublicInputs } from "../core/claim.js";
import { PROOF_WORDS } from "../core/claim.js";
import { checkReceipt, splitSignature, type Receipt } from "../core/receipt.js";
import { receiptOf } from "./artifacts.js";
import { activePromisesOf, releaseExpired, sessionCoverage, type CoverOption } from "./escrow-coverage.js";
import type { SegmentEntry, VerifierEntry } from "./escrow-deploy.js";
import { ChainStateError, escrowFailure } from "./escrow-errors.js";
import {
  ClaimStatus,
  Coverage,
  type ClaimFiledEvent,
  type ClaimInfo,
  type FoldEntry,
  type Logged,
  type Payment,
  type PairCoverage,
  type PromiseInfo,
  type RegisterPromiseArgs,
  type SegmentLink,
  type ClaimDigests,
  type SegmentVerifierInfo,
  type SessionCoverage,
  type SessionInfo,
  type TxResult,
} from "./escrow-types.js";
import { ESCROW_ABI } from "./generated/escrow-abi.js";
import type { ChainHandle, Wallet } from "./network.js";

export type { ProofWords, PublicInputs } from "../core/claim.js";
type EscrowAbi = typeof ESCROW_ABI;
type WriteName = ContractFunctionName<EscrowAbi, "nonpayable" | "payable">;

export * from "./escrow-deploy.js";
export { ChainStateError, EscrowRevertError, EscrowTxError } from "./escrow-errors.js";
export { activePromisesOf, type CoverOption } from "./escrow-coverage.js";

// ------------------------------------------------------------------------------------------------ escrow client

export {
  ClaimStatus,
  Coverage,
  type PairCoverage,
  type SessionCoverage,
  type SessionOpenTx,
  type ClaimInfo,
  type FoldEntry,
  type Payment,
  type PromiseInfo,
  type RegisterPromiseArgs,
  type SegmentLink,
  type ClaimDigests,
  type SegmentVerifierInfo,
  type SessionInfo,
  type TxResult,
} from "./escrow-types.js";
type Sent<T> = Promise<TxResult & T>;

const UINT256_MAX = 2n ** 256n - 1n;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** A proof as the escrow's `uint256[8]` (snarkjs exportSolidityCallData order); refuses any other length. */
function proofTuple(proof: ProofWords) {
  if (proof.length !== PROOF_WORDS)
    throw new RangeError(`a proof is ${PROOF_WORDS} words, got ${proof.length}`);
  return [proof[0], proof[1], proof[2], proof[3], proof[4], proof[5], proof[6], proof[7]] as const;
}

/** A proof's 8 words, checked, for the batch calls' flat proofs array (8 words a link). */
function proofWords(proof: ProofWords): bigint[] {
  return [...proofTuple(proof)];
}

/** A mined log (strict decoding) as the SDK reports events: its arguments and where it was emitted. */
function logged<T>(l: { args: T; transactionHash: Hex; blockNumber: bigint; logIndex: number }): Logged<T> {
  return { args: l.args, txHash: l.transactionHash, blockNumber: l.blockNumber, logIndex: l.logIndex };
}

function claimStatus(code: number): ClaimStatus {
  if (!(code in ClaimStatus))
    throw new ChainStateError(`the escrow reported an unknown claim status ${code}`, {
      details: { status: code },
    });
  return code;
}

export class EscrowClient {
  readonly abi = ESCROW_ABI;

  private constructor(
    readonly chain: ChainHandle,
    readonly address: Address,
    readonly wallet: Wallet | undefined,
    /** First block worth scanning for logs (the deployment block, when known). */
    readonly fromBlock: bigint,
  ) {}

  static async connect(
    chain: ChainHandle,
    address: Address,
    wallet?: Wallet,
    opts: { fromBlock?: bigint } = {},
  ): Promise<EscrowClient> {
    return new EscrowClient(chain, address, wallet, opts.fromBlock ?? 0n);
  }

  /** The same escrow, sending from another account (e.g. the user rather than the provider). */
  as(wallet: Wallet): EscrowClient {
    return new EscrowClient(this.chain, this.address, wallet, this.fromBlock);
  }

  // -------------------------------------------------------------------------------------------- writes
  // Each returns the gas, the hash and the values of the event the call emits.

  registerPromise(a: RegisterPromiseArgs): Sent<{ promiseId: bigint; nonce: bigint; reserve: bigint }> {
    const args = [a.predicateId, a.paramsHash, a.profileHash, a.payout] as const;
    return this.send("registerPromise", args, "PromiseRegistered", a.value ?? a.payout);
  }

  fund(promiseId: bigint, value: bigint): Sent<{ amount: bigint; reserve: bigint }> {
    return this.send("fund", [promiseId], "PromiseFunded", value);
  }

  /**
   * Opens a session and decides its coverage for good: each promise in `cover` (default "auto": every active
   * promise of the sending provider pinned to `profileHash`, activePromisesOf) has its payout earmarked for the
   * session when its free reserve holds it, or leaves the session uncovered by it (covered: false). The escrow
   * reverts for a promise that is not the sender's, is retired or pins another profile. `coverage` lists every
   * named promise (SessionCovered), in the order named.
   */
  async openSession(
    sessionId: Hex,
    user: Address,
    profileHash: bigint,
    cover: CoverOption = "auto",
  ): Sent<{ nonce: bigint; coverage: SessionCoverage[] }> {
    const ids =
      cover === "auto" ? await activePromisesOf(this, this.sender("openSession"), profileHash) : [...cover];
    const { gasUsed, txHash, receipt } = await this.sendTx("openSession", [
      sessionId,
      user,
      profileHash,
      ids,
    ]);
    const mine = <L extends { address: Address }>(logs: L[], eventName: string, count: number) => {
      const own = logs.filter((l) => isAddressEqual(l.address, this.address));
      if (own.length !== count)
        throw new ChainStateError(`expected ${count} ${eventName} in ${txHash}, got ${own.length}`, {
          details: { event: eventName, txHash, expected: count, found: own.length },
        });
      return own;
    };
    const [opened] = mine(
      parseEventLogs({ abi: ESCROW_ABI, logs: receipt.logs, eventName: "SessionOpened" }),
      "SessionOpened",
      1,
    );
    const coverage = mine(
      parseEventLogs({ abi: ESCROW_ABI, logs: receipt.logs, eventName: "SessionCovered" }),
      "SessionCovered",
      ids.length,
    ).map(({ args: { promiseId, covered, amount, available } }) => ({
      promiseId,
      covered,
      amount,
      available,
    }));
    return { gasUsed, txHash, nonce: opened.args.nonce, coverage };
  }

  /**
   * Gives a session's earmark on a promise back to the free reserve once the pair's claim window has ended with
   * no claim open (anyone may send it).
   */
  releaseCoverage(sessionId: Hex, promiseId: bigint): Sent<{ amount: bigint; available: bigint }> {
    return this.send("releaseCoverage", [sessionId, promiseId], "CoverageReleased");
  }

  /** releaseCoverage for every session of `promiseId` whose window ended unclaimed; the sessions released. */
  releaseExpired(promiseId: bigint): Promise<Hex[]> {
    return releaseExpired(this, promiseId);
  }

  checkpoint(sessionId: Hex, n: number, root: bigint): Sent<{ n: number; root: bigint; acc: bigint }> {
    return this.send("checkpoint", [sessionId, n, root], "Checkpointed");
  }

  /**
   * The session's user posts a receipt the provider signed (sdk/chain/receipts.ts signReceipt). Before close,
   * one that follows a checkpoint's rules (n > lastN, the budget) folds as a checkpoint (`spare: false`); any
   * other, before close or after, takes the session's one spare entry (`spare: true`: any n ≥ 1, raising lastN
   * before close when above it). After close the spare is taken until closedAt + RECEIPT_WINDOW, and later only
   * while no claim on the session was filed (SpareReceiptTooLate otherwise: the fold is then frozen for the
   * provider's proofs). With the spare spent it reverts with the rule's error before close
   * (CheckpointNotIncreasing, CheckpointBudget), SpareReceiptUsed after.
   * `signature` is the 65-byte r ‖ s ‖ v; the escrow checks it (low s, v 27/28, signer = the session's
   * provider) and reverts BadReceiptSignature otherwise. verifyReceipt predicts that check off-chain.
   */
  postReceipt(
    receipt: Receipt,
    signature: Hex,
    opts: { spare?: boolean } = {},
  ): Sent<{ n: number; root: bigint; acc: bigint; spare: boolean }> {
    const { sessionId, n, root } = checkReceipt(receipt);
    const { v, r, s } = splitSignature(signature);
    return this.send("postReceipt", [sessionId, n, root, opts.spare ?? false, v, r, s], "ReceiptPosted");
  }

  /** The first second settle() takes a proof for a claim on this closed session (closedAt + RECEIPT_WINDOW). */
  async settleOpensAt(sessionId: Hex): Promise<bigint> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "settleOpensAt",
      args: [sessionId],
    });
  }

  closeSession(
    sessionId: Hex,
    n: number,
    root: bigint,
  ): Sent<{ finalN: number; finalRoot: bigint; acc: bigint }> {
    return this.send("closeSession", [sessionId, n, root], "SessionClosed");
  }

  /**
   * The session's user claims under a promise, with `bond`. A failure is an EscrowRevertError naming the
   * escrow's custom error (`revert`: "NotCovered", "ClaimWindowClosed", …) or an EscrowTxError.
   */
  async fileClaim(sessionId: Hex, promiseId: bigint, bond: bigint): Sent<{ claimId: bigint; bond: bigint }> {
    try {
      return await this.send("fileClaim", [sessionId, promiseId], "ClaimFiled", bond);
    } catch (e) {
      throw escrowFailure("fileClaim", e);
    }
  }

  settle(claimId: bigint, proof: ProofWords, violated: boolean): Sent<Payment & { violated: boolean }> {
    return this.send("settle", [claimId, proofTuple(proof), violated], "ClaimSettled");
  }

  /**
   * Commits the escrow to the claim's digest (claimDigest, sdk/core/segments.ts segmentClaimDigest) for
   * proveSegment; anyone may call it once the claim could be settled (closed session, receipt window passed),
   * and again after a spare receipt changed the session's accumulator.
   */
  openSegments(claimId: bigint): Sent<{ claimId: bigint; claimDigest: bigint; acc: bigint }> {
    return this.send("openSegments", [claimId], "SegmentsOpened");
  }

  /**
   * Records one link of a claim's segment chain: a segment takes `stateIn` to `stateOut`, proven by `proof`
   * against [claimDigest, stateIn, stateOut] with the digest openSegments stored. Anyone may send it, in any
   * order, while the claim is open and within its proof window.
   */
  proveSegment(claimId: bigint, stateIn: bigint, stateOut: bigint, proof: ProofWords): Sent<SegmentLink> {
    return this.send("proveSegment", [claimId, stateIn, stateOut, proofTuple(proof)], "SegmentProven");
  }

  /**
   * Settles a claim by its proven segment chain: `states` = [0, s_1, …, verdict], with every link
   * (states[j], states[j+1]) proven under the claim's current digest and the verdict 1 (satisfied) or 2
   * (violated). Pays as settle() does.
   */
  settleSegments(claimId: bigint, states: readonly bigint[]): Sent<Payment & { violated: boolean }> {
    return this.send("settleSegments", [claimId, [...states]], "ClaimSettled");
  }

  /**
   * Records a run of consecutive links, states[0] → … → states[m], proven together by `proofs` (one per link,
   * m ≤ MAX_BATCH_LINKS) with one pairing check, under the digest openSegments stored, as one span that
   * settleSegments takes like a link: the way to prove a chain longer than one batch.
   */
  proveSegments(
    claimId: bigint,
    states: readonly bigint[],
    proofs: readonly ProofWords[],
  ): Sent<SegmentLink & { links: bigint }> {
    return this.send("proveSegments", [claimId, [...states], proofs.flatMap(proofWords)], "SegmentsProven");
  }

  /**
   * Settles a claim by its whole segment chain in one transaction: `states` = [0, s_1, …, verdict] and one proof
   * per link (at most MAX_BATCH_LINKS), verified with one pairing check against the digest the escrow computes
   * from storage. No openSegments, nothing stored per link. Pays as settle() does.
   */
  settleChain(
    claimId: bigint,
    states: readonly bigint[],
    proofs: readonly ProofWords[],
  ): Sent<Payment & { violated: boolean }> {
    return this.send("settleChain", [claimId, [...states], proofs.flatMap(proofWords)], "ClaimSettled");
  }

  claimDefault(claimId: bigint): Sent<Payment> {
    return this.send("claimDefault", [claimId], "ClaimDefaulted");
  }

  /** Provider only: ends new coverage; claims on earlier sessions close 30 days later at the latest. */
  retirePromise(promiseId: bigint): Sent<{ retiredAt: bigint; nonce: bigint }> {
    return this.send("retirePromise", [promiseId], "PromiseRetired");
  }

  /** Provider only, at any time: credits the free reserve (availableReserve), which no covered session holds. */
  withdrawReserve(promiseId: bigint): Sent<{ provider: Address; amount: bigint }> {
    return this.send("withdrawReserve", [promiseId], "ReserveWithdrawn");
  }

  withdraw(): Sent<{ account: Address; amount: bigint }> {
    return this.send("withdraw", [], "Withdrawn");
  }

  /**
   * The escrow's deployer adds a predicate it does not serve yet: its whole-claim verifiers (sorted here by
   * capacity) and at most one segment verifier, checked as the constructor checks its entries. A predicate that
   * has any entry already is refused (`PredicateExists`), as is any other sender (`NotDeployer`): entries are never
   * changed, so no promise's verifiers can be. Failures are EscrowRevertError / EscrowTxError.
   * prover/artifacts/deploy.ts appendPredicateFromManifest deploys a manifest predicate's verifiers and calls this.
   */
  async appendPredicateVerifiers(
    predicateId: number,
    verifiers: readonly VerifierEntry[],
    segment?: SegmentEntry,
  ): Sent<{ verifiers: bigint; segmentVerifier: Address }> {
    const sorted = [...verifiers].sort((a, b) => a.capacity - b.capacity);
    const args = [predicateId, sorted, segment ? [segment] : []] as const;
    try {
      return await this.send("appendPredicateVerifiers", args, "PredicateAppended");
    } catch (e) {
      throw escrowFailure("appendPredicateVerifiers", e);
    }
  }

  // -------------------------------------------------------------------------------------------- reads
  // Typed by the ABI: each returns the contract's own struct or tuple, with no cast.

  private get contract() {
    return { address: this.address, abi: ESCROW_ABI } as const;
  }

  promise(promiseId: bigint): Promise<PromiseInfo> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "getPromise",
      args: [promiseId],
    });
  }

  session(sessionId: Hex): Promise<SessionInfo> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "getSession",
      args: [sessionId],
    });
  }

  async claim(claimId: bigint): Promise<ClaimInfo> {
    const c = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "getClaim",
      args: [claimId],
    });
    return { ...c, status: claimStatus(c.status) };
  }

  credits(account: Address): Promise<bigint> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "credits",
      args: [account],
    });
  }

  /** The promise's free reserve: not earmarked for covered sessions; a new session is covered from it. */
  availableReserve(promiseId: bigint): Promise<bigint> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "availableReserve",
      args: [promiseId],
    });
  }

  /**
   * The registry's verifiers for a predicate, by ascending capacity: written once, at deployment or by
   * appendPredicateVerifiers for a predicate that had none, and never changed.
   */
  async verifierSet(predicateId: number): Promise<{ capacities: number[]; verifiers: Address[] }> {
    const [capacities, verifiers] = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "verifierSet",
      args: [predicateId],
    });
    return { capacities: [...capacities], verifiers: [...verifiers] };
  }

  /** The predicate's segment verifier (written once, like verifierSet); null when it has none. */
  async segmentVerifier(predicateId: number): Promise<SegmentVerifierInfo | null> {
    const [segmentSize, checkpoints, verifier] = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "segmentVerifier",
      args: [predicateId],
    });
    return verifier === ZERO_ADDRESS ? null : { segmentSize, checkpoints, verifier };
  }

  /** The claim's digest as settleSegments() computes it now, and the one openSegments() stored (0: none). */
  async claimDigests(claimId: bigint): Promise<ClaimDigests> {
    const [current, opened] = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "claimDigestOf",
      args: [claimId],
    });
    return { current, opened };
  }

  /** Whether this link is proven under the claim's current digest, i.e. whether settleSegments() counts it. */
  segmentProven(claimId: bigint, stateIn: bigint, stateOut: bigint): Promise<boolean> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "segmentProven",
      args: [claimId, stateIn, stateOut],
    });
  }

  /** What the promise guarantees the session: its coverage, the claim open on it, the amount earmarked. */
  async coverageOf(sessionId: Hex, promiseId: bigint): Promise<PairCoverage> {
    const [coverage, openClaimId, amount] = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "coverageOf",
      args: [sessionId, promiseId],
    });
    if (!(coverage in Coverage))
      throw new ChainStateError(`the escrow reported an unknown coverage ${coverage}`, {
        details: { coverage },
      });
    return { coverage, openClaimId, amount };
  }

  /** Every promise named when the session opened, covered or not (SessionCovered events). */
  sessionCoverage(sessionId: Hex): Promise<SessionCoverage[]> {
    return sessionCoverage(this, sessionId);
  }

  async pair(sessionId: Hex, promiseId: bigint): Promise<{ openClaimId: bigint; resolved: boolean }> {
    const [openClaimId, resolved] = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "pairOf",
      args: [sessionId, promiseId],
    });
    return { openClaimId, resolved };
  }

  /** Last second (inclusive) at which the pair can be claimed; null while unbounded (no close, no retirement). */
  async claimDeadline(sessionId: Hex, promiseId: bigint): Promise<bigint | null> {
    const d = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "claimDeadline",
      args: [sessionId, promiseId],
    });
    return d === UINT256_MAX ? null : d;
  }

  context(sessionId: Hex, promiseId: bigint): Promise<bigint> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "contextOf",
      args: [sessionId, promiseId],
    });
  }

  /** Exactly what settle() passes to the verifier, in PUBLIC_INPUTS order (sdk/core/claim.ts). */
  publicInputs(claimId: bigint, violated: boolean): Promise<PublicInputs> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "publicInputsOf",
      args: [claimId, violated],
    });
  }

  async verifierOf(claimId: bigint): Promise<{ verifier: Address; capacity: number }> {
    const [verifier, capacity] = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "verifierOf",
      args: [claimId],
    });
    return { verifier, capacity };
  }

  /**
   * Every entry folded into the session's acc, in chain (= fold) order: the provider's checkpoints
   * (`Checkpointed`) and the receipts its user posted (`ReceiptPosted`), the spare one included. Storage keeps
   * only their fold; accumulate() over these (n, root) pairs is the session's acc.
   */
  async checkpointsOf(sessionId: Hex): Promise<FoldEntry[]> {
    const query = {
      ...this.contract,
      args: { sessionId },
      fromBlock: this.fromBlock,
      toBlock: "latest",
    } as const;
    const [checkpoints, receipts] = await Promise.all([
      this.chain.publicClient.getContractEvents({ ...query, eventName: "Checkpointed", strict: true }),
      this.chain.publicClient.getContractEvents({ ...query, eventName: "ReceiptPosted", strict: true }),
    ]);
    const entries = [
      ...checkpoints.map((l) => ({
        l,
        entry: { ...l.args, kind: "checkpoint", spare: false } as const,
      })),
      ...receipts.map((l) => ({ l, entry: { ...l.args, kind: "receipt" } as const })),
    ];
    return entries
      .sort((x, y) => Number(x.l.blockNumber - y.l.blockNumber) || x.l.logIndex - y.l.logIndex)
      .map(({ entry: { n, root, acc, kind, spare } }) => ({ n, root, acc, kind, spare }));
  }

  /** The escrow's fixed windows (seconds) and checkpoint budget step: immutable, so callers may cache them. */
  async constants(): Promise<{
    proofWindow: bigint;
    claimWindow: bigint;
    checkpointInterval: number;
    receiptWindow: bigint;
  }> {
    const read = <F extends "PROOF_WINDOW" | "CLAIM_WINDOW" | "CHECKPOINT_INTERVAL" | "RECEIPT_WINDOW">(
      functionName: F,
    ) => this.chain.publicClient.readContract({ ...this.contract, functionName });
    const [proofWindow, claimWindow, checkpointInterval, receiptWindow] = await Promise.all([
      read("PROOF_WINDOW"),
      read("CLAIM_WINDOW"),
      read("CHECKPOINT_INTERVAL"),
      read("RECEIPT_WINDOW"),
    ]);
    return {
      proofWindow,
      claimWindow,
      checkpointInterval: Number(checkpointInterval),
      receiptWindow: BigInt(receiptWindow),
    };
  }

  /** Fold entries a circuit of `capacity` records holds on this escrow: ceil(capacity / interval) + 1. */
  async checkpointSlots(capacity: number): Promise<number> {
    const slots = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "checkpointSlots",
      args: [capacity],
    });
    return Number(slots);
  }

  /** The escrow's own EIP-712 digest of a receipt (equal to sdk/core/receipt.ts receiptDigest). */
  receiptDigest(receipt: Receipt): Promise<Hex> {
    const { sessionId, n, root } = receipt;
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "receiptDigest",
      args: [sessionId, n, root],
    });
  }

  /** The EIP-712 domain separator receipts are signed under, for this chain's current id. */
  domainSeparator(): Promise<Hex> {
    return this.chain.publicClient.readContract({ ...this.contract, functionName: "DOMAIN_SEPARATOR" });
  }

  /** ClaimFiled events in [fromBlock, toBlock], in chain order. */
  async claimsFiled(fromBlock: bigint, toBlock: bigint): Promise<Logged<ClaimFiledEvent>[]> {
    const logs = await this.chain.publicClient.getContractEvents({
      ...this.contract,
      eventName: "ClaimFiled",
      fromBlock,
      toBlock,
      strict: true,
    });
    return logs.map(logged);
  }

  /** The ClaimSettled events of a claim (one once it is settled by proof, none before). */
  async settlementsOf(claimId: bigint): Promise<Logged<Payment & { claimId: bigint; violated: boolean }>[]> {
    const logs = await this.chain.publicClient.getContractEvents({
      ...this.contract,
      eventName: "ClaimSettled",
      args: { claimId },
      fromBlock: this.fromBlock,
      toBlock: "latest",
      strict: true,
    });
    return logs.map(logged);
  }

  /** The SegmentProven events of a claim: every link proven for it, under every digest it was opened with. */
  async segmentLinksOf(claimId: bigint): Promise<Logged<SegmentLink>[]> {
    const logs = await this.chain.publicClient.getContractEvents({
      ...this.contract,
      eventName: "SegmentProven",
      args: { claimId },
      fromBlock: this.fromBlock,
      toBlock: "latest",
      strict: true,
    });
    return logs.map(logged);
  }

  /** The SegmentsProven events of a claim: every span proveSegments recorded for it, under every digest. */
  async segmentSpansOf(claimId: bigint): Promise<Logged<SegmentLink & { links: bigint }>[]> {
    const logs = await this.chain.publicClient.getContractEvents({
      ...this.contract,
      eventName: "SegmentsProven",
      args: { claimId },
      fromBlock: this.fromBlock,
      toBlock: "latest",
      strict: true,
    });
    return logs.map(logged);
  }

  /** The ClaimDefaulted events of a claim (one once it defaulted). */
  async defaultsOf(claimId: bigint): Promise<Logged<Payment & { claimId: bigint }>[]> {
    const logs = await this.chain.publicClient.getContractEvents({
      ...this.contract,
      eventName: "ClaimDefaulted",
      args: { claimId },
      fromBlock: this.fromBlock,
      toBlock: "latest",
      strict: true,
    });
    return logs.map(logged);
  }

  /** The SessionClosed event of a session, if it was closed. */
  async closeOf(sessionId: Hex): Promise<Logged<{ finalN: number; finalRoot: bigint }> | undefined> {
    const [l] = await this.chain.publicClient.getContractEvents({
      ...this.contract,
      eventName: "SessionClosed",
      args: { sessionId },
      fromBlock: this.fromBlock,
      toBlock: "latest",
      strict: true,
    });
    return l && logged(l);
  }

  // -------------------------------------------------------------------------------------------- plumbing

  /**
   * No eth_call simulation first: Hardhat runs calls at the latest block's time, not at a time set with
   * setNextBlockTimestamp, so a simulation would misjudge time fences. A revert still surfaces as viem's
   * ContractFunctionExecutionError naming the custom error (e.g. "CheckpointBudget(uint32 n, ...)"), from gas
   * estimation or from the automined transaction.
   */
  private async send<T, F extends WriteName>(
    functionName: F,
    args: ContractFunctionArgs<EscrowAbi, "nonpayable" | "payable", F>,
    eventName: ContractEventName<EscrowAbi>,
    value?: bigint,
  ): Sent<T> {
    const { gasUsed, txHash, receipt } = await this.sendTx(functionName, args, value);
    const logs = parseEventLogs({ abi: ESCROW_ABI, logs: receipt.logs, eventName }).filter((l) =>
      isAddressEqual(l.address, this.address),
    );
    if (logs.length !== 1)
      throw new ChainStateError(`expected one ${eventName} in ${txHash}`, {
        details: { event: eventName, txHash, found: logs.length },
      });
    return { gasUsed, txHash, ...(logs[0].args as T) };
  }

  private sender(functionName: string): Address {
    const wallet = this.wallet;
    if (!wallet) throw new Error(`EscrowClient.${functionName} needs a wallet: use .as(wallet)`);
    return wallet.account.address;
  }

  private async sendTx<F extends WriteName>(
    functionName: F,
    args: ContractFunctionArgs<EscrowAbi, "nonpayable" | "payable", F>,
    value?: bigint,
  ) {
    const wallet = this.wallet;
    if (!wallet) throw new Error(`EscrowClient.${functionName} needs a wallet: use .as(wallet)`);
    // viem cannot narrow `value` (payable or not) through a generic function name; the ABI still checks
    // `functionName` and `args` at every call site above.
    const request = { address: this.address, abi: ESCROW_ABI, functionName, args, value } as Parameters<
      Wallet["writeContract"]
    >[0];
    const txHash = await wallet.writeContract(request);
    const receipt = await receiptOf(this.chain, txHash);
    return { gasUsed: receipt.gasUsed, txHash, receipt };
  }
}
