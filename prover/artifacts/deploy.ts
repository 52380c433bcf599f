// The artifacts pipeline's last stage: puts a zkVAI escrow on a chain. The on-chain Poseidon, one verifier per
// circuit of the manifest, and the Escrow, whose verifier registry is that set, fixed at deployment.
import { EscrowClient, deployEscrow, deployPoseidon3 } from "../../sdk/chain/escrow.js";
import { deployContract } from "../../sdk/chain/artifacts.js";
import { type ChainHandle, type Wallet } from "../../sdk/chain/network.js";
import type { DeployedVerifier, Deployment } from "../../sdk/chain/deployment.js";
import { predicateById } from "../../sdk/core/predicates/index.js";
import { capacityOfDepth } from "../../sdk/core/claim.js";
import { loadManifest, manifestSha256 } from "./manifest.js";

/** What deploying returns: a client for the new escrow, the deployment's record, and what each step cost. */
export interface ZkVaiDeployment {
  escrow: EscrowClient;
  record: Deployment;
  gas: { poseidon3: bigint; escrow: bigint; verifiers: Record<string, bigint> };
}

/**
 * The on-chain Poseidon, one verifier per circuit of the manifest, and the Escrow whose registry they are.
 * `rpcUrl` is recorded for later commands (empty for an in-process chain).
 */
export async function deployZkVai(
  chain: ChainHandle,
  deployer: Wallet,
  opts: { rpcUrl?: string } = {},
): Promise<ZkVaiDeployment> {
  const manifest = loadManifest();
  const circuits = Object.entries(manifest.circuits);
  if (!circuits.length) throw new Error("the manifest lists no circuits; run `npm run setup`");
  const poseidon = await deployPoseidon3(chain, deployer);
  const verifiers: DeployedVerifier[] = [];
  const verifierGas: Record<string, bigint> = {};
  for (const [name, c] of circuits) {
    const v = await deployContract(chain, deployer, c.verifierContract);
    verifierGas[name] = v.gasUsed;
    verifiers.push({
      circuit: name,
      predicate: c.predicate,
      capacity: capacityOfDepth(Number(c.params.depth)),
      checkpoints: Number(c.params.checkpoints),
      address: v.address,
      vkeySha256: c.files.vkey.sha256,
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
  const record: Deployment = {
    version: 1,
    chainId: chain.chainId,
    rpcUrl: opts.rpcUrl ?? "",
    escrow: escrow.address,
    fromBlock: Number(startBlock),
    poseidon3: poseidon.address,
    maxCheckpoints,
    verifiers,
    manifestSha256: manifestSha256(),
    deployer: deployer.account.address,
    deployedAt: new Date().toISOString(),
  };
  return {
    escrow: await EscrowClient.connect(chain, escrow.address, deployer, { fromBlock: startBlock }),
    record,
    gas: { poseidon3: poseidon.gasUsed, escrow: escrow.gasUsed, verifiers: verifierGas },
  };
}
