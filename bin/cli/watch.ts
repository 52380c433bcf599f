// vai watch: the provider's claim watcher (prover/watcher.ts) as a long-running command.
import path from "node:path";
import { jsonLogger } from "../../sdk/provider/log.js";
import { isPostgresUrl } from "../../sdk/provider/store-postgres.js";
import { ClaimWatcher } from "../../prover/watcher.js";
import { PostgresWatcherLease } from "../../prover/watcher-lease.js";
import { releaseProver } from "../../prover/prove.js";
import { CHAIN_OPTIONS, InputError, parseCommand, parseInteger, runCommand, type Command } from "./common.js";
import { USAGE } from "./usage.js";
import { abortOnSignals, connect, openStore, parseRole } from "./connect.js";

export const watchCommand: Command = {
  usage: USAGE.watch,
  run: (argv) =>
    runCommand("watch", USAGE.watch, async () => {
      const { values } = parseCommand(argv, {
        ...CHAIN_OPTIONS,
        "poll-ms": { type: "string" },
        confirmations: { type: "string" },
        "memory-mb": { type: "string" },
        state: { type: "string" },
        workers: { type: "string" },
        "lease-ms": { type: "string" },
        debug: { type: "boolean", default: false },
      });
      const pollMs =
        values["poll-ms"] === undefined ? undefined : parseInteger(values["poll-ms"], "--poll-ms", 10);
      const confirmations =
        values.confirmations === undefined
          ? undefined
          : parseInteger(values.confirmations, "--confirmations", 0, 1000);
      const memoryBudgetMB =
        values["memory-mb"] === undefined ? undefined : parseInteger(values["memory-mb"], "--memory-mb", 64);
      const segmentWorkers =
        values.workers === undefined ? undefined : parseInteger(values.workers, "--workers", 1, 256);
      const leaseFlag = values["lease-ms"] ?? process.env.VAI_WATCH_LEASE_MS;
      const leaseMs = leaseFlag === undefined ? undefined : parseInteger(leaseFlag, "--lease-ms", 300);
      // Before anything starts, so a signal at any moment is a clean stop rather than Node's default exit.
      const stop = abortOnSignals();
      const { escrow, config } = await connect(values, {
        role: parseRole(values.as, "provider"),
        wallet: true,
      });
      const store = openStore(config, false);
      if (!store)
        throw new InputError(`trace store ${config.store} does not exist (set VAI_STORE or --store)`);
      // The watcher's own state is a local SQLite file: next to a store file, or in .vai/ beside a Postgres store.
      const stateDir = isPostgresUrl(config.store) ? ".vai" : path.dirname(config.store);
      const statePath = path.resolve(values.state ?? path.join(stateDir, "watcher.sqlite"));
      const log = jsonLogger(process.stderr, values.debug ? "debug" : "info");
      // Watchers sharing a Postgres store take turns by a lease in it; a SQLite store keeps the state file's lock.
      const lease = isPostgresUrl(config.store)
        ? await PostgresWatcherLease.open({
            url: config.store,
            escrow: escrow.address,
            chainId: escrow.chain.chainId,
            ttlMs: leaseMs,
            log,
          })
        : undefined;
      let watcher: ClaimWatcher;
      try {
        watcher = ClaimWatcher.open({
          store,
          escrow,
          statePath,
          pollMs,
          confirmations,
          memoryBudgetMB,
          segmentWorkers,
          lease,
          log,
        });
      } catch (e) {
        // Its connection would keep the process alive.
        await lease?.close();
        throw e;
      }
      try {
        await watcher.run(stop.signal);
      } finally {
        watcher.close();
        await lease?.close();
        store.close();
        await releaseProver();
      }
    }),
};
