// The deployment file: where one zkVAI escrow lives (chain, addresses, the block to scan logs from) and which
// circuits its verifiers were built from, so later commands can refuse a store, manifest or node that no
// longer matches it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getAddress, isAddress, type Address } from "viem";
import type { ChainHandle, Wallet } from "./escrow.js";
import { loadManifest, MANIFEST_PATH } from "../../prover/artifacts/manifest.js";
import { deployZkVai, type Deployment } from "../../prover/deploy.js";
import { InputError } from "../../scripts/cli/common.js";

export interface DeployedVerifier {
  circuit: string;
  predicate: string;
  capacity: number;
  checkpoints: number;
  address: Address;
  /** sha256 of the circuit's verification key when it was deployed (from the manifest). */
  vkeySha256: string;
}

export interface DeploymentFile {
  version: 1;
  chainId: number;
  rpcUrl: string;
  escrow: Address;
  /** The escrow's deployment block: log scans start here. */
  fromBlock: number;
  poseidon3: Address;
  maxCheckpoints: number;
  verifiers: DeployedVerifier[];
  /** sha256 of build/manifest.json as it was when the verifiers were deployed. */
  manifestSha256: string;
  deployer: Address;
  deployedAt: string;
}

export function manifestSha256(root = process.cwd()): string {
  return createHash("sha256")
    .update(readFileSync(path.resolve(root, MANIFEST_PATH)))
    .digest("hex");
}

/** Poseidon, one verifier per manifest circuit and the Escrow, from `wallet`; returns what the file records. */
export async function deployAll(
  chain: ChainHandle,
  wallet: Wallet,
  rpcUrl: string,
): Promise<{ file: DeploymentFile; deployment: Deployment }> {
  const manifest = loadManifest();
  const sha = manifestSha256();
  const deployment = await deployZkVai(chain, wallet);
  const file: DeploymentFile = {
    version: 1,
    chainId: chain.chainId,
    rpcUrl,
    escrow: deployment.escrow.address,
    fromBlock: Number(deployment.escrow.fromBlock),
    poseidon3: deployment.poseidon3,
    maxCheckpoints: Math.min(...deployment.verifiers.map((v) => v.checkpoints)),
    verifiers: deployment.verifiers.map((v) => ({
      circuit: v.circuit,
      predicate: v.predicate,
      capacity: v.capacity,
      checkpoints: v.checkpoints,
      address: v.address,
      vkeySha256: manifest.circuits[v.circuit].files.vkey.sha256,
    })),
    manifestSha256: sha,
    deployer: wallet.account.address,
    deployedAt: new Date().toISOString(),
  };
  return { file, deployment };
}

export function writeDeploymentFile(file: string, d: DeploymentFile): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(d, null, 2) + "\n");
}

export function readDeploymentFile(file: string): DeploymentFile {
  if (!existsSync(file)) {
    throw new InputError(
      `deployment file ${file} not found: run \`vai node\` or \`vai deploy\` first, or point VAI_DEPLOYMENT at one`,
    );
  }
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`deployment file ${file} is not readable JSON: ${(e as Error).message}`);
  }
  const bad = (what: string) => new InputError(`deployment file ${file}: ${what}`);
  if (typeof raw !== "object" || raw === null || raw.version !== 1) throw bad("expected version 1");
  const address = (value: unknown, what: string): Address => {
    if (typeof value !== "string" || !isAddress(value, { strict: false }))
      throw bad(`${what} is not an address`);
    return getAddress(value);
  };
  const int = (value: unknown, what: string): number => {
    if (!Number.isSafeInteger(value) || (value as number) < 0) throw bad(`${what} is not an integer`);
    return value as number;
  };
  if (!Array.isArray(raw.verifiers)) throw bad("verifiers is not a list");
  return {
    version: 1,
    chainId: int(raw.chainId, "chainId"),
    rpcUrl: typeof raw.rpcUrl === "string" ? raw.rpcUrl : "",
    escrow: address(raw.escrow, "escrow"),
    fromBlock: int(raw.fromBlock, "fromBlock"),
    poseidon3: address(raw.poseidon3, "poseidon3"),
    maxCheckpoints: int(raw.maxCheckpoints, "maxCheckpoints"),
    verifiers: (raw.verifiers as Record<string, unknown>[]).map((v, i) => ({
      circuit: String(v.circuit),
      predicate: String(v.predicate),
      capacity: int(v.capacity, `verifiers[${i}].capacity`),
      checkpoints: int(v.checkpoints, `verifiers[${i}].checkpoints`),
      address: address(v.address, `verifiers[${i}].address`),
      vkeySha256: String(v.vkeySha256 ?? ""),
    })),
    manifestSha256: String(raw.manifestSha256 ?? ""),
    deployer: address(raw.deployer, "deployer"),
    deployedAt: String(raw.deployedAt ?? ""),
  };
}

/** The prover's view of a deployment, for registerPromise (which needs only the verifier set). */
export function asProverDeployment(d: DeploymentFile, escrow: Deployment["escrow"]): Deployment {
  return {
    escrow,
    poseidon3: d.poseidon3,
    verifiers: d.verifiers.map((v) => ({ ...v, gasUsed: 0n })),
    gas: { poseidon3: 0n, escrow: 0n },
  };
}
