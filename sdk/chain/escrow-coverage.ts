// Coverage, as the escrow decides it at openSession (contracts/Escrow.sol): which of a provider's promises can
// cover a new session, what each named promise guarantees a session, and the release of earmarks whose claim
// windows ended. EscrowClient's coverage methods delegate here, so escrow.ts stays the typed plumbing.
import type { Address, Hex } from "viem";
import type { EscrowClient } from "./escrow.js";
import { Coverage, type SessionCoverage } from "./escrow-types.js";

/** openSession's `cover`: promise ids, or "auto" for every active promise of the provider pinned to the profile. */
export type CoverOption = readonly bigint[] | "auto";

/**
 * The provider's promises that openSession would take for a session with this profile: registered by `provider`,
 * pinned to `profileHash`, not retired; ascending ids. Whether each has free reserve for one more session is
 * the escrow's call, made atomically at open (SessionCovered.covered).
 */
export async function activePromisesOf(
  escrow: EscrowClient,
  provider: Address,
  profileHash: bigint,
): Promise<bigint[]> {
  const logs = await escrow.chain.publicClient.getContractEvents({
    address: escrow.address,
    abi: escrow.abi,
    eventName: "PromiseRegistered",
    args: { provider },
    fromBlock: escrow.fromBlock,
    toBlock: "latest",
    strict: true,
  });
  const candidates = logs.filter((l) => l.args.profileHash === profileHash).map((l) => l.args.promiseId);
  const active = await Promise.all(
    candidates.map(async (id) => ((await escrow.promise(id)).retiredAt === 0n ? id : undefined)),
  );
  return active.filter((id): id is bigint => id !== undefined).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every promise named when the session opened (its SessionCovered events), in the order it named them. */
export async function sessionCoverage(escrow: EscrowClient, sessionId: Hex): Promise<SessionCoverage[]> {
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
export async function releaseExpired(escrow: EscrowClient, promiseId: bigint): Promise<Hex[]> {
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
