// A provider process for the crash test: records calls through the SDK against a real node, reports each
// acknowledged record on stdout, and then idles until the test kills it (SIGKILL, no chance to clean up).
import { getAddress, type Hex } from "viem";
import { EscrowClient } from "../../sdk/chain/escrow.js";
import { rpcChain } from "../../sdk/chain/network.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`recorder-child: ${name} is not set`);
  return v;
};

const chain = await rpcChain(env("CHILD_RPC_URL"));
const escrow = await EscrowClient.connect(chain, getAddress(env("CHILD_ESCROW")), chain.wallets[0]);
const store = TraceStore.open(env("CHILD_STORE"));
const session = await Session.open({
  store,
  escrow,
  sessionId: env("CHILD_SESSION") as Hex,
  user: getAddress(env("CHILD_USER")),
  profile: JSON.parse(env("CHILD_PROFILE")),
  // Every 3 records, under the escrow's budget of one per 10: a checkpoint at 3; the one at 6 waits for 11.
  policy: { everyRecords: 3, everyMs: 60_000, retry: { initialMs: 50, maxMs: 500 } },
});
const recipients = JSON.parse(env("CHILD_RECIPIENTS")) as string[];
for (const to of recipients) {
  await session.call("send_email", { to, subject: "status" }, async () => "sent");
  console.log(`recorded ${session.count}`);
}
await session.flush();
console.log(`checkpointed ${session.stats.lastCheckpointN}`);
setInterval(() => {}, 1_000);
