// The claim watcher as its own process, for the restart test: the test reads its JSON-line logs on stderr
// and kills it (SIGKILL) at the moment it chooses.
import { getAddress } from "viem";
import { EscrowClient } from "../../sdk/chain/escrow.js";
import { rpcChain } from "../../sdk/chain/network.js";
import { jsonLogger } from "../../sdk/provider/log.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { ClaimWatcher } from "../../prover/watcher.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`watcher-child: ${name} is not set`);
  return v;
};

const chain = await rpcChain(env("CHILD_RPC_URL"));
const escrow = await EscrowClient.connect(chain, getAddress(env("CHILD_ESCROW")), chain.wallets[0], {
  fromBlock: BigInt(env("CHILD_FROM_BLOCK")),
});
const watcher = ClaimWatcher.open({
  store: TraceStore.open(env("CHILD_STORE")),
  escrow,
  statePath: env("CHILD_STATE"),
  pollMs: 200,
  log: jsonLogger(process.stderr, "debug"),
});
const stop = new AbortController();
process.on("SIGTERM", () => stop.abort());
await watcher.run(stop.signal);
watcher.close();
