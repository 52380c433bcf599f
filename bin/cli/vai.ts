// vai <command> [options]: the command-line face of zkVAI (commands in bin/cli/main.ts).
import { runVai } from "./main.js";

runVai(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`vai: ${(e as Error)?.message ?? e}`);
    process.exit(1);
  },
);
