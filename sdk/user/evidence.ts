// The links between a manifest, the files it names and the code on a chain: hashes of the files on disk, the
// Solidity verifier's hard-coded key against the vkey, the Hardhat build-info (what source the compiler was
// given, what bytecode it produced) against the artifact, and the artifact against on-chain code. Each check
// throws SettlementInvalid naming the link that does not hold.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Address, Hex } from "viem";
import { artifactsRoot, hardhatArtifactsDir } from "../chain/locations.js";
import type { ChainHandle } from "../chain/network.js";
import { loadManifest, type Manifest } from "../../prover/artifacts/manifest.js";
export { ManifestError } from "../../prover/artifacts/manifest.js";
import { ZkvaiError } from "../core/errors.js";

/** A link of the chain of evidence that does not hold; its message is the reason. */
export class SettlementInvalid extends ZkvaiError {
  static override readonly code: string = "SETTLEMENT_INVALID";
  override name = "SettlementInvalid";
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

export function readJson<T>(file: string, what: string): T {
  if (!existsSync(file)) throw new SettlementInvalid(`${what} ${rel(file)} is missing`);
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch (e) {
    throw new SettlementInvalid(`${what} ${rel(file)} is not readable JSON (${(e as Error).message})`);
  }
}

/** Inside the repository relative to its root (as the manifest writes paths), absolute outside it. */
export const rel = (file: string) => {
  const r = path.relative(artifactsRoot(), file);
  return r && !r.startsWith("..") ? r : file;
};

export interface CompiledContract {
  artifactFile: string;
  sourceName: string;
  contractName: string;
  deployedBytecode: Hex;
  /** Byte ranges of immutables, which the deployed code fills in and the artifact leaves zero. */
  immutables: { start: number; length: number }[];
  /** The source text the compiler was given, its sha256, and the build's compiler and settings. */
  source: string;
  sourceSha256: string;
  solcLongVersion: string;
  settings: Record<string, unknown>;
}

/**
 * An artifact and the compiler run it came from (Hardhat's build-info): the source text that was compiled and
 * the bytecode the compiler produced, which must be the artifact's.
 */
export function compiled(sourceName: string, contractName: string): CompiledContract {
  const artifactFile = path.join(hardhatArtifactsDir(), sourceName, `${contractName}.json`);
  const artifact = readJson<{ deployedBytecode: Hex }>(artifactFile, "artifact");
  const dbg = readJson<{ buildInfo: string }>(
    artifactFile.replace(/\.json$/, ".dbg.json"),
    "artifact debug file",
  );
  const buildInfoFile = path.resolve(path.dirname(artifactFile), dbg.buildInfo);
  const buildInfo = readJson<{
    solcLongVersion: string;
    input: { sources: Record<string, { content: string }>; settings: Record<string, unknown> };
    output: {
      contracts: Record<
        string,
        Record<
          string,
          {
            evm: {
              deployedBytecode: {
                object: string;
                immutableReferences?: Record<string, { start: number; length: number }[]>;
              };
            };
          }
        >
      >;
    };
  }>(buildInfoFile, "compiler build-info");
  const source = buildInfo.input.sources[sourceName]?.content;
  const out = buildInfo.output.contracts[sourceName]?.[contractName]?.evm.deployedBytecode;
  if (source === undefined || !out)
    throw new SettlementInvalid(
      `build-info ${rel(buildInfoFile)} does not hold ${sourceName}:${contractName}`,
    );
  if (`0x${out.object}`.toLowerCase() !== artifact.deployedBytecode.toLowerCase())
    throw new SettlementInvalid(
      `artifact ${rel(artifactFile)} differs from the compiler output it claims to come from`,
    );
  return {
    artifactFile,
    sourceName,
    contractName,
    deployedBytecode: artifact.deployedBytecode,
    immutables: Object.values(out.immutableReferences ?? {}).flat(),
    source,
    sourceSha256: sha256(source),
    solcLongVersion: buildInfo.solcLongVersion,
    settings: buildInfo.input.settings,
  };
}

interface SolcJs {
  compile(input: string): string;
  version(): string;
}

/**
 * The runtime bytecode of a standalone contract (a generated verifier imports nothing), compiled again from its
 * source with the installed solc-js and the settings of the build it came from: then neither the artifact nor
 * the build-info output is trusted, only the source and the compiler. Undefined when the installed compiler is
 * not the one the build used (its bytecode could differ for that reason alone).
 */
export function recompiledBytecode(c: CompiledContract): Hex | undefined {
  const solc = createRequire(import.meta.url)("solc") as SolcJs;
  if (!solc.version().startsWith(c.solcLongVersion)) return undefined;
  const input = {
    language: "Solidity",
    sources: { [c.sourceName]: { content: c.source } },
    settings: {
      ...c.settings,
      outputSelection: { [c.sourceName]: { [c.contractName]: ["evm.deployedBytecode.object"] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>;
  };
  const error = out.errors?.find((e) => e.severity === "error");
  if (error)
    throw new SettlementInvalid(`${c.sourceName} does not compile: ${error.formattedMessage.split("\n")[0]}`);
  return `0x${out.contracts![c.sourceName][c.contractName].evm.deployedBytecode.object}`;
}

export function sameCode(onChain: Hex, c: CompiledContract): boolean {
  const a = Buffer.from(onChain.slice(2), "hex");
  const b = Buffer.from(c.deployedBytecode.slice(2), "hex");
  if (a.length !== b.length) return false;
  for (const { start, length } of c.immutables) a.fill(0, start, start + length);
  return a.equals(b);
}

export async function codeAt(chain: ChainHandle, address: Address): Promise<Hex> {
  return (await chain.publicClient.getCode({ address })) ?? "0x";
}

/** Throws unless `address` runs exactly the verifier contract that circuit `name`'s artifact holds. */
export async function checkVerifierCode(
  chain: ChainHandle,
  address: Address,
  name: string,
  manifest?: Manifest,
): Promise<void> {
  const entry = (manifest ?? loadManifest()).circuits[name];
  const c = compiled(entry.files.verifierSol.path, entry.verifierContract);
  if (!sameCode(await codeAt(chain, address), c)) {
    throw new SettlementInvalid(
      `the on-chain code of verifier ${address} differs from ${rel(c.artifactFile)} (the ${entry.verifierContract} the manifest names)`,
    );
  }
}

/** The Solidity verifier hard-codes its key; every constant must be the vkey's (snarkjs swaps G2 limbs). */
export function checkVkeyInSource(
  vkey: VerificationKey,
  source: string,
  solFile: string,
  vkeyFile: string,
): void {
  const constants = new Map<string, string>();
  for (const m of source.matchAll(/uint256\s+constant\s+(\w+)\s*=\s*(\d+)\s*;/g)) constants.set(m[1], m[2]);
  const expected: [string, string][] = [
    ["alphax", vkey.vk_alpha_1[0]],
    ["alphay", vkey.vk_alpha_1[1]],
  ];
  for (const [name, g2] of [
    ["beta", vkey.vk_beta_2],
    ["gamma", vkey.vk_gamma_2],
    ["delta", vkey.vk_delta_2],
  ] as const) {
    expected.push(
      [`${name}x1`, g2[0][1]],
      [`${name}x2`, g2[0][0]],
      [`${name}y1`, g2[1][1]],
      [`${name}y2`, g2[1][0]],
    );
  }
  vkey.IC.forEach((p, i) => expected.push([`IC${i}x`, p[0]], [`IC${i}y`, p[1]]));
  const icCount = [...constants.keys()].filter((k) => /^IC\d+x$/.test(k)).length;
  const differing = expected.find(([k, v]) => constants.get(k) !== String(v));
  if (differing || icCount !== vkey.IC.length) {
    throw new SettlementInvalid(
      `verification key ${rel(vkeyFile)} is not the one hard-coded in ${rel(solFile)} (${differing ? differing[0] : "IC count"} differs)`,
    );
  }
}

export interface VerificationKey {
  protocol: string;
  curve: string;
  nPublic: number;
  vk_alpha_1: string[];
  vk_beta_2: string[][];
  vk_gamma_2: string[][];
  vk_delta_2: string[][];
  IC: string[][];
}

/** Reads a manifest-named file and checks its sha256 against the manifest's record. */
export function manifestFile(
  ref: { path: string; sha256: string },
  what: string,
  manifestPath: string,
): Buffer {
  const file = path.resolve(artifactsRoot(), ref.path);
  if (!existsSync(file)) throw new SettlementInvalid(`${what} ${ref.path} named by the manifest is missing`);
  const bytes = readFileSync(file);
  const actual = sha256(bytes);
  if (actual !== ref.sha256)
    throw new SettlementInvalid(
      `${what} ${ref.path} has sha256 ${actual}, but ${rel(manifestPath)} records ${ref.sha256}`,
    );
  return bytes;
}
