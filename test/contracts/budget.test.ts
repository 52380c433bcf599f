// The checkpoint budget (protocol v2) on production's interval of 10: no cap, the k-th fold entry of a
// session needs n > (k − 1)·interval whoever posts it (the spare receipt, posted as such, excepted), and a
// 10,000-record session
// takes its 1,000 checkpoints and the spare receipt, exactly checkpointSlots(10,000) entries.
import { describe, expect, it } from "vitest";
import { type Hex } from "viem";
import { isTransportError, revertName } from "../../sdk/chain/retry.js";
import { checkpointAffordable, checkpointSlots } from "../../sdk/core/checkpoints.js";
import { accumulate, FIELD_MODULUS as R } from "../../sdk/core/hash.js";
import { customRevert, escrowFixture, PROFILE, sid, signed } from "./fixture.js";

const fx = escrowFixture();

const revertOf = customRevert;

async function opened(label: string): Promise<Hex> {
  const s = sid(label);
  await fx.escrow.openSession(s, fx.user.account.address, PROFILE);
  return s;
}

describe("the checkpoint budget", () => {
  it("takes the k-th checkpoint at n > (k − 1)·interval and not at the bound, as checkpointAffordable says", async () => {
    const s = await opened("budget");
    expect((await fx.escrow.constants()).checkpointInterval).toBe(10);
    for (let k = 1; k <= 6; k++) {
      const bound = (k - 1) * fx.interval;
      if (k > 1) {
        expect(checkpointAffordable(k - 1, bound, fx.interval)).toBe(false);
        const refused = await revertOf(fx.escrow.checkpoint(s, bound, 7n));
        expect(refused).toEqual({ name: "CheckpointBudget", args: [bound, k - 1, fx.interval] });
        // Permanent: the same question gets the same answer, so it is never retried as transient.
        const error = await fx.escrow.checkpoint(s, bound, 7n).catch((x: unknown) => x);
        expect(revertName(error)).toBe("CheckpointBudget");
        expect(isTransportError(error)).toBe(false);
      }
      expect(checkpointAffordable(k - 1, bound + 1, fx.interval)).toBe(true);
      await fx.escrow.checkpoint(s, bound + 1, BigInt(k));
    }
    expect(await fx.escrow.session(s)).toMatchObject({ checkpointCount: 6, lastN: 51 });
  });

  it("is earned by records, not spent ahead of them: a late first checkpoint leaves later ones within it", async () => {
    const s = await opened("late-start");
    await fx.escrow.checkpoint(s, 95, 1n); // count 1 at 95 records: the next needs > 10, which 96 is
    await fx.escrow.checkpoint(s, 96, 2n);
    await fx.escrow.checkpoint(s, 97, 3n);
    expect((await fx.escrow.session(s)).checkpointCount).toBe(3);
  });

  it("counts the user's receipts too: a receipt before close is a fold entry like any checkpoint", async () => {
    const s = await opened("shared");
    await fx.escrow.checkpoint(s, 1, 1n);
    const receipt = { sessionId: s, n: 11, root: 11n };
    expect(await fx.asUser.postReceipt(receipt, await signed(fx, receipt))).toMatchObject({ spare: false });
    expect(await revertOf(fx.escrow.checkpoint(s, 20, 2n))).toEqual({
      name: "CheckpointBudget",
      args: [20, 2, 10],
    });
    // The spare (asked for) folds outside the rules; a receipt beyond the budget that is not the spare gets the
    // budget's own answer, as a checkpoint would, and a second spare SpareReceiptUsed.
    const spare = { sessionId: s, n: 5, root: 5n };
    expect(await fx.asUser.postReceipt(spare, await signed(fx, spare), { spare: true })).toMatchObject({
      spare: true,
    });
    const early = { sessionId: s, n: 30, root: 30n };
    expect(await revertOf(fx.asUser.postReceipt(early, await signed(fx, early)))).toEqual({
      name: "CheckpointBudget",
      args: [30, 3, 10],
    });
    expect(
      (await revertOf(fx.asUser.postReceipt(early, await signed(fx, early), { spare: true }))).name,
    ).toBe("SpareReceiptUsed");
    // The spare counts as an entry: the provider's next checkpoint needs n > 3·interval.
    expect((await revertOf(fx.escrow.checkpoint(s, 30, 3n))).name).toBe("CheckpointBudget");
    await fx.escrow.checkpoint(s, 31, 3n);
    expect(await fx.escrow.session(s)).toMatchObject({ checkpointCount: 4, lastN: 31 });
  });

  it("a receipt the budget refuses: CheckpointBudget, nothing spent; as the spare it folds, so time-triggered checkpoints cannot spend it away", async () => {
    // The provider checkpoints as soon as the budget allows (timer-driven), at 1, 11 and 21 records: the 4th
    // entry needs n > 30. The user holds the provider's receipt for 30 records.
    const s = await opened("spent-by-timer");
    for (const n of [1, 11, 21]) await fx.escrow.checkpoint(s, n, BigInt(n));
    const r = { sessionId: s, n: 30, root: 3030n };
    expect(checkpointAffordable(3, r.n, fx.interval)).toBe(false);
    // Not asked for as the spare: the budget's answer, and the spare stays unspent (never taken silently).
    expect(await revertOf(fx.asUser.postReceipt(r, await signed(fx, r)))).toEqual({
      name: "CheckpointBudget",
      args: [30, 3, 10],
    });
    expect(await fx.escrow.session(s)).toMatchObject({ checkpointCount: 3, spareReceiptUsed: false });
    const posted = await fx.asUser.postReceipt(r, await signed(fx, r), { spare: true });
    expect(posted).toMatchObject({ n: 30, spare: true });
    expect(await fx.escrow.session(s)).toMatchObject({
      checkpointCount: 4,
      lastN: 30,
      spareReceiptUsed: true,
    });
    // Its n is the floor now: the provider cannot close on the 21 records it checkpointed.
    expect(await revertOf(fx.escrow.closeSession(s, 21, 1n))).toEqual({
      name: "FinalBelowCheckpoint",
      args: [21, 30],
    });
    await fx.escrow.closeSession(s, 30, 3030n);
    // Three entries under the budget and the spare: exactly what the circuit for 30 records folds.
    const info = await fx.escrow.session(s);
    expect(info.checkpointCount).toBe(checkpointSlots(info.finalN, fx.interval));
    expect(info.acc).toBe(accumulate([...[1, 11, 21].map((n) => ({ n, root: BigInt(n) })), r]));
    const late = { sessionId: s, n: 31, root: 31n };
    expect((await revertOf(fx.asUser.postReceipt(late, await signed(fx, late), { spare: true }))).name).toBe(
      "SpareReceiptUsed",
    );
    expect((await revertOf(fx.asUser.postReceipt(late, await signed(fx, late)))).name).toBe("AlreadyClosed");
  });

  it("has no cap: a 10,000-record session takes 1,000 checkpoints and the spare receipt, checkpointSlots(10,000) entries", async () => {
    const s = await opened("ten-thousand");
    const interval = fx.interval;
    const records = 10_000;
    const entries: { n: number; root: bigint }[] = [];
    // Sent without waiting for each receipt, with a fixed gas limit (no estimate): Hardhat automines each on
    // arrival, in order. The session's count below checks that every one landed.
    const at = (k: number) => interval * (k - 1) + 1;
    for (let k = 1; k < 1_000; k++) {
      const root = R - BigInt(k);
      entries.push({ n: at(k), root });
      await fx.provider.writeContract({
        address: fx.escrow.address,
        abi: fx.escrow.abi,
        functionName: "checkpoint",
        args: [s, at(k), root],
        gas: 120_000n,
      });
    }
    const last = await fx.escrow.checkpoint(s, at(1_000), R - 1_000n);
    entries.push({ n: at(1_000), root: R - 1_000n });
    expect(last.gasUsed, "the 1,000th checkpoint costs what the 2nd does").toBeLessThanOrEqual(80_000n);
    expect(await fx.escrow.session(s)).toMatchObject({ checkpointCount: 1_000, lastN: 9_991 });
    // The 1,001st would need more than 10,000 records: the session is full exactly at its size.
    expect((await revertOf(fx.escrow.checkpoint(s, records, 1n))).name).toBe("CheckpointBudget");
    await fx.escrow.closeSession(s, records, 123n);
    const late = { sessionId: s, n: records, root: 77n };
    expect(await fx.asUser.postReceipt(late, await signed(fx, late), { spare: true })).toMatchObject({
      spare: true,
    });
    entries.push({ n: late.n, root: late.root });

    const info = await fx.escrow.session(s);
    expect(info.checkpointCount).toBe(checkpointSlots(records, interval));
    expect(info.checkpointCount).toBe(await fx.escrow.checkpointSlots(records));
    expect(info.acc).toBe(accumulate(entries));
    const onChain = await fx.escrow.checkpointsOf(s);
    expect(onChain.map(({ n, root }) => ({ n, root }))).toEqual(entries);
    expect(onChain.filter((e) => e.kind === "receipt").map((e) => e.spare)).toEqual([true]);
  });
});
