// Shared escrow fixture for the contract tests: one escrow over the generated Poseidon(3), MockVerifiers (and a
// MockVerifier3 as AAP-4's segment verifier), named wallets, block-time control, and the money ledger that P6 is
// checked against.
import { beforeAll, beforeEach } from "vitest";
import { BaseError, ContractFunctionRevertedError, parseEther, type Abi, type Address, type Hex } from "viem";
import {
  ClaimStatus,
  type CoverOption,
  deployEscrow,
  deployPoseidon3,
  EscrowClient,
  scopedSessionId,
} from "../../sdk/chain/escrow.js";
import { deployContract, readArtifact } from "../../sdk/chain/artifacts.js";
import { signReceipt } from "../../sdk/chain/receipts.js";
import { CHECKPOINT_INTERVAL, checkpointSlots } from "../../sdk/core/checkpoints.js";
import type { Receipt } from "../../sdk/core/receipt.js";
import { embeddedChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { type Wallet } from "../../sdk/chain/network.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";

export const DAY = 24n * 3600n;
export const PROOF_WINDOW = 3n * DAY;
export const CLAIM_WINDOW = 30n * DAY;
export const PAYOUT = parseEther("1");
export const BOND = parseEther("0.1");
export const PROFILE = 77n;
export const PARAMS = 1234n;
export const PROOF = [11n, 12n, 13n, 14n, 15n, 16n, 17n, 18n] as const;

/** A session id scoped to `provider` (default: the fixture's provider, Hardhat's account 0). */
export const sid = (label: string, provider: Address = HARDHAT_ACCOUNT_0): Hex =>
  scopedSessionId(provider, label);

export interface Fixture {
  chain: DevChainHandle;
  provider: Wallet;
  user: Wallet;
  stranger: Wallet;
  otherProvider: Wallet;
  otherUser: Wallet;
  /** Sends as the provider; `.as(wallet)` for anyone else. */
  escrow: EscrowClient;
  asUser: EscrowClient;
  asStranger: EscrowClient;
  verifier: Address;
  mockAbi: Abi;
  /** AAP-4's segment verifier: a MockVerifier3 (3 public inputs) of SEGMENT_SIZE records per segment. */
  segmentVerifier: Address;
  mock3Abi: Abi;
  /** The escrow's CHECKPOINT_INTERVAL. */
  interval: number;
  /** The escrow's RECEIPT_WINDOW (seconds): settle waits this long after a session's close. */
  receiptWindow: number;
}

/** The registry's one circuit: AAP-4 up to 64 records. */
export const CAPACITY = 64;
/** The segment registry's one circuit: AAP-4 in segments of 4 records. */
export const SEGMENT_SIZE = 4;

/**
 * Deploys once per file and reverts the chain to that point before every test. The checkpoint budget's
 * interval is production's (10) unless `checkpointInterval` says otherwise. RECEIPT_WINDOW is 0 unless
 * `receiptWindow` says otherwise, so the MockVerifier's settle tests may settle right after close (production
 * waits DEFAULT_RECEIPT_WINDOW_S; test/contracts/receipt-window.test.ts checks the wait itself).
 */
export function escrowFixture(opts: { checkpointInterval?: number; receiptWindow?: number } = {}): Fixture {
  const fx = {} as Fixture;
  let snapshot: Hex;
  beforeAll(async () => {
    fx.chain = await embeddedChain();
    [fx.provider, fx.user, fx.stranger, fx.otherProvider, fx.otherUser] = fx.chain.wallets;
    const poseidon3 = (await deployPoseidon3(fx.chain, fx.provider)).address;
    // The registry: one switchable verifier for AAP-4 (predicate 4), never changed like every registry entry.
    fx.verifier = (await deployContract(fx.chain, fx.provider, "MockVerifier")).address;
    // And one segment verifier for it (test/contracts/segments.test.ts); nothing else calls it.
    fx.segmentVerifier = (await deployContract(fx.chain, fx.provider, "MockVerifier3")).address;
    fx.interval = opts.checkpointInterval ?? CHECKPOINT_INTERVAL;
    fx.receiptWindow = opts.receiptWindow ?? 0;
    const checkpoints = checkpointSlots(CAPACITY, fx.interval);
    const { address } = await deployEscrow(fx.chain, fx.provider, {
      poseidon3,
      checkpointInterval: fx.interval,
      receiptWindow: fx.receiptWindow,
      registry: [{ predicateId: 4, capacity: CAPACITY, checkpoints, verifier: fx.verifier }],
      segments: [
        {
          predicateId: 4,
          segmentSize: SEGMENT_SIZE,
          checkpoints: checkpointSlots(SEGMENT_SIZE, fx.interval),
          verifier: fx.segmentVerifier,
        },
      ],
    });
    fx.escrow = await EscrowClient.connect(fx.chain, address, fx.provider);
    fx.asUser = fx.escrow.as(fx.user);
    fx.asStranger = fx.escrow.as(fx.stranger);
    fx.mockAbi = (await readArtifact("MockVerifier")).abi;
    fx.mock3Abi = (await readArtifact("MockVerifier3")).abi;
    snapshot = await fx.chain.testClient.snapshot();
  });
  beforeEach(async () => {
    await fx.chain.testClient.revert({ id: snapshot });
    snapshot = await fx.chain.testClient.snapshot(); // a Hardhat snapshot is spent by reverting to it
  });
  return fx;
}

/** Whether the MockVerifier accepts the next proofs. */
export async function proofsValid(fx: Fixture, valid: boolean) {
  const hash = await fx.provider.writeContract({
    address: fx.verifier,
    abi: fx.mockAbi,
    functionName: "setResult",
    args: [valid],
  });
  await fx.chain.publicClient.waitForTransactionReceipt({ hash });
}

/** Whether the segment MockVerifier3 accepts the next proofs. */
export async function segmentProofsValid(fx: Fixture, valid: boolean) {
  const hash = await fx.provider.writeContract({
    address: fx.segmentVerifier,
    abi: fx.mock3Abi,
    functionName: "setResult",
    args: [valid],
  });
  await fx.chain.publicClient.waitForTransactionReceipt({ hash });
}

/**
 * Arms the segment MockVerifier3 to accept only `proof` against exactly these 3 public inputs, [claimDigest,
 * stateIn, stateOut] (strict mode).
 */
export async function segmentProofFor(
  fx: Fixture,
  inputs: readonly bigint[],
  proof: readonly bigint[] = PROOF,
) {
  const hash = await fx.provider.writeContract({
    address: fx.segmentVerifier,
    abi: fx.mock3Abi,
    functionName: "expect",
    args: [proof, inputs],
  });
  await fx.chain.publicClient.waitForTransactionReceipt({ hash });
}

export async function register(
  fx: Fixture,
  o: { from?: Wallet; payout?: bigint; reserve?: bigint; profile?: bigint } = {},
): Promise<bigint> {
  const { promiseId } = await fx.escrow.as(o.from ?? fx.provider).registerPromise({
    predicateId: 4,
    paramsHash: PARAMS,
    profileHash: o.profile ?? PROFILE,
    payout: o.payout ?? PAYOUT,
    value: o.reserve,
  });
  return promiseId;
}

/**
 * Opens a session for `user` (default fx.user), with one checkpoint unless told otherwise, and closes it one
 * record past the last checkpoint. The i-th checkpoint (from 1) is at interval·(i−1) + 2, within the budget.
 * `cover`: the promises named at open (default "auto": every active promise of the opener with PROFILE; each
 * one's payout is earmarked when its free reserve holds it).
 */
export async function session(
  fx: Fixture,
  label: string,
  o: {
    user?: Wallet | Address;
    from?: Wallet;
    checkpoints?: number;
    close?: boolean;
    cover?: CoverOption;
  } = {},
): Promise<Hex> {
  const as = fx.escrow.as(o.from ?? fx.provider);
  const sessionId = sid(label, (o.from ?? fx.provider).account!.address);
  const user = typeof o.user === "string" ? o.user : (o.user ?? fx.user).account.address;
  await as.openSession(sessionId, user, PROFILE, o.cover);
  const k = o.checkpoints ?? 1;
  const at = (i: number) => fx.interval * (i - 1) + 2;
  for (let i = 1; i <= k; i++) await as.checkpoint(sessionId, at(i), 1000n + BigInt(i));
  if (o.close !== false) await as.closeSession(sessionId, k ? at(k) + 1 : 1, 555n);
  return sessionId;
}

/** A receipt signed by `signer` (default: the fixture's provider) for this fixture's escrow and chain. */
export async function signed(
  fx: Fixture,
  receipt: Receipt,
  o: { signer?: Wallet; chainId?: number; escrow?: Address } = {},
): Promise<Hex> {
  const target = { chainId: o.chainId ?? fx.chain.chainId, escrow: o.escrow ?? fx.escrow.address };
  return signReceipt(o.signer ?? fx.provider, target, receipt);
}

export async function claim(
  fx: Fixture,
  sessionId: Hex,
  promiseId: bigint,
  o: { by?: Wallet; bond?: bigint } = {},
) {
  return (await fx.escrow.as(o.by ?? fx.user).fileClaim(sessionId, promiseId, o.bond ?? BOND)).claimId;
}

/** The next transaction is mined at exactly `t`. */
export async function at(fx: Fixture, t: bigint) {
  await fx.chain.testClient.setNextBlockTimestamp({ timestamp: t });
}

export async function latest(fx: Fixture): Promise<bigint> {
  return (await fx.chain.publicClient.getBlock()).timestamp;
}

export async function closedAt(fx: Fixture, sessionId: Hex): Promise<bigint> {
  return (await fx.escrow.session(sessionId)).closedAt;
}

export async function filedAt(fx: Fixture, claimId: bigint): Promise<bigint> {
  return (await fx.escrow.claim(claimId)).filedAt;
}

/** Runs `body` and rolls the chain back afterwards, to try both sides of a fence on the same state. */
export async function whatIf<T>(fx: Fixture, body: () => Promise<T>): Promise<T> {
  const id = await fx.chain.testClient.snapshot();
  try {
    return await body();
  } finally {
    await fx.chain.testClient.revert({ id });
  }
}

export interface Ledger {
  balance: bigint;
  /** Every promise's reserve: its free part plus what is earmarked for covered sessions. */
  reserves: bigint;
  /** The earmarked part of `reserves`: payout × earmarks, summed over the promises. */
  earmarked: bigint;
  openBonds: bigint;
  credits: bigint;
}

/** The escrow's ether and what it owes, summed over every promise, every claim and the given accounts. */
export async function ledger(fx: Fixture, accounts: readonly Address[]): Promise<Ledger> {
  const e = fx.escrow;
  const pc = (await fx.chain.publicClient.readContract({
    address: e.address,
    abi: e.abi,
    functionName: "promiseCount",
  })) as bigint;
  const cc = (await fx.chain.publicClient.readContract({
    address: e.address,
    abi: e.abi,
    functionName: "claimCount",
  })) as bigint;
  let reserves = 0n;
  let earmarked = 0n;
  for (let i = 1n; i <= pc; i++) {
    const p = await e.promise(i);
    reserves += p.reserve;
    earmarked += p.payout * BigInt(p.earmarks);
  }
  let openBonds = 0n;
  for (let i = 1n; i <= cc; i++) {
    const c = await e.claim(i);
    if (c.status === ClaimStatus.Open) openBonds += c.bond;
  }
  let credits = 0n;
  for (const a of new Set(accounts)) credits += await e.credits(a);
  const balance = await fx.chain.publicClient.getBalance({ address: e.address });
  return { balance, reserves, earmarked, openBonds, credits };
}

export async function expectSolvent(fx: Fixture, accounts: readonly Address[]) {
  const l = await ledger(fx, accounts);
  if (l.balance !== l.reserves + l.openBonds + l.credits)
    throw new Error(`escrow holds ${l.balance}, owes ${JSON.stringify(l, (_, v) => String(v))}`);
  if (l.reserves < l.earmarked)
    throw new Error(`reserves ${l.reserves} below the ${l.earmarked} earmarked for covered sessions`);
  return l;
}

export const addressesOf = (fx: Fixture) =>
  [fx.provider, fx.user, fx.stranger, fx.otherProvider, fx.otherUser].map((w) => w.account.address);

/** The custom error a call reverted with, and its arguments (an Error when it did not revert with one). */
export async function customRevert(
  call: Promise<unknown>,
): Promise<{ name: string; args: readonly unknown[] }> {
  const e = await call.then(
    () => undefined,
    (x: unknown) => x,
  );
  const revert = e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null;
  if (!(revert instanceof ContractFunctionRevertedError) || !revert.data)
    throw new Error(`expected a custom-error revert, got ${String(e)}`);
  return { name: revert.data.errorName, args: revert.data.args ?? [] };
}
