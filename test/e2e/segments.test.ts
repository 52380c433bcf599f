// Sessions longer than any whole-claim circuit settle through segment chains, with real proofs on an
// in-process chain: a 20-record AAP-3 session (the test group's whole-claim circuit holds 4) is cut
// into 3 segments of 8, proven by a local pool of worker processes, sent with proveSegment and settled
// once with settleSegments; satisfied and violated. Then the chain attacks, with the real verifier:
// segments sent out of order settle once, a duplicate is refused, a reordered or shortened chain is
// refused, and a segment proven for another session does not verify for this claim.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { ClaimStatus, scopedSessionId } from "../../sdk/chain/escrow.js";
import { type ChainHandle } from "../../sdk/chain/network.js";
import { Session } from "../../sdk/session.js";
import { TraceStore } from "../../sdk/store.js";
import { registerPromise } from "../../sdk/promises.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { loadClaim } from "../../prover/claims.js";
import { answerSegmentedClaim, needsSegments, prepareSegments } from "../../prover/segments/claims.js";
import { LocalSegmentPool } from "../../prover/segments/pool.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";
import { verifySettlement } from "../../sdk/user/verify-settlement.js";
import { customRevert } from "../contracts/fixture.js";

const DEV = { receiptWindow: 0 };
const PAYOUT = parseEther("1");
const BOND = parseEther("0.1");
const THETA = { payTools: ["pay"], merchants: ["m", "shop"], cap: "100" };
const PROFILE = {
  version: 1,
  tools: { pay: { target: "to", amount: { key: "wei", decimals: 0 } }, search: {} },
};

let chain: ChainHandle;
let deployment: ZkVaiDeployment;
let store: TraceStore;
let pool: LocalSegmentPool;
let promiseId: bigint;

beforeAll(async () => {
  chain = await embeddedChain();
  deployment = await deployZkVai(chain, chain.wallets[0], DEV);
  store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-segments-")), "store.sqlite"));
  pool = new LocalSegmentPool({ workers: 2 });
  ({ promiseId } = await registerPromise(deployment.record, deployment.escrow, store, {
    predicate: "AAP-3",
    theta: THETA,
    profile: PROFILE as never,
    payout: PAYOUT,
    reserve: 10n * PAYOUT,
  }));
});
afterAll(async () => {
  await pool?.close();
  store?.close();
});

