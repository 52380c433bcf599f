#!/usr/bin/env node
// The `vai` command: TypeScript sources run through tsx, so there is no build step.
import { register } from "tsx/esm/api";

// viem and snarkjs load before tsx's hooks are on: through them, each of their many modules costs a round trip
// to the hooks thread (viem: 1.7 s against 0.4 s, measured on a busy 2-core box). The TS sources then get the
// same, cached, module instances. `--help` needs neither; only the proving commands need snarkjs.
const args = process.argv.slice(2);
if (args.length && !args.includes("--help") && !args.includes("-h")) {
  const proving = ["prove", "verify", "check", "watch", "ceremony"].includes(args[0]);
  await Promise.all([import("viem"), proving ? import("snarkjs") : undefined]);
}

register();
await import("../scripts/cli/vai.ts");
