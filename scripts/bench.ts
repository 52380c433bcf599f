// npm run bench: see scripts/bench/cli.ts (also `vai bench`).
import { runBench } from "./bench/cli.js";

process.exitCode = await runBench(process.argv.slice(2));