/** Records n payments (those at `bad` to a stranger) under the default checkpoint policy, closes, claims. */
async function claimOn(n: number, bad: number[] = []) {
  const escrow = deployment.escrow;
  const user = chain.wallets[1];
  const sessionId = scopedSessionId(HARDHAT_ACCOUNT_0, `segments:${n}:${bad}:${Date.now()}:${Math.random()}`);
  const session = await Session.open({
    store,
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
  const { claimId } = await escrow.as(user).fileClaim(sessionId, promiseId, BOND);
  return { claimId, sessionId };
}

const revertOf = async (call: Promise<unknown>) => (await customRevert(call)).name;

const credits = async () => ({
  user: await deployment.escrow.credits(chain.wallets[1].account.address),
  provider: await deployment.escrow.credits(chain.wallets[0].account.address),
});

describe("segment chains settle on-chain with real proofs", () => {
  it("registers the test group's segment verifier and lets sessions grow past the whole-claim circuits", async () => {
    expect(deployment.record.segmentVerifiers.map((v) => [v.circuit, v.segmentSize])).toEqual([
      ["aap3_seg8", 8],
    ]);
    expect(await deployment.escrow.segmentVerifier(3)).toMatchObject({ segmentSize: 8, checkpoints: 2 });
  });

  for (const [what, bad, violated] of [
    ["satisfied", [], false],
    ["violated in the last segment", [18], true],
  ] as const) {
    it(`20 records in 3 segments through 2 worker processes: ${what}`, async () => {
      const { claimId } = await claimOn(20, [...bad]);
      expect(needsSegments(await loadClaim(store, deployment.escrow, claimId))).toBe(true);
      const before = await credits();
      const events: string[] = [];
      const answer = await answerSegmentedClaim(store, deployment.escrow, claimId, {
        prover: pool,
        progress: (e) => events.push(`${e.stage}:${e.index}`),
      });
      const after = await credits();
      expect(answer.segments).toBe(3);
      expect(answer.verdict.violated).toBe(violated);
      expect(new Set(answer.proofs.map((p) => p.index))).toEqual(new Set([0, 1, 2]));
      expect(events.filter((e) => e.startsWith("proven")).length).toBe(3);
      // Every transaction of the chain stays under 300k gas.
      for (const gas of Object.values(answer.segmentGas)) expect(gas).toBeLessThan(300_000n);
      expect(answer.settleGas).toBeLessThan(300_000n);
      expect(after.user - before.user).toBe(violated ? PAYOUT + BOND : 0n);
      expect(after.provider - before.provider).toBe(violated ? 0n : BOND);
      expect((await deployment.escrow.claim(claimId)).status).toBe(ClaimStatus.Settled);
      // The user's check, trusting only the chain and the manifest: every link's proof verifies again.
      const report = await verifySettlement({
        chain,
        escrow: deployment.escrow.address,
        fromBlock: BigInt(deployment.record.fromBlock),
        claimId,
      });
      expect(report.violated).toBe(violated);
      expect(report.circuit).toBe("aap3_seg8");
      expect(report.checks.join("\n")).toMatch(/all 3 segment proofs verify locally under aap3_seg8's key/);
      console.log(
        `segment chain (${what}): proveSegment gas ${Object.values(answer.segmentGas).join(", ")}; settleSegments ${answer.settleGas}`,
      );
    });
  }

  it("settles once from segments sent out of order, and refuses duplicates, reordered chains and foreign segments", async () => {
    const escrow = deployment.escrow;
    const a = await claimOn(20);
    const b = await claimOn(20, [3]);
    const [pa, pb] = [
      await prepareSegments(await loadClaim(store, escrow, a.claimId), escrow),
      await prepareSegments(await loadClaim(store, escrow, b.claimId), escrow),
    ];
    const [proofsA, proofsB] = [await pool.proveAll(pa.tasks), await pool.proveAll(pb.tasks.slice(0, 1))];
    const words = (i: number) => proofsA.find((p) => p.index === i)!.words.map(BigInt);
    const s = pa.states;

    await escrow.openSegments(a.claimId);
    // Session B's segment 0 under claim A: it proves B's claim digest, not A's, so A's verification rejects it.
    const foreign = proofsB[0]!.words.map(BigInt);
    expect(await revertOf(escrow.proveSegment(a.claimId, 0n, pb.states[1]!, foreign))).toBe("InvalidProof");
    // Out of order: 2, 0, then a duplicate of 0, then 1.
    await escrow.proveSegment(a.claimId, s[2]!, s[3]!, words(2));
    await escrow.proveSegment(a.claimId, s[0]!, s[1]!, words(0));
    expect(await revertOf(escrow.proveSegment(a.claimId, s[0]!, s[1]!, words(0)))).toBe(
      "SegmentAlreadyProven",
    );
    // Settling before segment 1 is proven: the chain has a gap.
    expect(await revertOf(escrow.settleSegments(a.claimId, s))).toBe("SegmentNotProven");
    await escrow.proveSegment(a.claimId, s[1]!, s[2]!, words(1));
    // A reordered chain names links nobody proved; one that skips a segment too; a verdict alone is no chain.
    expect(await revertOf(escrow.settleSegments(a.claimId, [s[0]!, s[2]!, s[1]!, s[3]!]))).toBe(
      "SegmentNotProven",
    );
    expect(await revertOf(escrow.settleSegments(a.claimId, [s[0]!, s[1]!, s[3]!]))).toBe("SegmentNotProven");
    expect(await revertOf(escrow.settleSegments(a.claimId, [s[0]!, s[3]!]))).toBe("SegmentNotProven");
    // A state forged at a boundary: the proof does not verify with it.
    expect(await revertOf(escrow.proveSegment(a.claimId, s[1]! + 1n, s[2]!, words(1)))).toBe("InvalidProof");
    const settled = await escrow.settleSegments(a.claimId, s);
    expect(settled.violated).toBe(false);
    expect(await revertOf(escrow.settleSegments(a.claimId, s))).toBe("ClaimNotOpen");
  });
});
