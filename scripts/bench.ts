// npm run bench: see scripts/bench/cli.ts. A dev tool: the `vai` CLI and the library never reach it.
import { runBench } from "./bench/cli.js";

process.exitCode = await runBench(process.argv.slice(2));
