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
  capacities: readonly number[];
  verifiers: readonly Address[];
  /** Block time of retirePromise; 0n while the promise is active. */
  retiredAt: bigint;
  retiredNonce: bigint;
  /** Claims filed and not yet settled, defaulted or withdrawn. */
  openClaims: number;
  reserveWithdrawn: boolean;
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
}

export interface ClaimInfo {
  sessionId: Hex;
  promiseId: bigint;
  claimant: Address;
  bond: bigint;
  filedAt: bigint;
  status: ClaimStatus;
}

export interface TxResult {
  gasUsed: bigint;
  txHash: Hex;
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
