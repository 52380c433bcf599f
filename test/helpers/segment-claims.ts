// A deployment with the test group's segment verifier (aap3_seg8), an AAP-3 promise, and claims on sessions
// of n payments, for the segment-chain tests with real proofs (test/e2e/segments.test.ts,
// test/full/segment-attacks.test.ts).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { expect } from "vitest";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { ClaimStatus, scopedSessionId } from "../../sdk/chain/escrow.js";
import { type ChainHandle } from "../../sdk/chain/network.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { loadClaim } from "../../prover/claims.js";
import { answerSegmentedClaim, needsSegments } from "../../prover/segments/claims.js";
import { LocalSegmentPool } from "../../prover/segments/pool.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";
import { verifySettlement } from "../../sdk/user/verify-settlement.js";
import { customRevert } from "../contracts/fixture.js";

export const PAYOUT = parseEther("1");
export const BOND = parseEther("0.1");
const THETA = { payTools: ["pay"], merchants: ["m", "shop"], cap: "100" };
const PROFILE = {
  version: 1,
  tools: { pay: { target: "to", amount: { key: "wei", decimals: 0 } }, search: {} },
};

export interface SegmentWorld {
  chain: ChainHandle;
  deployment: ZkVaiDeployment;
  store: TraceStore;
  pool: LocalSegmentPool;
  promiseId: bigint;
  close(): Promise<void>;
}

/** An in-process chain (claims settle right after close), the deployment, a store and a pool of 2 workers. */
export async function segmentWorld(): Promise<SegmentWorld> {
  const chain = await embeddedChain();
  const deployment = await deployZkVai(chain, chain.wallets[0], { receiptWindow: 0, segmentSize: 8 });
  const store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-segments-")), "store.sqlite"));
  const pool = new LocalSegmentPool({ workers: 2 });
  const { promiseId } = await registerPromise(deployment.record, deployment.escrow, store, {
    predicate: "AAP-3",
    theta: THETA,
    profile: PROFILE as never,
    payout: PAYOUT,
    reserve: 10n * PAYOUT,
  });
  return {
    chain,
    deployment,
    store,
    pool,
    promiseId,
    async close() {
      await pool.close();
      store.close();
    },
  };
}

/** Records n payments (those at `bad` to a stranger) under the default checkpoint policy, closes, claims. */
export async function claimOn(w: SegmentWorld, n: number, bad: number[] = []) {
  const escrow = w.deployment.escrow;
  const user = w.chain.wallets[1];
  const sessionId = scopedSessionId(HARDHAT_ACCOUNT_0, `segments:${n}:${bad}:${Date.now()}:${Math.random()}`);
  const session = await Session.open({
    store: w.store,
    escrow,
    sessionId,
    user: user.account.address,
    profile: PROFILE as never,
  });
  for (let i = 0; i < n; i++) {
    const to = bad.includes(i) ? "stranger" : i % 2 ? "m" : "shop";
    session.append({ kind: "call", tool: "pay", args: { to, wei: String(i + 1) } });
  }
  await session.close();
  const { claimId } = await escrow.as(user).fileClaim(sessionId, w.promiseId, BOND);
  return { claimId, sessionId };
}

export const revertOf = async (call: Promise<unknown>) => (await customRevert(call)).name;

export const credits = async (w: SegmentWorld) => ({
  user: await w.deployment.escrow.credits(w.chain.wallets[1].account.address),
  provider: await w.deployment.escrow.credits(w.chain.wallets[0].account.address),
});

/** Claims on a 20-record session, answers it by segments, and checks the money and the user's verification. */
export async function settleAndVerify(w: SegmentWorld, bad: number[], violated: boolean) {
  const { claimId } = await claimOn(w, 20, bad);
  const escrow = w.deployment.escrow;
  expect(needsSegments(await loadClaim(w.store, escrow, claimId))).toBe(true);
  const before = await credits(w);
  const events: string[] = [];
  const answer = await answerSegmentedClaim(w.store, escrow, claimId, {
    prover: w.pool,
    progress: (e) => events.push(`${e.stage}:${e.index}`),
  });
  const after = await credits(w);
  expect(answer.segments).toBe(3);
  expect(answer.verdict.violated).toBe(violated);
  expect(new Set(answer.proofs.map((p) => p.index))).toEqual(new Set([0, 1, 2]));
  expect(events.filter((e) => e.startsWith("proven")).length).toBe(3);
  // The whole chain settles in one settleChain transaction (one pairing check for the 3 links, 6 pairings in
  // place of 12): 466,543 gas measured, against about 1.0M for open + 3 proveSegment + settleSegments before.
  expect(answer.segmentGas).toEqual({});
  expect(answer.settleGas).toBeLessThan(520_000n);
  expect(after.user - before.user).toBe(violated ? PAYOUT + BOND : 0n);
  expect(after.provider - before.provider).toBe(violated ? 0n : BOND);
  expect((await escrow.claim(claimId)).status).toBe(ClaimStatus.Settled);
  await expectVerified(w, claimId, violated);
  console.log(
    `segment chain (violated=${violated}): settleChain of ${answer.segments} links, ${answer.settleGas} gas`,
  );
}

/** The user's check, trusting only the chain and the manifest: the chain of links, and every link's proof again. */
export async function expectVerified(w: SegmentWorld, claimId: bigint, violated: boolean) {
  const report = await verifySettlement({
    chain: w.chain,
    escrow: w.deployment.escrow.address,
    fromBlock: BigInt(w.deployment.record.fromBlock),
    claimId,
  });
  expect(report.violated).toBe(violated);
  expect(report.circuit).toBe("aap3_seg8");
  expect(report.checks.join("\n")).toMatch(/all 3 segment proofs verify locally under aap3_seg8's key/);
}
