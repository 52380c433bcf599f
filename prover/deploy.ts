// Puts a zkVAI escrow on a chain: the on-chain Poseidon, one verifier per built
// circuit (from the manifest), and the Escrow, whose verifier registry is that set,
// fixed at deployment; and registers promises against it by predicate.
import type { Address } from "viem";
import {
  EscrowClient,
  deployContract,
  deployEscrow,
  deployPoseidon3,
  type ChainHandle,
  type Wallet,
} from "../sdk/chain/escrow.js";
import { paramsHashOf, predicateById } from "../sdk/core/predicates/index.js";
import { profileHash, type EncodingProfile } from "../sdk/core/profile.js";
import type { TraceStore } from "../sdk/store.js";
import { loadManifest } from "./artifacts/manifest.js";

export interface VerifierDeployment {
  circuit: string;
  predicate: string;
  capacity: number;
  checkpoints: number;
  address: Address;
  gasUsed: bigint;
}

export interface Deployment {
  escrow: EscrowClient;
  poseidon3: Address;
  verifiers: VerifierDeployment[];
  gas: { poseidon3: bigint; escrow: bigint };
}

export async function deployZkVai(chain: ChainHandle, deployer: Wallet): Promise<Deployment> {
  const circuits = Object.entries(loadManifest().circuits);
  if (!circuits.length) throw new Error("the manifest lists no circuits; run `npm run setup`");
  const poseidon = await deployPoseidon3(chain, deployer);
  const verifiers: VerifierDeployment[] = [];
  for (const [name, c] of circuits) {
    const v = await deployContract(chain, deployer, c.verifierContract);
    verifiers.push({
      circuit: name,
      predicate: c.predicate,
      capacity: 2 ** Number(c.params.depth),
      checkpoints: Number(c.params.checkpoints),
      address: v.address,
      gasUsed: v.gasUsed,
    });
  }
  // Every circuit folds the same number of checkpoints: the escrow's cap (the constructor checks it).
  const maxCheckpoints = Math.min(...verifiers.map((v) => v.checkpoints));
  const registry = verifiers.map((v) => ({
    predicateId: predicateById(v.predicate).code,
    capacity: v.capacity,
    checkpoints: v.checkpoints,
    verifier: v.address,
  }));
  const escrow = await deployEscrow(chain, deployer, {
    poseidon3: poseidon.address,
    maxCheckpoints,
    registry,
  });
  const startBlock = await chain.publicClient.getBlockNumber();
  return {
    escrow: await EscrowClient.connect(chain, escrow.address, deployer, { fromBlock: startBlock }),
    poseidon3: poseidon.address,
    verifiers,
    gas: { poseidon3: poseidon.gasUsed, escrow: escrow.gasUsed },
  };
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
  deployment: Deployment,
  escrow: EscrowClient,
  store: TraceStore,
  spec: PromiseSpec,
) {
  const predicate = predicateById(spec.predicate);
  const theta = predicate.parseTheta(spec.theta);
  predicate.checkProfile(theta, spec.profile);
  if (!deployment.verifiers.some((v) => v.predicate === predicate.id))
    throw new Error(`no verifier deployed for ${predicate.id}; build its circuits with \`npm run setup\``);
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
