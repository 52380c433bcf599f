// What a contract's expected code is keyed by, and how it is compared with the chain, with no I/O: the compiler
// and settings hardhat.config.cjs builds with, the cache key of one compile (compiler, settings, every source's
// text), the closure of sources a package contract imports, and the byte comparison with immutables masked.
// Shared by the Node side (expected-code.ts, which runs solc-js) and the page (expected-code.browser.ts, which
// looks the same key up in the code the page build compiled).
import { hexToBytes, sha256, stringToBytes, type Hex } from "viem";
import { SettlementUncheckable } from "./errors.js";

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

/** What one compile yields: the runtime code and where its immutables sit. */
export type Compiled = Pick<ExpectedCode, "deployedBytecode" | "immutables">;

/** sha256 (hex, no 0x) of a text's UTF-8 bytes, or of bytes. */
export const sha256Hex = (data: string | Uint8Array): string =>
  sha256(typeof data === "string" ? stringToBytes(data) : data).slice(2);

export const settingsFor = (target: string): SolcSettings => SOURCE_SETTINGS[target] ?? SOLC_SETTINGS;

/** The key of one compile: everything its output depends on (the Node cache's file name, the page's lookup). */
export function compileKey(sources: Record<string, string>, target: string, contractName: string): string {
  const settings = settingsFor(target);
  return sha256Hex(JSON.stringify({ installed: SOLC_VERSION, settings, target, contractName, sources }));
}

export const sourceSha256 = (sources: Record<string, string>, target: string): string =>
  sha256Hex(sources[target]!);

/**
 * `sourceName` of the package's contracts/ and every source it imports, under the source names Hardhat gave
 * them (they are part of the bytecode's metadata), read through `read`.
 */
export function contractSources(sourceName: string, read: (name: string) => string): Record<string, string> {
  const sources: Record<string, string> = {};
  const visit = (name: string) => {
    if (name in sources) return;
    if (!name.startsWith("contracts/") || name.split("/").includes(".."))
      throw new SettlementUncheckable(`${name} is outside the package's contracts/`);
    const text = read(name);
    sources[name] = text;
    for (const m of text.matchAll(/^\s*import\s+(?:[^"';]*\sfrom\s+)?["']([^"']+)["']/gm)) {
      const imported = m[1]!;
      visit(imported.startsWith(".") ? joinPosix(name, imported) : imported);
    }
  };
  visit(sourceName);
  return sources;
}

/** path.posix.join(path.posix.dirname(from), relative), without node:path. */
function joinPosix(from: string, relative: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of relative.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

/** Whether `onChain` is `expected`'s code, its immutables (set by the constructor) aside. */
export function sameCode(onChain: Hex, expected: Compiled): boolean {
  const a = hexToBytes(onChain);
  const b = hexToBytes(expected.deployedBytecode);
  if (a.length !== b.length) return false;
  for (const { start, length } of expected.immutables) a.fill(0, start, start + length);
  return a.every((byte, i) => byte === b[i]);
}
