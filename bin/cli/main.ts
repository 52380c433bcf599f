// The `vai` dispatcher (bin/vai.mjs → bin/cli/vai.ts → runVai). Each command's module loads only when it runs, and
// `--help` is answered from bin/cli/usage.ts alone, without loading viem, snarkjs or the prover.
import type { Command } from "./common.js";
import { CHAIN_FLAGS_HELP, USAGE as COMMAND_USAGE } from "./usage.js";

interface Entry {
  summary: string;
  load: () => Promise<Command>;
}

const COMMANDS: Record<string, Entry> = {
  setup: {
    summary: "build circuits, keys and verifiers; print the manifest",
    load: async () => (await import("./setup.js")).setupCommand,
  },
  demo: {
    summary: "the whole insurance loop on an in-process chain",
    load: async () => (await import("./setup.js")).demoCommand,
  },
  node: {
    summary: "start a local chain with zkVAI deployed, until Ctrl-C",
    load: async () => (await import("./node.js")).nodeCommand,
  },
  deploy: {
    summary: "deploy zkVAI onto the configured chain",
    load: async () => (await import("./node.js")).deployCommand,
  },
  promise: {
    summary: "register | fund | retire | show a promise",
    load: async () => (await import("./promise.js")).promiseCommand,
  },
  session: {
    summary: "show a session: on-chain commitments against the local store",
    load: async () => (await import("./session.js")).sessionCommand,
  },
  receipt: {
    summary: "check | post a receipt the provider signed",
    load: async () => (await import("./receipt.js")).receiptCommand,
  },
  claim: {
    summary: "file | status | default | withdraw a claim",
    load: async () => (await import("./claim.js")).claimCommand,
  },
  prove: {
    summary: "answer a claim with a proof and settle it (--dry-run: prove only)",
    load: async () => (await import("./prove.js")).proveCommand,
  },
  watch: {
    summary: "answer every claim on the provider's promises as it is filed",
    load: async () => (await import("./watch.js")).watchCommand,
  },
  store: {
    summary: "migrate the trace store's schema (a Postgres store; SQLite makes its own)",
    load: async () => (await import("./store.js")).storeCommand,
  },
  verify: {
    summary: "check that a settlement followed from a valid proof",
    load: async () => (await import("./verify.js")).verifyCommand,
  },
  page: {
    summary: "serve the page where a user checks a promise or a settlement in the browser",
    load: async () => (await import("./page.js")).pageCommand,
  },
  check: {
    summary: "evaluate a promise on a trace file, optionally prove it locally",
    load: async () => {
      const { runCheck, CHECK_USAGE } = await import("./check.js");
      return { usage: CHECK_USAGE, run: runCheck };
    },
  },
  ceremony: {
    summary: "multi-party Groth16 phase 2: new | contribute | beacon | verify | export",
    load: async () => {
      const { runCeremony, CEREMONY_USAGE } = await import("./ceremony.js");
      return { usage: CEREMONY_USAGE, run: runCeremony };
    },
  },
};

const USAGE = `usage: vai <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(9)} ${c.summary}`)
  .join("\n")}

Run \`vai <command> --help\` for a command's options.

configuration: flags > environment > config file (vai.config.json: rpcUrl, privateKey,
userPrivateKey, deployment, store) > the deployment file's rpcUrl > defaults.
${CHAIN_FLAGS_HELP}`;

/** Runs one `vai` command line; resolves with its exit code (0 ok, 1 failed operation, 2 bad input). */
export async function runVai(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h") {
    (name ? console.log : console.error)(USAGE);
    return name ? 0 : 2;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    console.error(`vai: unknown command "${name}" (run \`vai --help\` for the list)`);
    return 2;
  }
  const help = Object.hasOwn(COMMAND_USAGE, name)
    ? COMMAND_USAGE[name as keyof typeof COMMAND_USAGE]
    : undefined;
  if (help && rest.some((a) => a === "--help" || a === "-h")) {
    console.log(help);
    return 0;
  }
  return (await entry.load()).run(rest);
}
