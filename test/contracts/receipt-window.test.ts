// RECEIPT_WINDOW: settle() takes no proof until RECEIPT_WINDOW after the session's close, so the user can post its
// spare receipt against a close it was not warned of. Without it a provider could close short of a receipt it
// signed and settle an open claim in the same block, before the receipt could land (F1). The fences are exact:
// closedAt + window − 1 refused with ReceiptWindowOpen(opensAt), closedAt + window taken; settleOpensAt says when.
import { describe, expect, it } from "vitest";
import { decodeErrorResult, type Hex } from "viem";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import { accumulate } from "../../sdk/core/hash.js";
import {
  customRevert,
  at,
  BOND,
  claim,
  closedAt,
  escrowFixture,
  filedAt,
  latest,
  PARAMS,
  PAYOUT,
  PROFILE,
  PROOF,
  PROOF_WINDOW,
  register,
  sid,
  signed,
  type Fixture,
} from "./fixture.js";

const WINDOW = 3600;
const fx = escrowFixture({ receiptWindow: WINDOW });
const W = BigInt(WINDOW);

const revertOf = customRevert;

async function opened(label: string, checkpoints: number[] = []): Promise<Hex> {
  const s = sid(label);
  await fx.escrow.openSession(s, fx.user.account.address, PROFILE);
  for (const n of checkpoints) await fx.escrow.checkpoint(s, n, 1000n + BigInt(n));
  return s;
}

/** Arms the MockVerifier to accept only PROOF against these public inputs: "the proof built for them". */
async function proofFor(f: Fixture, inputs: readonly bigint[]) {
  const hash = await f.provider.writeContract({
    address: f.verifier,
    abi: f.mockAbi,
    functionName: "expect",
    args: [PROOF, inputs],
  });
  await f.chain.publicClient.waitForTransactionReceipt({ hash });
}

