// The escrow's ABI as a TypeScript `as const` literal, so viem types every read and write against the
// contract itself: reads need no casts, and a misspelt function or event name fails `tsc`. Generated from
// contracts/Escrow.sol by solc-js (ABI only: no optimiser, a few seconds), before the type-check and by setup.
// The output, sdk/chain/generated/escrow-abi.ts, is build output (git-ignored); it is rewritten only when it
// changes, so an unchanged contract leaves tsc's and vitest's caches warm.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { packageRoot } from "../../sdk/chain/locations.js";
import { ToolError } from "./zkfiles.js";

export const ESCROW_ABI_FILE = "sdk/chain/generated/escrow-abi.ts";
const SOURCES = [
  "contracts/Escrow.sol",
  "contracts/EscrowBase.sol",
  "contracts/EscrowSegments.sol",
  "contracts/IEscrow.sol",
];

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: unknown[] }>>;
}

/** The ABI solc gives Escrow, compiled from the package's own contracts/. */
export function compileEscrowAbi(root: string = packageRoot()): unknown[] {
  const solc = createRequire(import.meta.url)("solc") as { compile(input: string): string };
  const sources = Object.fromEntries(
    SOURCES.map((s) => [s, { content: readFileSync(path.join(root, s), "utf8") }]),
  );
  const input = {
    language: "Solidity",
    sources,
    settings: { outputSelection: { "contracts/Escrow.sol": { Escrow: ["abi"] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length)
    throw new ToolError(
      `contracts/Escrow.sol does not compile:\n${errors.map((e) => e.formattedMessage).join("\n")}`,
      "",
    );
  const abi = out.contracts?.["contracts/Escrow.sol"]?.Escrow?.abi;
  if (!abi) throw new ToolError("solc produced no ABI for contracts/Escrow.sol:Escrow", "");
  return abi;
}

export function escrowAbiSource(abi: unknown[]): string {
  return [
    "// Generated from contracts/Escrow.sol by prover/artifacts/escrow-abi.ts (npm run gen:abi). Do not edit.",
    `export const ESCROW_ABI = ${JSON.stringify(abi, null, 2)} as const;`,
    "",
  ].join("\n");
}

/** Writes the ABI module when it differs; returns whether it did. */
export function writeEscrowAbi(root: string = packageRoot()): boolean {
  const file = path.join(root, ESCROW_ABI_FILE);
  const source = escrowAbiSource(compileEscrowAbi(root));
  if (existsSync(file) && readFileSync(file, "utf8") === source) return false;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, source);
  return true;
}
