// Compiled contracts (Hardhat's artifacts under the build directory, sdk/chain/locations.ts) and deploying them.
import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { getAddress, type Abi, type Address, type Hex } from "viem";
import { hardhatArtifactsDir } from "./locations.js";
import type { ChainHandle, Wallet } from "./network.js";
import { BuildMissingError } from "../core/errors.js";
import { ChainStateError } from "./escrow-errors.js";
import { receiptOf } from "./tx-receipt.js";

const COMPILE_HINT =
  "run `npm run setup` (or `vai setup`) first, or point ZKVAI_BUILD_DIR at a build that has";

export interface Artifact {
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
}

async function findArtifactFiles(dir: string, file: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "build-info" ? [] : findArtifactFiles(p, file);
      return e.name === file ? [p] : [];
    }),
  );
  return nested.flat();
}

/** `<build>/hardhat/artifacts/**\/<name>.json`; a name compiled from two sources is an error, not a guess. */
export async function readArtifact(name: string): Promise<Artifact> {
  const dir = hardhatArtifactsDir();
  const files = await findArtifactFiles(dir, `${name}.json`);
  if (files.length === 0)
    throw new BuildMissingError(`artifact ${name} not found under ${dir}: ${COMPILE_HINT}`, {
      details: { artifact: name, dir },
    });
  if (files.length > 1)
    throw new BuildMissingError(`artifact ${name} is ambiguous: ${files.join(", ")}`, {
      details: { artifact: name, files },
    });
  const { contractName, sourceName, abi, bytecode } = JSON.parse(
    await readFile(files[0], "utf8"),
  ) as Artifact;
  return { contractName, sourceName, abi, bytecode };
}

export interface Deployed {
  address: Address;
  gasUsed: bigint;
}

export { receiptOf } from "./tx-receipt.js";

/** Deploys raw bytecode; exported for contracts that are not Hardhat artifacts (circomlibjs' Poseidon). */
export async function deployBytecode(
  chain: ChainHandle,
  wallet: Wallet,
  abi: Abi,
  bytecode: Hex,
  args: readonly unknown[],
): Promise<Deployed> {
  const hash = await wallet.deployContract({ abi, bytecode, args });
  const receipt = await receiptOf(chain, hash);
  if (!receipt.contractAddress)
    throw new ChainStateError(`deployment ${hash} created no contract`, { details: { txHash: hash } });
  return { address: getAddress(receipt.contractAddress), gasUsed: receipt.gasUsed };
}

export async function deployContract(
  chain: ChainHandle,
  wallet: Wallet,
  name: string,
  args: readonly unknown[] = [],
): Promise<Deployed> {
  const { abi, bytecode } = await readArtifact(name);
  return deployBytecode(chain, wallet, abi, bytecode, args);
}
