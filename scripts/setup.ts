// `npm run setup` / `tsx scripts/setup.ts [options]`: the build pipeline (prover/artifacts/setup.ts) as a script.
import { runSetup } from "../prover/artifacts/setup.js";

try {
  await runSetup(process.argv.slice(2));
} catch (error) {
  console.error(`\nsetup failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  // snarkjs keeps bn128 worker threads alive; without this the process never exits.
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
}
