// A user's check of a promise before relying on it (`vai promise check` is this behind argv): that the escrow and
// its Poseidon(3) are the package's contracts compiled, that every contract a claim on the promise can be
// settled through runs the verifier of the manifest circuit it claims to serve (its whole-claim verifiers and
// its segment verifier, each with every checksum `vai verify` checks: deployment-check.ts), and how much
// reserve is not yet earmarked for the sessions it covers. A promise served by segments alone is checked through its segment verifier.
import { isAddressEqual, zeroAddress, type Address, type Hex } from "viem";
import { Coverage, EscrowClient } from "../chain/escrow.js";
import { type ChainHandle } from "../chain/network.js";
import { PREDICATES } from "../core/predicates/index.js";
import { manifestPath as defaultManifestPath, type Manifest } from "../manifest/manifest.js";
import {
  checkEscrowContracts,
  checkVerifier,
  insecureKeys,
  type CheckedVerifier,
} from "./deployment-check.js";
import { SettlementInvalid } from "./errors.js";

export interface PromiseReport {
  promiseId: bigint;
  predicate: string;
  /** Reserve not earmarked for covered sessions: what can cover a new session (at least the payout each). */
  available: bigint;
  payout: bigint;
  covered: boolean;
  /**
   * Every verifier a claim can be settled through: whole-claim ones by capacity (settle), and the segment
   * verifier by records per segment (proveSegment, settleSegments).
   */
  verifiers: { kind: "claim" | "segment"; capacity: number; address: Address; circuit: string }[];
  /** The keys behind those verifiers are development keys: anyone can forge proofs, so the promise binds nothing. */
  insecureKeys: boolean;
  /** With `sessionId`: what the promise owes that session (docs/PROTOCOL.md "Coverage"). */
  session?: SessionCoverageReport;
  checks: string[];
}

/** One session's coverage by the promise, read from the escrow's storage (coverageOf, claimDeadline). */
export interface SessionCoverageReport {
  sessionId: Hex;
  /** The only account that may claim on the session (fileClaim checks it): the user must see it is theirs. */
  user: Address;
  /** earmarked: the payout is locked for this session; none: the promise does not cover it; resolved: a claim on
   * it was settled or defaulted; released: its claim window ended unclaimed. */
  coverage: "none" | "earmarked" | "resolved" | "released";
  /** The amount earmarked for the session (the payout while earmarked, else 0). */
  amount: bigint;
  /** The claim open on the pair, if any. */
  openClaimId: bigint | null;
  /** Last second a claim can be filed; null while the session is open. */
  claimDeadline: bigint | null;
  /** The deadline has passed (chain time): an earmark still shown can only be released, not claimed. */
  windowEnded: boolean;
}

