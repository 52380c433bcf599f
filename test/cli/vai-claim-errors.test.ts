// Issue 33 item 9 through the CLI: an early `vai claim default` says when the proof window ends as a date and
// how long that is, and sends nothing; a claim the escrow refuses names the escrow's custom error.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDeployment } from "../../sdk/chain/deployment.js";
import { scopedSessionId, type EscrowClient } from "../../sdk/chain/escrow.js";
import { paramsHashOf, predicateById } from "../../sdk/core/predicates/index.js";
import { profileHash, type EncodingProfile } from "../../sdk/core/profile.js";
import { devRpcChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { startHardhatNode, type HardhatNode } from "../../sdk/dev/hardhat-node.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { tempWorkspace, vaiInProcess } from "./cli-helpers.js";

const PROFILE: EncodingProfile = { version: 1, tools: { send_email: { target: "to" } } };
const AAP4 = predicateById("AAP-4");
let node: HardhatNode;
let chain: DevChainHandle;
let escrow: EscrowClient;
let env: Record<string, string>;
let promiseId: bigint;
let sessionId: `0x${string}`;

beforeAll(async () => {
  node = await startHardhatNode();
  chain = await devRpcChain(node.url);
  const ws = tempWorkspace("zkvai-cli-claim-");
  const deployed = await deployZkVai(chain, chain.wallets[0], { rpcUrl: node.url, receiptWindow: 0 });
  escrow = deployed.escrow;
  writeDeployment(join(ws.dir, "deployment.json"), deployed.record);
  env = {
    ...ws.env,
    VAI_DEPLOYMENT: join(ws.dir, "deployment.json"),
    VAI_STORE: join(ws.dir, "store.sqlite"),
  };
  const theta = AAP4.parseTheta({ outboundTools: ["send_email"], allowlist: ["a@x"] });
  ({ promiseId } = await escrow.registerPromise({
    predicateId: AAP4.code,
    paramsHash: paramsHashOf(AAP4, theta),
    profileHash: profileHash(PROFILE),
    payout: 10n ** 17n,
    value: 10n ** 18n,
  }));
  sessionId = scopedSessionId(chain.wallets[0].account.address, "claim-errors");
  const store = TraceStore.open(env.VAI_STORE);
  const user = chain.wallets[1].account.address;
  const session = await Session.open({ store, escrow, sessionId, user, profile: PROFILE });
  await session.call("send_email", { to: "b@x" }, async () => "sent");
  await session.close();
  store.close();
});

afterAll(async () => {
  await node?.stop();
});

describe("vai claim, refused by the escrow or too early", () => {
  it("claim file under a promise that does not exist names the escrow's error", async () => {
    const r = await vaiInProcess(
      ["claim", "file", sessionId, "--promise", "99", "--bond", "0.1", "--as", "user"],
      env,
    );
    expect(r.code, r.err).toBe(1);
    expect(r.err.trim()).toBe("vai claim file: fileClaim reverted: UnknownPromise(99)");
  });

  it("an early claim default prints the end of the proof window as a date and the wait, and sends nothing", async () => {
    const filed = await vaiInProcess(
      ["claim", "file", sessionId, "--promise", String(promiseId), "--bond", "0.1", "--as", "user", "--json"],
      env,
    );
    expect(filed.code, filed.err).toBe(0);
    const claimId = JSON.parse(filed.out).claimId as string;
    const claim = await escrow.claim(BigInt(claimId));
    const endsAt = claim.filedAt + (await escrow.constants()).proofWindow;
    const before = await chain.publicClient.getBlockNumber();
    const early = await vaiInProcess(["claim", "default", claimId], env);
    expect(early.code).toBe(1);
    expect(early.err.trim()).toBe(
      `vai claim default: claim ${claimId} cannot default yet: the provider's proof window is open until ${new Date(Number(endsAt) * 1000).toISOString()}, 3 d from now (chain time); run this again after it`,
    );
    expect(early.err).not.toMatch(new RegExp(`\\b${endsAt}\\b`));
    expect(await chain.publicClient.getBlockNumber()).toBe(before);
  });
});
