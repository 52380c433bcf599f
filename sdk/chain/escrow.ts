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
import {
  ClaimStatus,
  type ClaimFiledEvent,
  type ClaimInfo,
  type FoldEntry,
  type Logged,
  type Payment,
  type PromiseInfo,
  type RegisterPromiseArgs,
  type SegmentLink,
  type ClaimDigests,
  type SegmentVerifierInfo,
  type SessionInfo,
  type TxResult,
} from "./escrow-types.js";
import { ESCROW_ABI } from "./generated/escrow-abi.js";
import type { ChainHandle, Wallet } from "./network.js";

export type { ProofWords, PublicInputs } from "../core/claim.js";
type EscrowAbi = typeof ESCROW_ABI;
type WriteName = ContractFunctionName<EscrowAbi, "nonpayable" | "payable">;

export * from "./escrow-deploy.js";

// ------------------------------------------------------------------------------------------------ escrow client

export {
  ClaimStatus,
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

/** A mined log (strict decoding) as the SDK reports events: its arguments and where it was emitted. */
function logged<T>(l: { args: T; transactionHash: Hex; blockNumber: bigint; logIndex: number }): Logged<T> {
  return { args: l.args, txHash: l.transactionHash, blockNumber: l.blockNumber, logIndex: l.logIndex };
}

function claimStatus(code: number): ClaimStatus {
  if (!(code in ClaimStatus)) throw new Error(`the escrow reported an unknown claim status ${code}`);
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

  openSession(sessionId: Hex, user: Address, profileHash: bigint): Sent<{ nonce: bigint }> {
    return this.send("openSession", [sessionId, user, profileHash], "SessionOpened");
  }

  checkpoint(sessionId: Hex, n: number, root: bigint): Sent<{ n: number; root: bigint; acc: bigint }> {
    return this.send("checkpoint", [sessionId, n, root], "Checkpointed");
  }

  /**
   * The session's user posts a receipt the provider signed (sdk/chain/receipts.ts signReceipt), at any time,
   * claims open or not. Before close, one that follows a checkpoint's rules (n > lastN, the budget) folds as a
   * checkpoint (`spare: false`); any other, before close or after, takes the session's one spare entry
   * (`spare: true`: any n ≥ 1, raising lastN before close when above it). With the spare spent it reverts with
   * the rule's error before close (CheckpointNotIncreasing, CheckpointBudget), SpareReceiptUsed after.
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

  fileClaim(sessionId: Hex, promiseId: bigint, bond: bigint): Sent<{ claimId: bigint; bond: bigint }> {
    return this.send("fileClaim", [sessionId, promiseId], "ClaimFiled", bond);
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

  claimDefault(claimId: bigint): Sent<Payment> {
    return this.send("claimDefault", [claimId], "ClaimDefaulted");
  }

  /** Provider only: ends new coverage; claims on earlier sessions close 30 days later at the latest. */
  retirePromise(promiseId: bigint): Sent<{ retiredAt: bigint; nonce: bigint }> {
    return this.send("retirePromise", [promiseId], "PromiseRetired");
  }

  /** Provider only, once, 30 days after retirement with no claim open: credits the rest of the reserve. */
  withdrawReserve(promiseId: bigint): Sent<{ provider: Address; amount: bigint }> {
    return this.send("withdrawReserve", [promiseId], "ReserveWithdrawn");
  }

  withdraw(): Sent<{ account: Address; amount: bigint }> {
    return this.send("withdraw", [], "Withdrawn");
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

  /** The promise's reserve not earmarked for open claims: a new claim needs at least the payout. */
  availableReserve(promiseId: bigint): Promise<bigint> {
    return this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "availableReserve",
      args: [promiseId],
    });
  }

  /** The registry's verifiers for a predicate, by ascending capacity (fixed when the escrow was deployed). */
  async verifierSet(predicateId: number): Promise<{ capacities: number[]; verifiers: Address[] }> {
    const [capacities, verifiers] = await this.chain.publicClient.readContract({
      ...this.contract,
      functionName: "verifierSet",
      args: [predicateId],
    });
    return { capacities: [...capacities], verifiers: [...verifiers] };
  }

  /** The predicate's segment verifier, fixed at deployment; null when its promises settle by single proofs only. */
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
    const wallet = this.wallet;
    if (!wallet) throw new Error(`EscrowClient.${functionName} needs a wallet: use .as(wallet)`);
    const { address } = this;
    // viem cannot narrow `value` (payable or not) through a generic function name; the ABI still checks
    // `functionName` and `args` at every call site above.
    const request = { address, abi: ESCROW_ABI, functionName, args, value } as Parameters<
      Wallet["writeContract"]
    >[0];
    const hash = await wallet.writeContract(request);
    const receipt = await receiptOf(this.chain, hash);
    const logs = parseEventLogs({ abi: ESCROW_ABI, logs: receipt.logs, eventName }).filter((l) =>
      isAddressEqual(l.address, address),
    );
    if (logs.length !== 1) throw new Error(`expected one ${eventName} in ${hash}`);
    return { gasUsed: receipt.gasUsed, txHash: hash, ...(logs[0].args as T) };
  }
}
