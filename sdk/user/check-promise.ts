// A user's check of a promise before relying on it (`vai promise check` is this behind argv): that the escrow and its
// Poseidon(3) are the ones built here, that every verifier the promise will be settled with runs the
// verifier the manifest's circuit compiles to (no proxy, no other code), that the promise's copy equals
// the escrow's registry, and how much reserve is not yet earmarked for open claims.
import type { Address } from "viem";
import { EscrowClient } from "../chain/escrow.js";
import { type ChainHandle } from "../chain/network.js";
import { PREDICATES } from "../core/predicates/index.js";
import type { Manifest } from "../../prover/artifacts/manifest.js";
import { SettlementInvalid } from "./evidence.js";
import { checkEscrowContracts, manifestCircuitAt } from "./verify-settlement.js";

export interface PromiseReport {
  promiseId: bigint;
  predicate: string;
  /** Reserve not earmarked for open claims: a new claim needs at least the payout. */
  available: bigint;
  payout: bigint;
  covered: boolean;
  verifiers: { capacity: number; address: Address; circuit: string }[];
  checks: string[];
}

/** Throws SettlementInvalid with the first check that failed. */
export async function checkPromise(opts: {
  chain: ChainHandle;
  escrow: Address;
  promiseId: bigint;
  manifest: Manifest;
}): Promise<PromiseReport> {
  const { chain, promiseId, manifest } = opts;
  const checks = await checkEscrowContracts(chain, opts.escrow);
  const escrow = await EscrowClient.connect(chain, opts.escrow);
  const p = await escrow.promise(promiseId).catch(() => {
    throw new SettlementInvalid(`promise ${promiseId} does not exist on escrow ${opts.escrow}`);
  });
  const predicate = Object.values(PREDICATES).find((d) => d.code === p.predicateId);
  if (!predicate)
    throw new SettlementInvalid(`promise ${promiseId} has unknown predicate id ${p.predicateId}`);
  const registry = await escrow.verifierSet(p.predicateId);
  const same =
    registry.capacities.join() === p.capacities.join() &&
    registry.verifiers.join().toLowerCase() === p.verifiers.join().toLowerCase();
  if (!same)
    throw new SettlementInvalid(
      `promise ${promiseId}'s verifiers differ from the escrow's registry for ${predicate.id}`,
    );
  if (!p.capacities.length)
    throw new SettlementInvalid(`the escrow's registry holds no ${predicate.id} verifier`);
  checks.push(
    `promise ${promiseId} (${predicate.id}) is settled by the registry's ${p.capacities.length} verifier(s)`,
  );
  const verifiers: PromiseReport["verifiers"] = [];
  for (const [i, capacity] of p.capacities.entries()) {
    const address = p.verifiers[i]!;
    const [circuit, entry] = await manifestCircuitAt(chain, manifest, predicate.id, capacity, address);
    verifiers.push({ capacity, address, circuit });
    checks.push(
      `verifier ${address} (≤ ${capacity} records) runs ${entry.verifierContract}, built for ${circuit}`,
    );
  }
  const available = await escrow.availableReserve(promiseId);
  const covered = available >= p.payout && p.retiredAt === 0n;
  checks.push(
    `reserve ${p.reserve} wei, of which ${available} wei is not earmarked for open claims (payout ${p.payout} wei)`,
  );
  return { promiseId, predicate: predicate.id, available, payout: p.payout, covered, verifiers, checks };
}
