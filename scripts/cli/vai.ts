// vai <command> [options]: the command-line face of zkVAI.
import { runCheck, CHECK_USAGE } from "./check.js";

const COMMANDS: Record<string, { usage: string; run: (argv: string[]) => Promise<number> }> = {
  check: { usage: CHECK_USAGE, run: runCheck },
};

const USAGE = `usage: vai <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(8)} ${c.usage.split("\n")[0].replace(/^usage: vai \S+ ?/, "")}`)
  .join("\n")}

Run \`vai <command> --help\` for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h") {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`vai: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`vai: ${(e as Error)?.message ?? e}`);
    process.exit(2);
  },
);
