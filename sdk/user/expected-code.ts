// The runtime code a contract must have on chain, compiled here from its source with the solc-js the package
// depends on and exactly the settings of hardhat.config.cjs, which built what was deployed: so a user's check
// trusts no build output, only sources (the package's contracts/, or a verifier source the manifest pins by
// sha256) and the compiler. A compile costs seconds (about 3 s for the escrow), so results are kept in a
// per-user cache keyed by everything the output depends on: compiler version, settings, every source's text.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import type { Hex } from "viem";
import { packageRoot } from "../chain/locations.js";
import { SettlementInvalid, SettlementUncheckable } from "./errors.js";

/** solc's standard-JSON settings, as hardhat.config.cjs writes them. */
export interface SolcSettings {
  optimizer: { enabled: boolean; runs: number; details?: { yul: boolean } };
  viaIR: boolean;
  evmVersion: string;
}

/** hardhat.config.cjs's compiler and settings (test/user/expected-code.test.ts holds them equal). */
export const SOLC_VERSION = "0.8.28";
export const SOLC_SETTINGS: SolcSettings = {
  optimizer: { enabled: true, runs: 200 },
  viaIR: false,
  evmVersion: "cancun",
};
/** hardhat.config.cjs's override for the generated straight-line Poseidon: no Yul optimiser. */
export const SOURCE_SETTINGS: Record<string, SolcSettings> = {
  "contracts/PoseidonT4.sol": {
    optimizer: { enabled: true, runs: 200, details: { yul: false } },
    viaIR: false,
    evmVersion: "cancun",
  },
};
export const SETTINGS_LABEL = `solc ${SOLC_VERSION}, optimizer 200 runs, evm cancun`;

export interface ExpectedCode {
  sourceName: string;
  contractName: string;
  deployedBytecode: Hex;
  /** Byte ranges of immutables, which the deployed code fills in and the compiler output leaves zero. */
  immutables: { start: number; length: number }[];
  /** sha256 of the target source's text. */
  sourceSha256: string;
}

interface SolcJs {
  compile(input: string): string;
  version(): string;
}

const sha256 = (data: string) => createHash("sha256").update(data).digest("hex");
const load = createRequire(import.meta.url);

/** Where compiled code is kept: ZKVAI_CACHE_DIR, else the user's cache directory (never a shared /tmp). */
export function codeCacheDir(): string {
  const base =
    process.env.ZKVAI_CACHE_DIR ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "zkvai");
  return path.join(base, "solc");
}

/**
 * The runtime code of `contractName` in `target`, compiled from `sources` (source unit name → text; the names
 * are part of the bytecode's metadata, so they must be the ones the deployment was compiled under).
 */
export function compileContract(
  sources: Record<string, string>,
  target: string,
  contractName: string,
): ExpectedCode {
  const installed = (load("solc/package.json") as { version: string }).version;
  if (installed !== SOLC_VERSION)
    throw new SettlementUncheckable(
      `the installed solc is ${installed}, not ${SOLC_VERSION}, which compiled the deployed contracts`,
    );
  const settings = SOURCE_SETTINGS[target] ?? SOLC_SETTINGS;
  const key = sha256(JSON.stringify({ installed, settings, target, contractName, sources }));
  const cacheFile = path.join(codeCacheDir(), `${key}.json`);
  const cached = readCache(cacheFile);
  const out = cached ?? compile(sources, target, contractName, settings);
  if (!cached) writeCache(cacheFile, out);
  return {
    sourceName: target,
    contractName,
    ...out,
    sourceSha256: sha256(sources[target]!),
  };
}

type Compiled = Pick<ExpectedCode, "deployedBytecode" | "immutables">;

function compile(
  sources: Record<string, string>,
  target: string,
  contractName: string,
  settings: object,
): Compiled {
  const solc = load("solc") as SolcJs;
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings: {
      ...settings,
      outputSelection: {
        [target]: {
          [contractName]: ["evm.deployedBytecode.object", "evm.deployedBytecode.immutableReferences"],
        },
      },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<
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
  const error = out.errors?.find((e) => e.severity === "error");
  if (error)
    throw new SettlementInvalid(`${target} does not compile: ${error.formattedMessage.split("\n")[0]}`);
  const code = out.contracts?.[target]?.[contractName]?.evm.deployedBytecode;
  if (!code) throw new SettlementInvalid(`${target} defines no contract ${contractName}`);
  return {
    deployedBytecode: `0x${code.object}`,
    immutables: Object.values(code.immutableReferences ?? {}).flat(),
  };
}

function readCache(file: string): Compiled | undefined {
  try {
    const c = JSON.parse(readFileSync(file, "utf8")) as Compiled;
    return /^0x[0-9a-f]*$/.test(c.deployedBytecode) && Array.isArray(c.immutables) ? c : undefined;
  } catch {
    return undefined;
  }
}

/** Best effort: without a writable cache every check compiles again. Written whole, then renamed into place. */
function writeCache(file: string, c: Compiled): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(c));
    renameSync(tmp, file);
  } catch {
    // An unwritable cache costs time, not correctness.
  }
}

/**
 * A contract of the package's own contracts/ (Escrow.sol, PoseidonT4.sol), compiled with every source it
 * imports, under the source names Hardhat gave them.
 */
export function packageContract(sourceName: string, contractName: string): ExpectedCode {
  const root = packageRoot();
  const sources: Record<string, string> = {};
  const visit = (name: string) => {
    if (name in sources) return;
    const file = path.join(root, name);
    if (!name.startsWith("contracts/") || path.relative(path.join(root, "contracts"), file).startsWith(".."))
      throw new SettlementUncheckable(`${name} is outside the package's contracts/`);
    if (!existsSync(file)) throw new SettlementUncheckable(`${name} is not in the zkvai package at ${root}`);
    const text = readFileSync(file, "utf8");
    sources[name] = text;
    for (const m of text.matchAll(/^\s*import\s+(?:[^"';]*\sfrom\s+)?["']([^"']+)["']/gm)) {
      const imported = m[1]!;
      visit(imported.startsWith(".") ? path.posix.join(path.posix.dirname(name), imported) : imported);
    }
  };
  visit(sourceName);
  return compileContract(sources, sourceName, contractName);
}

/** Whether `onChain` is `expected`'s code, its immutables (set by the constructor) aside. */
export function sameCode(
  onChain: Hex,
  expected: Pick<ExpectedCode, "deployedBytecode" | "immutables">,
): boolean {
  const a = Buffer.from(onChain.slice(2), "hex");
  const b = Buffer.from(expected.deployedBytecode.slice(2), "hex");
  if (a.length !== b.length) return false;
  for (const { start, length } of expected.immutables) a.fill(0, start, start + length);
  return a.equals(b);
}
