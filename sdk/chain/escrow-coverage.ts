// Coverage, as the escrow decides it at openSession (contracts/Escrow.sol): which of a provider's promises can
// cover a new session, what each named promise guarantees a session, and the release of earmarks whose claim
// windows ended. EscrowClient's coverage methods delegate here, so escrow.ts stays the typed plumbing.
import type { Address, Hex } from "viem";
import { Coverage, type PairCoverage, type PromiseInfo, type SessionCoverage } from "./escrow-types.js";
import type { ESCROW_ABI } from "./generated/escrow-abi.js";
import type { ChainHandle } from "./network.js";

/**
 * What coverage reads and sends through an EscrowClient, by shape: escrow.ts delegates its coverage methods here,
 * so this file names the members it needs instead of importing the class back.
 */
export interface CoverageClient {
  readonly chain: ChainHandle;
  readonly address: Address;
  readonly abi: typeof ESCROW_ABI;
  readonly fromBlock: bigint;
  promise(promiseId: bigint): Promise<PromiseInfo>;
  coverageOf(sessionId: Hex, promiseId: bigint): Promise<PairCoverage>;
  claimDeadline(sessionId: Hex, promiseId: bigint): Promise<bigint | null>;
  releaseCoverage(sessionId: Hex, promiseId: bigint): Promise<unknown>;
}

/** openSession's `cover`: promise ids, or "auto" for every active promise of the provider pinned to the profile. */
export type CoverOption = readonly bigint[] | "auto";

/** A promise as registered (PromiseRegistered), for the provider's own choice of what covers a session. */
export interface RegisteredPromise {
  promiseId: bigint;
  predicateId: number;
  paramsHash: bigint;
  profileHash: bigint;
}

/**
 * The provider's promises that are not retired, in id order: PromiseRegistered events since the client's
 * fromBlock, each read once for its retirement. One home for openSession's "auto" cover and Session.open's
 * profile check (sdk/provider/session-promises.ts).
 */
export async function activeRegistrations(
  escrow: CoverageClient,
  provider: Address,
): Promise<RegisteredPromise[]> {
  const logs = await escrow.chain.publicClient.getContractEvents({
    address: escrow.address,
    abi: escrow.abi,
    eventName: "PromiseRegistered",
    args: { provider },
    fromBlock: escrow.fromBlock,
    toBlock: "latest",
    strict: true,
  });
  const found = await Promise.all(
    logs.map(async ({ args: { promiseId, predicateId, paramsHash, profileHash } }) =>
      (await escrow.promise(promiseId)).retiredAt === 0n
        ? { promiseId, predicateId, paramsHash, profileHash }
        : undefined,
    ),
  );
  return found
    .filter((p): p is RegisteredPromise => p !== undefined)
    .sort((a, b) => (a.promiseId < b.promiseId ? -1 : a.promiseId > b.promiseId ? 1 : 0));
}

/** The ids of the provider's active promises pinned to `profileHash`: what "auto" covers a session with. */
export async function activePromisesOf(
  escrow: CoverageClient,
  provider: Address,
  profileHash: bigint,
): Promise<bigint[]> {
  return (await activeRegistrations(escrow, provider))
    .filter((p) => p.profileHash === profileHash)
    .map((p) => p.promiseId);
}

/** Every promise named when the session opened (its SessionCovered events), in the order it named them. */
export async function sessionCoverage(escrow: CoverageClient, sessionId: Hex): Promise<SessionCoverage[]> {
  const logs = await escrow.chain.publicClient.getContractEvents({
    address: escrow.address,
    abi: escrow.abi,
    eventName: "SessionCovered",
    args: { sessionId },
    fromBlock: escrow.fromBlock,
    toBlock: "latest",
    strict: true,
  });
  return logs.map(({ args: { promiseId, covered, amount, available } }) => ({
    promiseId,
    covered,
    amount,
    available,
  }));
}

/**
 * Releases every earmark of `promiseId` whose claim window has ended with no claim open (releaseCoverage), so
 * that the payouts return to the free reserve; returns the sessions released. Sends from the client's wallet;
 * anyone may, but the provider is the one whose capital it frees.
 */
export async function releaseExpired(escrow: CoverageClient, promiseId: bigint): Promise<Hex[]> {
  const logs = await escrow.chain.publicClient.getContractEvents({
    address: escrow.address,
    abi: escrow.abi,
    eventName: "SessionCovered",
    args: { promiseId },
    fromBlock: escrow.fromBlock,
    toBlock: "latest",
    strict: true,
  });
  const now = (await escrow.chain.publicClient.getBlock()).timestamp;
  const released: Hex[] = [];
  for (const { args } of logs) {
    if (!args.covered) continue;
    const { coverage, openClaimId } = await escrow.coverageOf(args.sessionId, promiseId);
    if (coverage !== Coverage.Earmarked || openClaimId !== 0n) continue;
    const deadline = await escrow.claimDeadline(args.sessionId, promiseId);
    if (deadline === null || deadline >= now) continue;
    await escrow.releaseCoverage(args.sessionId, promiseId);
    released.push(args.sessionId);
  }
  return released;
}
