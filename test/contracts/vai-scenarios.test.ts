// VAI's escrow test list (its Foundry suite), one test per scenario, named after it.
// The verifier is a MockVerifier: "a proof of violation" is a settle(…, true) it accepts. Fence posts are
// tried on both sides of every deadline, on the same state (whatIf rolls the chain back).
import { describe, expect, it } from "vitest";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import {
  addressesOf,
  at,
  BOND,
  claim,
  CLAIM_WINDOW,
  closedAt,
  escrowFixture,
  expectSolvent,
  filedAt,
  latest,
  PAYOUT,
  PROFILE,
  PROOF,
  PROOF_WINDOW,
  proofsValid,
  register,
  session,
  sid,
  whatIf,
} from "./fixture.js";

const fx = escrowFixture();
const solvent = () => expectSolvent(fx, addressesOf(fx));

describe("VAI escrow scenarios", () => {
  it("a valid challenge pays; an invalid one credits the bond", async () => {
    const promiseId = await register(fx, { reserve: 2n * PAYOUT });
    const bad = await session(fx, "violating");
    const good = await session(fx, "compliant");
    const c1 = await claim(fx, bad, promiseId);
    const c2 = await claim(fx, good, promiseId);
    expect(await fx.asStranger.settle(c1, PROOF, true)).toMatchObject({
      beneficiary: fx.user.account.address,
      amount: PAYOUT + BOND,
    });
    expect(await fx.asStranger.settle(c2, PROOF, false)).toMatchObject({
      beneficiary: fx.provider.account.address,
      amount: BOND,
    });
    expect((await fx.escrow.promise(promiseId)).reserve).toBe(PAYOUT);
    await solvent();
  });

  it("only the session party can challenge; replaying the same pair reverts", async () => {
    const promiseId = await register(fx, { reserve: 3n * PAYOUT });
    const s = await session(fx, "s");
    await expect(fx.asStranger.fileClaim(s, promiseId, BOND)).rejects.toThrow(/NotUser/);
    await expect(fx.escrow.fileClaim(s, promiseId, BOND)).rejects.toThrow(/NotUser/); // not even the provider
    await expect(fx.escrow.as(fx.otherUser).fileClaim(s, promiseId, BOND)).rejects.toThrow(/NotUser/);
    const c = await claim(fx, s, promiseId);
    await expect(fx.asUser.fileClaim(s, promiseId, BOND)).rejects.toThrow(/ClaimAlreadyOpen/);
    await fx.escrow.settle(c, PROOF, true);
    await expect(fx.asUser.fileClaim(s, promiseId, BOND)).rejects.toThrow(/PairResolved/);
    await expect(fx.escrow.settle(c, PROOF, true)).rejects.toThrow(/ClaimNotOpen/);
    expect(await fx.escrow.credits(fx.user.account.address)).toBe(PAYOUT + BOND); // paid once
  });

  it("a satisfied final trace cannot be re-challenged", async () => {
    const promiseId = await register(fx);
    const s = await session(fx, "s");
    await fx.escrow.settle(await claim(fx, s, promiseId), PROOF, false);
    await expect(fx.asUser.fileClaim(s, promiseId, BOND)).rejects.toThrow(/PairResolved/);
    expect(await fx.escrow.pair(s, promiseId)).toEqual({ openClaimId: 0n, resolved: true });
  });

  it("a satisfied pair does not clear other sessions or promises", async () => {
    // Reserves for two open claims each: the earmarks are not what this is about.
    const p1 = await register(fx, { reserve: 2n * PAYOUT });
    const p2 = await register(fx, { reserve: 2n * PAYOUT });
    const s1 = await session(fx, "s1");
    const s2 = await session(fx, "s2");
    await fx.escrow.settle(await claim(fx, s1, p1), PROOF, false);
    for (const [s, p] of [
      [s1, p2],
      [s2, p1],
      [s2, p2],
    ] as const) {
      expect(await fx.escrow.pair(s, p)).toEqual({ openClaimId: 0n, resolved: false });
      const c = await claim(fx, s, p);
      expect((await fx.escrow.claim(c)).status).toBe(ClaimStatus.Open);
    }
  });

  it("commit only by the session provider, and only once", async () => {
    const s = sid("s");
    await fx.escrow.openSession(s, fx.user.account.address, PROFILE);
    for (const w of [fx.user, fx.stranger, fx.otherProvider])
      await expect(fx.escrow.as(w).closeSession(s, 1, 9n)).rejects.toThrow(/NotProvider/);
    await fx.escrow.closeSession(s, 1, 9n);
    await expect(fx.escrow.closeSession(s, 1, 9n)).rejects.toThrow(/AlreadyClosed/);
    await expect(fx.escrow.closeSession(s, 2, 10n)).rejects.toThrow(/AlreadyClosed/);
    expect(await fx.escrow.session(s)).toMatchObject({ closed: true, finalN: 1, finalRoot: 9n });
    // An unknown session has no provider, so nobody can commit to it.
    await expect(fx.escrow.closeSession(sid("nope"), 1, 9n)).rejects.toThrow(/NotProvider/);
  });

  it("missing evidence pays without provider action", async () => {
    const promiseId = await register(fx);
    const s = await session(fx, "never closed", { close: false });
    const c = await claim(fx, s, promiseId);
    await expect(fx.escrow.settle(c, PROOF, false)).rejects.toThrow(/SessionNotClosed/);
    await at(fx, (await filedAt(fx, c)) + PROOF_WINDOW);
    // The provider sends nothing; the user (or anyone) collects.
    expect(await fx.asUser.claimDefault(c)).toMatchObject({ amount: PAYOUT + BOND });
    expect(await fx.escrow.credits(fx.user.account.address)).toBe(PAYOUT + BOND);
    await solvent();
  });

  it("a claim storm is paid in full: sessions past the free reserve open visibly uncovered, funding covers more", async () => {
    const promiseId = await register(fx, { reserve: 2n * PAYOUT });
    const storm = [];
    for (let i = 0; i < 2; i++) storm.push(await claim(fx, await session(fx, `storm-${i}`), promiseId));
    // The reserve holds two payouts, both earmarked at open: a third session opens uncovered by the promise,
    // visibly (SessionCovered covered=false), and a claim on it is refused, never starved later.
    expect(await fx.escrow.availableReserve(promiseId)).toBe(0n);
    const thin = await session(fx, "storm-2");
    expect(await fx.escrow.sessionCoverage(thin)).toEqual([
      { promiseId, covered: false, amount: 0n, available: 0n },
    ]);
    await expect(claim(fx, thin, promiseId)).rejects.toThrow(/NotCovered/);
    await fx.asStranger.fund(promiseId, PAYOUT);
    storm.push(await claim(fx, await session(fx, "storm-3"), promiseId));
    await at(fx, (await filedAt(fx, storm[2])) + PROOF_WINDOW);
    for (const c of storm) expect(await fx.asUser.claimDefault(c)).toMatchObject({ amount: PAYOUT + BOND });
    expect(await fx.escrow.credits(fx.user.account.address)).toBe(3n * (PAYOUT + BOND));
    expect(await fx.escrow.promise(promiseId)).toMatchObject({ reserve: 0n, earmarks: 0 });
    await solvent();
  });

  it("retroactive coverage is rejected", async () => {
    const s = await session(fx, "s");
    const late = await register(fx);
    await expect(fx.asUser.fileClaim(s, late, BOND)).rejects.toThrow(/NotCovered/);
    // Registered in the block before the session opens: covered.
    const early = await register(fx);
    const s2 = await session(fx, "s2");
    await expect(claim(fx, s2, early)).resolves.toBeGreaterThan(0n);
  });

  it("the challenge window closes 30 d after commit; an uncommitted session has no expiry", async () => {
    const promiseId = await register(fx, { reserve: 2n * PAYOUT });
    const closed = await session(fx, "closed");
    const open = await session(fx, "open", { close: false });
    const deadline = (await closedAt(fx, closed)) + CLAIM_WINDOW;
    expect(await fx.escrow.claimDeadline(closed, promiseId)).toBe(deadline);
    expect(await fx.escrow.claimDeadline(open, promiseId)).toBeNull();
    await at(fx, deadline + 1n);
    await expect(fx.asUser.fileClaim(closed, promiseId, BOND)).rejects.toThrow(/ClaimWindowClosed/);
    // A year on, the unclosed session can still be claimed.
    await at(fx, deadline + 365n * 24n * 3600n);
    await expect(claim(fx, open, promiseId)).resolves.toBeGreaterThan(0n);
  });

  it("retirement closes new coverage but keeps old", async () => {
    const promiseId = await register(fx, { reserve: 2n * PAYOUT });
    const before = await session(fx, "before", { close: false });
    await fx.escrow.retirePromise(promiseId);
    // A retired promise covers no new session: "auto" leaves it out, and naming it reverts.
    const after = await session(fx, "after");
    expect(await fx.escrow.sessionCoverage(after)).toEqual([]);
    await expect(fx.asUser.fileClaim(after, promiseId, BOND)).rejects.toThrow(/NotCovered/);
    await expect(session(fx, "named", { cover: [promiseId] })).rejects.toThrow(/PromiseIsRetired/);
    // The old session is still covered, and may even close after retirement.
    await fx.escrow.closeSession(before, 3, 7n);
    const c = await claim(fx, before, promiseId);
    expect(await fx.escrow.settle(c, PROOF, true)).toMatchObject({ amount: PAYOUT + BOND });
  });

  it("withdraw-reserve takes only the free part: a covered session's payout cannot be taken back", async () => {
    const promiseId = await register(fx, { reserve: 3n * PAYOUT });
    const s = await session(fx, "s");
    // Exit scam: take the reserve back while a session is covered. Only the two free payouts come out, at any
    // time; the session's earmark stays.
    await expect(fx.asStranger.withdrawReserve(promiseId)).rejects.toThrow(/NotProvider/);
    expect((await fx.escrow.withdrawReserve(promiseId)).amount).toBe(2n * PAYOUT);
    await expect(fx.escrow.withdrawReserve(promiseId)).rejects.toThrow(/NothingToWithdraw/);
    await expect(fx.asStranger.retirePromise(promiseId)).rejects.toThrow(/NotProvider/);
    await fx.escrow.retirePromise(promiseId);
    await expect(fx.escrow.retirePromise(promiseId)).rejects.toThrow(/PromiseIsRetired/);
    await expect(fx.asStranger.fund(promiseId, 1n)).rejects.toThrow(/PromiseIsRetired/);
    await expect(fx.escrow.fund(promiseId, 1n)).rejects.toThrow(/PromiseIsRetired/);
    await expect(fx.escrow.withdrawReserve(promiseId)).rejects.toThrow(/NothingToWithdraw/);
    // The covered session's claim is paid in full, by default too.
    const c = await claim(fx, s, promiseId);
    await at(fx, (await filedAt(fx, c)) + PROOF_WINDOW);
    expect(await fx.asUser.claimDefault(c)).toMatchObject({ amount: PAYOUT + BOND });
    expect(await fx.escrow.credits(fx.provider.account.address)).toBe(2n * PAYOUT);
    expect(await fx.escrow.promise(promiseId)).toMatchObject({ reserve: 0n, earmarks: 0 });
    await solvent();
  });

  it("a satisfied claim frees its earmark for the next session", async () => {
    const promiseId = await register(fx);
    const [a, b] = [await session(fx, "a"), await session(fx, "b")];
    const ca = await claim(fx, a, promiseId);
    await expect(claim(fx, b, promiseId)).rejects.toThrow(/NotCovered/); // b opened with nothing free
    await fx.escrow.settle(ca, PROOF, false);
    const cc = await claim(fx, await session(fx, "c"), promiseId);
    expect(await fx.escrow.settle(cc, PROOF, true)).toMatchObject({ amount: PAYOUT + BOND });
    await solvent();
  });

  it("window fence posts; an earmark is released only after its window", async () => {
    // Each probe runs at exactly `t` on the same state, then rolls back: Hardhat mines reverted transactions
    // too, so two probes in a row would not both run at `t`.
    const probe = (t: bigint, body: () => Promise<unknown>) =>
      whatIf(fx, async () => {
        await at(fx, t);
        await body();
      });
    const promiseId = await register(fx, { reserve: 2n * PAYOUT });
    const s = await session(fx, "s");
    // Claim window: open at exactly closedAt + 30 d, closed one second after.
    const claimEnd = (await closedAt(fx, s)) + CLAIM_WINDOW;
    await probe(claimEnd + 1n, () =>
      expect(fx.asUser.fileClaim(s, promiseId, BOND)).rejects.toThrow(/ClaimWindowClosed/),
    );
    await at(fx, claimEnd);
    const c = await claim(fx, s, promiseId);
    // Proof window: a proof is accepted up to filedAt + 3 d - 1; from filedAt + 3 d only default pays.
    const proofEnd = (await filedAt(fx, c)) + PROOF_WINDOW;
    await probe(proofEnd - 1n, () => expect(fx.asUser.claimDefault(c)).rejects.toThrow(/ProofWindowOpen/));
    await probe(proofEnd - 1n, () =>
      expect(fx.escrow.settle(c, PROOF, false)).resolves.toMatchObject({ amount: BOND }),
    );
    await probe(proofEnd, () =>
      expect(fx.escrow.settle(c, PROOF, false)).rejects.toThrow(/ProofWindowClosed/),
    );
    await at(fx, proofEnd);
    await fx.asUser.claimDefault(c);
    // Retirement takes no coverage back: an unclosed session's earmark holds, with no claim deadline, however long
    // after the retirement; its own close starts the 30 days, as for any session.
    const open = await session(fx, "open", { close: false });
    await fx.escrow.retirePromise(promiseId);
    const retiredAt = (await fx.escrow.promise(promiseId)).retiredAt;
    expect(await fx.escrow.claimDeadline(open, promiseId)).toBeNull();
    await at(fx, retiredAt + 2n * CLAIM_WINDOW);
    await expect(fx.escrow.withdrawReserve(promiseId)).rejects.toThrow(/NothingToWithdraw/);
    await expect(fx.asStranger.releaseCoverage(open, promiseId)).rejects.toThrow(/ClaimWindowOpen/);
    await fx.escrow.closeSession(open, 10, 1n);
    const closedEnd = (await fx.escrow.session(open)).closedAt + CLAIM_WINDOW;
    expect(await fx.escrow.claimDeadline(open, promiseId)).toBe(closedEnd);
    await probe(closedEnd, () => expect(claim(fx, open, promiseId)).resolves.toBeGreaterThan(0n));
    await probe(closedEnd, () =>
      expect(fx.asStranger.releaseCoverage(open, promiseId)).rejects.toThrow(/ClaimWindowOpen/),
    );
    await probe(closedEnd + 1n, () =>
      expect(fx.asUser.fileClaim(open, promiseId, BOND)).rejects.toThrow(/ClaimWindowClosed/),
    );
    await at(fx, closedEnd + 1n);
    // Anyone may release it once the window is over; then the provider withdraws the payout.
    expect(await fx.asStranger.releaseCoverage(open, promiseId)).toMatchObject({
      amount: PAYOUT,
      available: PAYOUT,
    });
    await expect(fx.asStranger.releaseCoverage(open, promiseId)).rejects.toThrow(/NotCovered/);
    expect((await fx.escrow.withdrawReserve(promiseId)).amount).toBe(PAYOUT);
    await expect(fx.escrow.withdrawReserve(promiseId)).rejects.toThrow(/NothingToWithdraw/);
    await solvent();
  });

  it("checkpoints do not start the final clock", async () => {
    const promiseId = await register(fx);
    const s = await session(fx, "s", { close: false, checkpoints: 3 });
    expect(await fx.escrow.claimDeadline(s, promiseId)).toBeNull();
    const t0 = await latest(fx);
    await at(fx, t0 + 40n * 24n * 3600n); // long past 30 d after every checkpoint
    await fx.escrow.checkpoint(s, 100, 42n);
    await at(fx, t0 + 80n * 24n * 3600n);
    await expect(claim(fx, s, promiseId)).resolves.toBeGreaterThan(0n);
    // The final commitment starts it.
    await fx.escrow.closeSession(s, 101, 43n);
    expect(await fx.escrow.claimDeadline(s, promiseId)).toBe((await closedAt(fx, s)) + CLAIM_WINDOW);
  });

  it("checkpoints come only from the provider, with increasing nonzero prefixes", async () => {
    const s = sid("s");
    await fx.escrow.openSession(s, fx.user.account.address, PROFILE);
    for (const w of [fx.user, fx.stranger, fx.otherProvider])
      await expect(fx.escrow.as(w).checkpoint(s, 1, 1n)).rejects.toThrow(/NotProvider/);
    await expect(fx.escrow.checkpoint(s, 0, 1n)).rejects.toThrow(/CheckpointNotIncreasing/);
    await fx.escrow.checkpoint(s, 1, 1n);
    await expect(fx.escrow.checkpoint(s, 1, 2n)).rejects.toThrow(/CheckpointNotIncreasing/);
    await fx.escrow.checkpoint(s, 15, 2n); // the 2nd checkpoint: past the budget's 10 records
    await expect(fx.escrow.checkpoint(s, 14, 3n)).rejects.toThrow(/CheckpointNotIncreasing/);
    expect((await fx.escrow.checkpointsOf(s)).map((c) => c.n)).toEqual([1, 15]);
  });
});

