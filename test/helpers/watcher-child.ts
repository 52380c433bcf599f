// The claim watcher as its own process, for the restart and failover tests: the test reads its JSON-line logs
// on stderr and kills it (SIGKILL) at the moment it chooses. On a postgres:// store it takes turns with other
// watchers by the store's lease (CHILD_LEASE_MS long).
import { getAddress } from "viem";
import { EscrowClient } from "../../sdk/chain/escrow.js";
import { rpcChain } from "../../sdk/chain/network.js";
import { jsonLogger } from "../../sdk/provider/log.js";
import { isPostgresUrl, TraceStore } from "../../sdk/provider/store.js";
import { ClaimWatcher } from "../../prover/watcher.js";
import { PostgresWatcherLease } from "../../prover/watcher-lease.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`watcher-child: ${name} is not set`);
  return v;
};

const chain = await rpcChain(env("CHILD_RPC_URL"));
const escrow = await EscrowClient.connect(chain, getAddress(env("CHILD_ESCROW")), chain.wallets[0], {
  fromBlock: BigInt(env("CHILD_FROM_BLOCK")),
});
const log = jsonLogger(process.stderr, "debug");
const storeAt = env("CHILD_STORE");
const lease = isPostgresUrl(storeAt)
  ? await PostgresWatcherLease.open({
      url: storeAt,
      escrow: escrow.address,
      chainId: chain.chainId,
      ttlMs: Number(process.env.CHILD_LEASE_MS ?? 3000),
      log,
    })
  : undefined;
const store = TraceStore.open(storeAt);
const watcher = ClaimWatcher.open({ store, escrow, statePath: env("CHILD_STATE"), pollMs: 200, lease, log });
const stop = new AbortController();
process.on("SIGTERM", () => stop.abort());
await watcher.run(stop.signal);
watcher.close();
await lease?.close();
store.close();
