// Registering a promise: its θ parsed and checked against the profile by its predicate, the registration sent
// from the provider's account, and θ kept in the provider's store (the prover reads it back to answer claims).
import type { EscrowClient } from "../chain/escrow.js";
import type { Deployment } from "../chain/deployment.js";
import { paramsHashOf, predicateById } from "../core/predicates/index.js";
import { profileHash, type EncodingProfile } from "../core/profile.js";
import { ZkvaiError } from "../core/errors.js";
import type { TraceStore } from "./store.js";

/** The deployment has no verifier, whole-claim or segment, for the promise's predicate: no claim could settle. */
export class NoVerifierError extends ZkvaiError {
  static override readonly code: string = "NO_VERIFIER";
  override name = "NoVerifierError";
}

export interface PromiseSpec {
  predicate: string;
  theta: unknown;
  profile: EncodingProfile;
  payout: bigint;
  /** Initial reserve; at least the payout. */
  reserve: bigint;
}

/** Registers a promise from `escrow`'s account and keeps its θ in the provider's store. */
export async function registerPromise(
  deployment: Pick<Deployment, "verifiers" | "segmentVerifiers">,
  escrow: EscrowClient,
  store: TraceStore,
  spec: PromiseSpec,
) {
  const predicate = predicateById(spec.predicate);
  const theta = predicate.parseTheta(spec.theta);
  predicate.checkProfile(theta, spec.profile);
  // The escrow takes a promise served by whole-claim verifiers, a segment verifier, or both.
  const served = [...deployment.verifiers, ...(deployment.segmentVerifiers ?? [])];
  if (!served.some((v) => v.predicate === predicate.id))
    throw new NoVerifierError(
      `no verifier deployed for ${predicate.id}, whole-claim or segment; build its circuits with \`npm run setup\` and deploy again`,
    );
  const paramsHash = paramsHashOf(predicate, theta);
  const tx = await escrow.registerPromise({
    predicateId: predicate.code,
    paramsHash,
    profileHash: profileHash(spec.profile),
    payout: spec.payout,
    value: spec.reserve,
  });
  store.putPromise({ promiseId: tx.promiseId, predicate: predicate.id, theta, paramsHash });
  return tx;
}