describe("what the scenarios imply", () => {
  it("an invalid proof for either outcome leaves the claim to default", async () => {
    const promiseId = await register(fx);
    const c = await claim(fx, await session(fx, "s"), promiseId);
    await proofsValid(fx, false);
    for (const violated of [true, false])
      await expect(fx.escrow.settle(c, PROOF, violated)).rejects.toThrow(/InvalidProof/);
    await at(fx, (await filedAt(fx, c)) + PROOF_WINDOW);
    expect(await fx.asUser.claimDefault(c)).toMatchObject({ amount: PAYOUT + BOND });
  });

  it("claims on another provider's promise or another profile are refused", async () => {
    const foreign = await register(fx, { from: fx.otherProvider });
    const otherProfile = await register(fx, { profile: PROFILE + 1n });
    await expect(session(fx, "named-foreign", { cover: [foreign] })).rejects.toThrow(/ProviderMismatch/);
    await expect(session(fx, "named-profile", { cover: [otherProfile] })).rejects.toThrow(/ProfileMismatch/);
    const s = await session(fx, "s");
    await expect(fx.asUser.fileClaim(s, foreign, BOND)).rejects.toThrow(/NotCovered/);
    await expect(fx.asUser.fileClaim(s, otherProfile, BOND)).rejects.toThrow(/NotCovered/);
  });
});
