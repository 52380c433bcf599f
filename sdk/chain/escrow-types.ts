// What the escrow's reads and events return, as the SDK types them (sdk/chain/escrow.ts reads them).
import type { Address, Hex } from "viem";

export enum ClaimStatus {
  None = 0,
  Open = 1,
  Settled = 2,
  Defaulted = 3,
}

export interface PromiseInfo {
  provider: Address;
  predicateId: number;
  nonce: bigint;
  paramsHash: bigint;
  profileHash: bigint;
  payout: bigint;
  reserve: bigint;
  /** The promise's own whole-claim verifiers (settle calls them), copied from the registry at registration. */
  capacities: readonly number[];
  verifiers: readonly Address[];
  /** The promise's own copy of its predicate's segment verifier (proveSegment calls it); the zero address: none. */
  segmentVerifier: Address;
  /** Block time of retirePromise; 0n while the promise is active. */
  retiredAt: bigint;
  retiredNonce: bigint;
  /** Sessions whose coverage by this promise is earmarked: payout × earmarks of the reserve is locked. */
  earmarks: number;
}

/** A (session, promise) pair's coverage, as the escrow's `Coverage` enum (contracts/EscrowBase.sol). */
export enum Coverage {
  /** The promise does not cover the session: not named at open, or named without free reserve for it. */
  None = 0,
  /** The payout is locked for this session since it opened; only a claim on the pair can spend it. */
  Earmarked = 1,
  /** A claim on the pair was settled or defaulted. */
  Resolved = 2,
  /** The claim window ended with no claim; the payout went back to the free reserve. */
  Released = 3,
}

/** What one promise guarantees one session (EscrowClient.coverageOf). */
export interface PairCoverage {
  coverage: Coverage;
  /** The claim open on the pair; 0n when none. */
  openClaimId: bigint;
  /** The amount earmarked for the session: the payout while Earmarked, else 0n. */
  amount: bigint;
}

/** One promise named at openSession (its SessionCovered event). */
export interface SessionCoverage {
  promiseId: bigint;
  /** Whether its payout was earmarked for the session; false: its free reserve held less than the payout. */
  covered: boolean;
  /** The payout earmarked (0n when not covered). */
  amount: bigint;
  /** The promise's free reserve after this session's earmark. */
  available: bigint;
}

export interface SessionInfo {
  provider: Address;
  user: Address;
  profileHash: bigint;
  lastN: number;
  checkpointCount: number;
  acc: bigint;
  closed: boolean;
  finalN: number;
  finalRoot: bigint;
  closedAt: bigint;
  nonce: bigint;
  /**
   * The user's one spare receipt is spent: the receipt outside the checkpoint rules (posted after close, or
   * before it with n ≤ lastN or beyond the budget). From then on a receipt must follow the rules before close,
   * and none is taken after close.
   */
  spareReceiptUsed: boolean;
}

/** One entry of a session's accumulator, as EscrowClient.checkpointsOf lists them in fold order. */
export interface FoldEntry {
  n: number;
  root: bigint;
  /** acc after this entry. */
  acc: bigint;
  /** The provider's checkpoint, or a receipt (signed by the provider) its user posted. */
  kind: "checkpoint" | "receipt";
  /**
   * The session's one spare receipt (always false for a checkpoint): posted after close, or before close
   * outside the checkpoint rules. Its n may be at or below an earlier entry's, or above finalN.
   */
  spare: boolean;
}

export interface ClaimInfo {
  sessionId: Hex;
  promiseId: bigint;
  claimant: Address;
  bond: bigint;
  filedAt: bigint;
  status: ClaimStatus;
}

/** A predicate's segment verifier (EscrowClient.segmentVerifier); null when it has none. */
export interface SegmentVerifierInfo {
  /** Records per segment: segment j covers records [j·segmentSize, min((j+1)·segmentSize, n)). */
  segmentSize: number;
  /** Fold entries the segment circuit holds: checkpointSlots(segmentSize). */
  checkpoints: number;
  verifier: Address;
}

/** The link proveSegment() recorded (its SegmentProven event), under the claim digest it was proven against. */
export interface SegmentLink {
  claimId: bigint;
  claimDigest: bigint;
  stateIn: bigint;
  stateOut: bigint;
}

/** claimDigestOf: the digest settleSegments() uses now, and the one openSegments() stored (0: not opened). */
export interface ClaimDigests {
  current: bigint;
  opened: bigint;
}

export interface TxResult {
  gasUsed: bigint;
  txHash: Hex;
}

/** openSession's transaction, with the coverage it decided: one entry per promise it named. */
export interface SessionOpenTx extends TxResult {
  coverage: readonly SessionCoverage[];
}

/** What settle() and claimDefault() credited, and to whom (withdrawn later with withdraw()). */
export interface Payment {
  beneficiary: Address;
  amount: bigint;
}

export interface RegisterPromiseArgs {
  predicateId: number;
  paramsHash: bigint;
  profileHash: bigint;
  payout: bigint;
  /** Initial reserve, at least `payout`; defaults to `payout`. */
  value?: bigint;
}

/** An event found in the escrow's logs, with where it was emitted. */
export interface Logged<T> {
  args: T;
  txHash: Hex;
  blockNumber: bigint;
  logIndex: number;
}

export interface ClaimFiledEvent {
  claimId: bigint;
  sessionId: Hex;
  promiseId: bigint;
  claimant: Address;
  bond: bigint;
}