describe("RECEIPT_WINDOW", () => {
  it("is the deployment's, and settleOpensAt is closedAt + RECEIPT_WINDOW once closed", async () => {
    expect((await fx.escrow.constants()).receiptWindow).toBe(W);
    const s = await opened("opens-at", [1]);
    expect(await revertOf(fx.escrow.settleOpensAt(s))).toMatchObject({ name: "SessionNotClosed" });
    expect(await revertOf(fx.escrow.settleOpensAt(sid("never-opened")))).toMatchObject({
      name: "UnknownSession",
    });
    await fx.escrow.closeSession(s, 5, 555n);
    expect(await fx.escrow.settleOpensAt(s)).toBe((await closedAt(fx, s)) + W);
  });

  it("settle: SessionNotClosed before close, ReceiptWindowOpen(opensAt) up to closedAt + window − 1, taken at closedAt + window", async () => {
    const promiseId = await register(fx);
    const s = await opened("fences", [1]);
    const claimId = await claim(fx, s, promiseId);
    expect((await revertOf(fx.escrow.settle(claimId, PROOF, false))).name).toBe("SessionNotClosed");
    await fx.escrow.closeSession(s, 5, 555n);
    const opensAt = (await closedAt(fx, s)) + W;
    expect(await fx.escrow.settleOpensAt(s)).toBe(opensAt);
    // Both outcomes, anyone: the fence is the same. (A refused transaction is mined too, so each try takes its
    // own second.)
    const t0 = await latest(fx);
    for (const [t, as, violated] of [
      [t0 + 1n, fx.asStranger, true],
      [t0 + 2n, fx.escrow, false],
      [opensAt - 2n, fx.escrow, true],
      [opensAt - 1n, fx.asStranger, false],
    ] as const) {
      await at(fx, t);
      expect(await revertOf(as.settle(claimId, PROOF, violated)), `at ${t}`).toEqual({
        name: "ReceiptWindowOpen",
        args: [opensAt],
      });
    }
    await at(fx, opensAt);
    expect(await fx.asStranger.settle(claimId, PROOF, false)).toMatchObject({
      violated: false,
      amount: BOND,
    });
    expect(await latest(fx)).toBe(opensAt);
  });

  it("a claim filed after close waits for the same second; claimDefault is not held back", async () => {
    const promiseId = await register(fx, { reserve: 2n * PAYOUT });
    const s = await opened("after-close", [1]);
    await fx.escrow.closeSession(s, 5, 555n);
    const opensAt = (await closedAt(fx, s)) + W;
    const settled = await claim(fx, s, promiseId);
    await at(fx, opensAt - 1n);
    expect((await revertOf(fx.escrow.settle(settled, PROOF, true))).name).toBe("ReceiptWindowOpen");
    await at(fx, opensAt);
    expect(await fx.escrow.settle(settled, PROOF, true)).toMatchObject({ amount: PAYOUT + BOND });
    // The proof window (3 days) always ends past the receipt window (< 3 days), so a default is never early.
    const other = await opened("after-close-default", [1]);
    await fx.escrow.closeSession(other, 5, 555n);
    const defaulted = await claim(fx, other, promiseId);
    await at(fx, (await filedAt(fx, defaulted)) + PROOF_WINDOW);
    expect(await fx.asStranger.claimDefault(defaulted)).toMatchObject({ amount: PAYOUT + BOND });
  });

  it("a claim filed long before close loses the window from its PROOF_WINDOW: closed at filedAt + PROOF_WINDOW − window, it can only default", async () => {
    const promiseId = await register(fx);
    const s = await opened("late-close", [1]);
    const claimId = await claim(fx, s, promiseId);
    const endsAt = (await filedAt(fx, claimId)) + PROOF_WINDOW;
    await at(fx, endsAt - W);
    await fx.escrow.closeSession(s, 5, 555n);
    expect(await fx.escrow.settleOpensAt(s)).toBe(endsAt);
    await at(fx, endsAt - 1n);
    expect(await revertOf(fx.escrow.settle(claimId, PROOF, false))).toEqual({
      name: "ReceiptWindowOpen",
      args: [endsAt],
    });
    await at(fx, endsAt);
    expect(await revertOf(fx.escrow.settle(claimId, PROOF, false))).toEqual({
      name: "ProofWindowClosed",
      args: [endsAt],
    });
    await at(fx, endsAt + 1n);
    expect(await fx.asUser.claimDefault(claimId)).toMatchObject({ amount: PAYOUT + BOND });
  });
});