/** Throws SettlementInvalid (or SettlementUncheckable) with the first check that failed. */
export async function checkPromise(opts: {
  chain: ChainHandle;
  escrow: Address;
  promiseId: bigint;
  manifest: Manifest;
  /** Where the manifest was read from: its paths are relative to the build it names; for messages too. */
  manifestPath?: string;
  /** Also report what the promise owes this session. */
  sessionId?: Hex;
}): Promise<PromiseReport> {
  const { chain, promiseId, manifest } = opts;
  const manifestPath = opts.manifestPath ?? defaultManifestPath();
  const checks = await checkEscrowContracts(chain, opts.escrow);
  const escrow = await EscrowClient.connect(chain, opts.escrow);
  const p = await escrow.promise(promiseId).catch(() => {
    throw new SettlementInvalid(`promise ${promiseId} does not exist on escrow ${opts.escrow}`);
  });
  const predicate = Object.values(PREDICATES).find((d) => d.code === p.predicateId);
  if (!predicate)
    throw new SettlementInvalid(`promise ${promiseId} has unknown predicate id ${p.predicateId}`);
  // The escrow's code is checked above. getPromise reports the promise's own copies, which settle and
  // proveSegment call; registerPromise made them from the registries, read here from storage, so entries the
  // deployer appended after deployment (appendPredicateVerifiers) are covered like the constructor's. A
  // predicate's entries never change once written, so the two must agree.
  const registry = await escrow.verifierSet(p.predicateId);
  const same =
    registry.capacities.join() === p.capacities.join() &&
    registry.verifiers.join().toLowerCase() === p.verifiers.join().toLowerCase();
  if (!same)
    throw new SettlementInvalid(
      `promise ${promiseId}'s verifiers differ from the escrow's registry for ${predicate.id}`,
    );
  const segment = await escrow.segmentVerifier(p.predicateId);
  if (!isAddressEqual(p.segmentVerifier, segment?.verifier ?? zeroAddress))
    throw new SettlementInvalid(
      `promise ${promiseId}'s segment verifier ${p.segmentVerifier} differs from the escrow's registry for ${predicate.id}`,
    );
  if (!p.capacities.length && !segment)
    throw new SettlementInvalid(`the escrow holds no ${predicate.id} verifier, whole-claim or segment`);
  checks.push(
    `promise ${promiseId} (${predicate.id}) settles through the escrow's ${p.capacities.length} whole-claim verifier(s)` +
      (segment ? ` and its segment verifier` : ", and by no segment verifier"),
  );

  const verifiers: PromiseReport["verifiers"] = [];
  const checked: CheckedVerifier[] = [];
  const common = { chain, manifest, manifestPath, predicate: predicate.id, checks };
  for (const [i, capacity] of p.capacities.entries()) {
    const address = p.verifiers[i]!;
    const v = await checkVerifier({ ...common, capacity, verifier: address, kind: "claim" });
    verifiers.push({ kind: "claim", capacity, address, circuit: v.circuit });
    checked.push(v);
  }
  if (segment) {
    const { segmentSize: capacity, verifier: address } = segment;
    const v = await checkVerifier({ ...common, capacity, verifier: address, kind: "segment" });
    verifiers.push({ kind: "segment", capacity, address, circuit: v.circuit });
    checked.push(v);
  }

  const available = await escrow.availableReserve(promiseId);
  const covered = available >= p.payout && p.retiredAt === 0n;
  checks.push(
    `reserve ${p.reserve} wei, of which ${available} wei is not earmarked for sessions it covers (payout ${p.payout} wei)`,
  );
  const session =
    opts.sessionId === undefined ? undefined : await sessionCoverage(escrow, opts.sessionId, promiseId);
  if (session)
    checks.push(
      `session ${session.sessionId}: ${session.coverage}${session.coverage === "earmarked" ? ` (${session.amount} wei locked for it)` : ""}`,
    );
  return {
    promiseId,
    predicate: predicate.id,
    ...(session ? { session } : {}),
    available,
    payout: p.payout,
    covered,
    verifiers,
    insecureKeys: insecureKeys(
      manifest,
      checked.map((v) => v.entry),
    ),
    checks,
  };
}

async function sessionCoverage(
  escrow: EscrowClient,
  sessionId: Hex,
  promiseId: bigint,
): Promise<SessionCoverageReport> {
  const session = await escrow.session(sessionId).catch(() => undefined);
  if (!session || session.provider === zeroAddress)
    throw new SettlementInvalid(`session ${sessionId} was never opened on escrow ${escrow.address}`);
  const { coverage, amount, openClaimId } = await escrow.coverageOf(sessionId, promiseId);
  const names = {
    [Coverage.None]: "none",
    [Coverage.Earmarked]: "earmarked",
    [Coverage.Resolved]: "resolved",
    [Coverage.Released]: "released",
  } as const;
  const claimDeadline = await escrow.claimDeadline(sessionId, promiseId);
  const now = (await escrow.chain.publicClient.getBlock()).timestamp;
  return {
    sessionId,
    user: session.user,
    coverage: names[coverage],
    amount,
    openClaimId: openClaimId === 0n ? null : openClaimId,
    claimDeadline,
    windowEnded: claimDeadline !== null && claimDeadline < now,
  };
}
