#!/usr/bin/env node
// The `vai` command. Installed, it runs the compiled CLI in dist/. In a checkout (TypeScript sources and tsx
// present) it runs the sources through tsx, so there is no build step while developing.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const sources = fileURLToPath(new URL("../scripts/cli/vai.ts", import.meta.url));
const compiled = new URL("../dist/scripts/cli/vai.js", import.meta.url);
const args = process.argv.slice(2);

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
  await import(sources);
} else if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  console.error(
    "vai: neither the TypeScript sources (with tsx) nor the compiled dist/ are here; run `npm run build`",
  );
  process.exit(1);
}
