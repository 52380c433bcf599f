// The runtime code a contract must have on chain, compiled here from its source with the solc-js the package
// depends on and exactly the settings of hardhat.config.cjs, which built what was deployed: so a user's check
// trusts no build output, only sources (the package's contracts/, or a verifier source the manifest pins by
// sha256) and the compiler. A compile costs seconds (about 3 s for the escrow), so results are kept in a
// per-user cache keyed by everything the output depends on: compiler version, settings, every source's text.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import { packageRoot } from "../chain/locations.js";
import { SettlementInvalid, SettlementUncheckable } from "./errors.js";
import {
  compileKey,
  contractSources,
  settingsFor,
  SOLC_VERSION,
  sourceSha256,
  type Compiled,
  type ExpectedCode,
} from "./solc-target.js";
export {
  sameCode,
  SETTINGS_LABEL,
  SOLC_SETTINGS,
  SOLC_VERSION,
  SOURCE_SETTINGS,
  type ExpectedCode,
  type SolcSettings,
} from "./solc-target.js";

interface SolcJs {
  compile(input: string): string;
  version(): string;
}

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
  const settings = settingsFor(target);
  const key = compileKey(sources, target, contractName);
  const cacheFile = path.join(codeCacheDir(), `${key}.json`);
  const cached = readCache(cacheFile);
  const out = cached ?? compile(sources, target, contractName, settings);
  if (!cached) writeCache(cacheFile, out);
  return {
    sourceName: target,
    contractName,
    ...out,
    sourceSha256: sourceSha256(sources, target),
  };
}

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
  const sources = contractSources(sourceName, (name) => {
    const file = path.join(root, name);
    if (path.relative(path.join(root, "contracts"), file).startsWith(".."))
      throw new SettlementUncheckable(`${name} is outside the package's contracts/`);
    if (!existsSync(file)) throw new SettlementUncheckable(`${name} is not in the zkvai package at ${root}`);
    return readFileSync(file, "utf8");
  });
  return compileContract(sources, sourceName, contractName);
}
