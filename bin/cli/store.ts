// vai store migrate: brings the configured trace store's schema up to this version (sdk/provider/store-migrate.ts).
// It reads only the store setting (--store, VAI_STORE, the config file), and needs no chain.
import { migrateStore } from "../../sdk/provider/store-migrate.js";
import { HELP, InputError, output, parseCommand, runCommand, type Command } from "./common.js";
import { loadConfig } from "./config.js";
import { USAGE } from "./usage.js";

export const storeCommand: Command = {
  usage: USAGE.store,
  run: async (argv) => {
    const [name, ...rest] = argv;
    if (name !== "migrate")
      return runCommand("store", USAGE.store, async () => {
        if (name === "--help" || name === "-h") throw HELP;
        throw new InputError(
          name === undefined ? "missing subcommand: migrate" : `unknown subcommand "${name}": migrate`,
        );
      });
    return runCommand("store migrate", USAGE.store, () => migrate(rest));
  },
};

async function migrate(argv: string[]): Promise<void> {
  const { values } = parseCommand(argv, {
    store: { type: "string" },
    config: { type: "string" },
    json: { type: "boolean", default: false },
  });
  const config = loadConfig({ store: values.store, config: values.config });
  const report = await migrateStore(config.store);
  output(values.json, { ...report }, () =>
    report.kind === "sqlite"
      ? [`trace store ${report.location}: SQLite makes its schema when opened; nothing to migrate`]
      : report.applied.length === 0
        ? [`trace store ${report.location}: schema version ${report.version}, up to date; nothing applied`]
        : [
            `trace store ${report.location}: applied ${report.applied.length} migration(s), now at schema version ${report.version}`,
            ...report.applied.map((m) => `  ${m.version}: ${m.name}`),
          ],
  );
}