describe("the attack it closes (F1): close short of a signed receipt, and settle before the receipt lands", () => {
  it("a claim filed while open; the provider closes at 20 of the 25 it signed and settles in the same block, then the next second: refused; the user's spare lands within the window and the provider's proof no longer matches", async () => {
    const promiseId = await register(fx);
    const s = await opened("f1", [10]);
    // The provider served 25 records and signed the user a receipt for them; the user has not posted it yet.
    const r25 = { sessionId: s, n: 25, root: 2525n };
    const sig25 = await signed(fx, r25);
    const claimId = await claim(fx, s, promiseId);
    // The provider's proof over the 20-record commitment it is about to make, built beforehand for the inputs
    // the escrow will read at close (the mock, armed for exactly them, stands in for it).
    const atClose = [
      await fx.escrow.context(s, promiseId),
      2020n,
      20n,
      (await fx.escrow.session(s)).acc,
      PARAMS,
      0n,
    ] as const;
    await proofFor(fx, atClose);

    // Close short and settle in one block: the settle transaction is mined, and reverts.
    await fx.chain.testClient.setAutomine(false);
    let hashes: Hex[];
    try {
      const send = (functionName: "closeSession" | "settle", args: readonly unknown[]) =>
        fx.provider.writeContract({
          address: fx.escrow.address,
          abi: fx.escrow.abi,
          functionName,
          args,
          gas: 500_000n,
        } as Parameters<typeof fx.provider.writeContract>[0]);
      hashes = [await send("closeSession", [s, 20, 2020n]), await send("settle", [claimId, PROOF, false])];
      await fx.chain.testClient.mine({ blocks: 1 });
    } finally {
      await fx.chain.testClient.setAutomine(true);
    }
    const [close, settle] = await Promise.all(
      hashes.map((hash) => fx.chain.publicClient.getTransactionReceipt({ hash })),
    );
    expect(close.status).toBe("success");
    expect(settle.status).toBe("reverted");
    expect(settle.blockNumber).toBe(close.blockNumber);
    const closed = await closedAt(fx, s);
    const opensAt = closed + W;
    // Why it reverted, from the node's trace of the mined transaction: the window, not the proof.
    const trace = (await fx.chain.publicClient.request({
      method: "debug_traceTransaction",
      params: [settle.transactionHash],
    } as never)) as { failed: boolean; returnValue: string };
    expect(trace.failed).toBe(true);
    const returned = (
      trace.returnValue.startsWith("0x") ? trace.returnValue : `0x${trace.returnValue}`
    ) as Hex;
    expect(decodeErrorResult({ abi: fx.escrow.abi, data: returned })).toMatchObject({
      errorName: "ReceiptWindowOpen",
      args: [opensAt],
    });
    expect(await fx.escrow.session(s)).toMatchObject({ closed: true, finalN: 20, spareReceiptUsed: false });
    expect((await fx.escrow.claim(claimId)).status).toBe(ClaimStatus.Open);
    expect(await fx.escrow.publicInputs(claimId, false)).toEqual(atClose);
    // The next second: still refused.
    await at(fx, closed + 1n);
    expect(await revertOf(fx.escrow.settle(claimId, PROOF, false))).toEqual({
      name: "ReceiptWindowOpen",
      args: [opensAt],
    });

    // Within the window, the user's spare lands: an entry past finalN that no proof over 20 records can match.
    await at(fx, opensAt - 2n);
    expect(await fx.asUser.postReceipt(r25, sig25, { spare: true })).toMatchObject({ n: 25, spare: true });
    const info = await fx.escrow.session(s);
    const entries = await fx.escrow.checkpointsOf(s);
    expect(info.acc).toBe(accumulate(entries));
    expect(entries.filter((e) => e.n > info.finalN)).toMatchObject([{ n: 25, kind: "receipt", spare: true }]);
    const now = await fx.escrow.publicInputs(claimId, false);
    expect(now[3]).toBe(info.acc);
    expect(now[3]).not.toBe(atClose[3]);

    // Still refused until the window ends; from then on the proof built before the spare fails (InvalidProof),
    // and the claim defaults and pays.
    await at(fx, opensAt - 1n);
    expect((await revertOf(fx.escrow.settle(claimId, PROOF, false))).name).toBe("ReceiptWindowOpen");
    await at(fx, opensAt);
    expect((await revertOf(fx.escrow.settle(claimId, PROOF, false))).name).toBe("InvalidProof");
    await at(fx, (await filedAt(fx, claimId)) + PROOF_WINDOW);
    expect(await fx.asUser.claimDefault(claimId)).toMatchObject({ amount: PAYOUT + BOND });
  });

  it("an honest close: the same proof, armed for the inputs at close, settles once the window has passed without a spare", async () => {
    const promiseId = await register(fx);
    const s = await opened("honest", [10]);
    const claimId = await claim(fx, s, promiseId);
    await fx.escrow.closeSession(s, 25, 2525n);
    await proofFor(fx, await fx.escrow.publicInputs(claimId, false));
    await at(fx, (await fx.escrow.settleOpensAt(s)) - 1n);
    expect((await revertOf(fx.escrow.settle(claimId, PROOF, false))).name).toBe("ReceiptWindowOpen");
    await at(fx, await fx.escrow.settleOpensAt(s));
    expect(await fx.escrow.settle(claimId, PROOF, false)).toMatchObject({ violated: false, amount: BOND });
  });
});
