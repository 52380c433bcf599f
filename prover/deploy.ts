// Puts a zkVAI escrow on a chain: the on-chain Poseidon, one verifier per built
// circuit (from the manifest), and the Escrow; and registers promises against it
// with the verifier set of their predicate, which the escrow then snapshots.
import type { Address } from "viem";
import {
  EscrowClient,
  deployContract,
  deployEscrow,
  deployPoseidon3,
  type ChainHandle,
  type Wallet,
} from "../sdk/chain.js";
import { paramsHashOf, predicateById } from "../sdk/predicates/index.js";
import { profileHash, type EncodingProfile } from "../sdk/profile.js";
import type { TraceStore } from "../sdk/store.js";
import { loadManifest } from "./artifacts.js";

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
  // A session may hold no more checkpoints than the smallest circuit can fold.
  const maxCheckpoints = Math.min(...verifiers.map((v) => v.checkpoints));
  const escrow = await deployEscrow(chain, deployer, { poseidon3: poseidon.address, maxCheckpoints });
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
  const set = deployment.verifiers
    .filter((v) => v.predicate === predicate.id)
    .sort((a, b) => a.capacity - b.capacity);
  if (!set.length)
    throw new Error(`no verifier deployed for ${predicate.id}; build its circuits with \`npm run setup\``);
  const paramsHash = paramsHashOf(predicate, theta);
  const tx = await escrow.registerPromise({
    predicateId: predicate.code,
    paramsHash,
    profileHash: profileHash(spec.profile),
    payout: spec.payout,
    capacities: set.map((v) => v.capacity),
    verifiers: set.map((v) => v.address),
    value: spec.reserve,
  });
  store.putPromise({ promiseId: tx.promiseId, predicate: predicate.id, theta, paramsHash });
  return tx;
}
