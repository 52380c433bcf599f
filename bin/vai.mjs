#!/usr/bin/env node
// The `vai` command. Installed, it runs the compiled CLI in dist/. In a checkout (TypeScript sources and tsx
// present) it runs the sources through tsx, so there is no build step while developing.
import { existsSync, statSync, utimesSync } from "node:fs";
import { fileURLToPath } from "node:url";

const sources = fileURLToPath(new URL("./cli/vai.ts", import.meta.url));
const compiled = new URL("../dist/bin/cli/vai.js", import.meta.url);
const args = process.argv.slice(2);

const ABI_FILE = fileURLToPath(new URL("../sdk/chain/generated/escrow-abi.ts", import.meta.url));

/** The generated ABI is missing, or older than a contract it is generated from (checkout only). */
function abiIsStale() {
  if (!existsSync(ABI_FILE)) return true;
  const generated = statSync(ABI_FILE).mtimeMs;
  return ["Escrow.sol", "EscrowBase.sol", "EscrowSegments.sol", "IEscrow.sol"].some(
    (f) => statSync(fileURLToPath(new URL(`../contracts/${f}`, import.meta.url))).mtimeMs > generated,
  );
}

let tsx;
if (existsSync(sources)) tsx = await import("tsx/esm/api").catch(() => undefined);
if (tsx) {
  // viem and snarkjs load before tsx's hooks are on: through them, each of their many modules costs a round trip
  // to the hooks thread (viem: 1.7 s against 0.4 s, measured on a busy 2-core box). The TS sources then get the
  // same, cached, module instances. `--help` needs neither; only the proving commands need snarkjs.
  if (args.length && !args.includes("--help") && !args.includes("-h")) {
    const proving = ["prove", "verify", "check", "watch", "ceremony"].includes(args[0]);
    await Promise.all([import("viem"), proving ? import("snarkjs") : undefined]);
  }
  tsx.register();
  // The escrow's typed ABI is build output (sdk/chain/generated/, git-ignored): a fresh checkout has none until
  // something generates it, so the first command does, and so does any command after a contract changed.
  if (abiIsStale()) {
    const { writeEscrowAbi } = await import("../prover/artifacts/escrow-abi.ts");
    // Unchanged content is not rewritten; touching it records that it was checked against today's contracts.
    if (!writeEscrowAbi()) utimesSync(ABI_FILE, new Date(), new Date());
  }
  await import(sources);
} else if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  console.error(
    "vai: neither the TypeScript sources (with tsx) nor the compiled dist/ are here; run `npm run build`",
  );
  process.exit(1);
}
