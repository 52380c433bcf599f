// VAI's settlement table (paper, Appendix B.2, Table 4), rebuilt for zkVAI from docs/PROTOCOL.md: one
// test per row, each checking who is credited what, what the reserve loses, the claim's status, the pair's
// state, and that the escrow still holds exactly what it owes (P6). docs/PROTOCOL.md prints the same table.
import { describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import {
  addressesOf,
  at,
  BOND,
  claim,
  escrowFixture,
  expectSolvent,
  filedAt,
  PAYOUT,
  PROOF,
  PROOF_WINDOW,
  proofsValid,
  register,
  session,
  type Fixture,
} from "./fixture.js";

const fx = escrowFixture();

interface Ctx {
  promiseId: bigint;
  sessionId: Hex;
  claimId: bigint;
}

/**
 * A claim on a closed (or unclosed) session, over a promise whose reserve is exactly the payout; with
 * `earlier`, another session's claim was filed first and holds the earmark, and this one was filed after
 * the promise was funded for it.
 */
async function filed(o: { close?: boolean; earlier?: boolean } = {}): Promise<Ctx> {
  const promiseId = await register(fx);
  if (o.earlier) {
    await claim(fx, await session(fx, "earlier"), promiseId);
    expect(await fx.escrow.availableReserve(promiseId)).toBe(0n);
    await fx.asStranger.fund(promiseId, PAYOUT);
  }
  const sessionId = await session(fx, "row", { close: o.close });
  const claimId = await claim(fx, sessionId, promiseId);
  return { promiseId, sessionId, claimId };
}

async function afterWindow(c: Ctx) {
  await at(fx, (await filedAt(fx, c.claimId)) + PROOF_WINDOW);
}

interface Row {
  row: string;
  setup: () => Promise<Ctx>;
  act: (c: Ctx) => Promise<unknown>;
  /** Expected revert; otherwise the credits and reserve deltas below. */
  error?: RegExp;
  user?: bigint;
  provider?: bigint;
  reserve?: bigint;
  status: ClaimStatus;
  resolved: boolean;
}

const rows: Row[] = [
  {
    row: "1. proof of violation within the proof window: user gets p + b from the reserve",
    setup: () => filed(),
    act: (c) => fx.asStranger.settle(c.claimId, PROOF, true),
    user: PAYOUT + BOND,
    reserve: -PAYOUT,
    status: ClaimStatus.Settled,
    resolved: true,
  },
  {
    row: "2. proof of satisfaction within the proof window: provider gets b, reserve untouched",
    setup: () => filed(),
    act: (c) => fx.asStranger.settle(c.claimId, PROOF, false),
    provider: BOND,
    status: ClaimStatus.Settled,
    resolved: true,
  },
  {
    row: "3. a proof that does not verify changes nothing; the claim stays open",
    setup: async () => {
      const c = await filed();
      await proofsValid(fx, false);
      return c;
    },
    act: (c) => fx.escrow.settle(c.claimId, PROOF, false),
    error: /InvalidProof/,
    status: ClaimStatus.Open,
    resolved: false,
  },
  {
    row: "4. no proof within 3 days: default pays the user p + b",
    setup: () => filed(),
    act: async (c) => {
      await afterWindow(c);
      return fx.asStranger.claimDefault(c.claimId);
    },
    user: PAYOUT + BOND,
    reserve: -PAYOUT,
    status: ClaimStatus.Defaulted,
    resolved: true,
  },
  {
    row: "5. no final commitment: no proof can settle, default pays p + b after 3 days",
    setup: async () => {
      const c = await filed({ close: false });
      await expect(fx.escrow.settle(c.claimId, PROOF, false)).rejects.toThrow(/SessionNotClosed/);
      return c;
    },
    act: async (c) => {
      await afterWindow(c);
      return fx.asUser.claimDefault(c.claimId);
    },
    user: PAYOUT + BOND,
    reserve: -PAYOUT,
    status: ClaimStatus.Defaulted,
    resolved: true,
  },
  {
    row: "6. proof of violation on a claim filed second: its earmarked payout is there",
    setup: () => filed({ earlier: true }),
    act: (c) => fx.escrow.settle(c.claimId, PROOF, true),
    user: PAYOUT + BOND,
    reserve: -PAYOUT,
    status: ClaimStatus.Settled,
    resolved: true,
  },
  {
    row: "7. proof of satisfaction on a claim filed second: provider gets b, the earmark is freed",
    setup: () => filed({ earlier: true }),
    act: (c) => fx.escrow.settle(c.claimId, PROOF, false),
    provider: BOND,
    status: ClaimStatus.Settled,
    resolved: true,
  },
  {
    row: "8. default on a claim filed second: pays p + b from its earmark",
    setup: () => filed({ earlier: true }),
    act: async (c) => {
      await afterWindow(c);
      return fx.asUser.claimDefault(c.claimId);
    },
    user: PAYOUT + BOND,
    reserve: -PAYOUT,
    status: ClaimStatus.Defaulted,
    resolved: true,
  },
  {
    row: "11. a proof after the proof window is refused; the claim defaults instead",
    setup: () => filed(),
    act: async (c) => {
      await afterWindow(c);
      return fx.escrow.settle(c.claimId, PROOF, false);
    },
    error: /ProofWindowClosed/,
    status: ClaimStatus.Open,
    resolved: false,
  },
  {
    row: "12. default before the proof window ends is refused",
    setup: () => filed(),
    act: async (c) => {
      await at(fx, (await filedAt(fx, c.claimId)) + PROOF_WINDOW - 1n);
      return fx.asUser.claimDefault(c.claimId);
    },
    error: /ProofWindowOpen/,
    status: ClaimStatus.Open,
    resolved: false,
  },
  {
    row: "15. a resolved pair, settled or defaulted, never settles or pays again",
    setup: async () => {
      const c = await filed();
      await fx.escrow.settle(c.claimId, PROOF, true);
      await fx.escrow.fund(c.promiseId, PAYOUT);
      return c;
    },
    act: async (c) => {
      await expect(fx.escrow.settle(c.claimId, PROOF, true)).rejects.toThrow(/ClaimNotOpen/);
      await afterWindow(c);
      await expect(fx.asUser.claimDefault(c.claimId)).rejects.toThrow(/ClaimNotOpen/);
      return fx.asUser.fileClaim(c.sessionId, c.promiseId, BOND);
    },
    error: /PairResolved/,
    status: ClaimStatus.Settled,
    resolved: true,
  },
];

async function snapshotOf(c: Ctx) {
  return {
    user: await fx.escrow.credits(fx.user.account.address),
    provider: await fx.escrow.credits(fx.provider.account.address),
    reserve: (await fx.escrow.promise(c.promiseId)).reserve,
  };
}

describe("settlement table (VAI Table 4, as implemented)", () => {
  it.each(rows)("$row", async (r) => {
    const c = await r.setup();
    const before = await snapshotOf(c);
    if (r.error) await expect(r.act(c)).rejects.toThrow(r.error);
    else await r.act(c);
    const after = await snapshotOf(c);
    expect({
      user: after.user - before.user,
      provider: after.provider - before.provider,
      reserve: after.reserve - before.reserve,
    }).toEqual({ user: r.user ?? 0n, provider: r.provider ?? 0n, reserve: r.reserve ?? 0n });
    expect((await fx.escrow.claim(c.claimId)).status).toBe(r.status);
    const pair = await fx.escrow.pair(c.sessionId, c.promiseId);
    expect(pair.resolved).toBe(r.resolved);
    expect(pair.openClaimId).toBe(r.status === ClaimStatus.Open ? c.claimId : 0n);
    await expectSolvent(fx, addressesOf(fx));
  });
});

describe("claims the table never admits", () => {
  async function rejected(f: Fixture, body: () => Promise<unknown>, error: RegExp) {
    const held = await f.chain.publicClient.getBalance({ address: f.escrow.address });
    await expect(body()).rejects.toThrow(error);
    expect(await f.chain.publicClient.getBalance({ address: f.escrow.address })).toBe(held); // no bond kept
  }

  it("16. a claim on a session the free reserve could not cover at open is refused at filing and takes no bond", async () => {
    const c = await filed(); // its session's open earmarked the whole reserve
    const s = await session(fx, "later"); // so this one opened uncovered by the promise (SessionCovered: false)
    await rejected(fx, () => fx.asUser.fileClaim(s, c.promiseId, BOND), /NotCovered/);
    // Once the first claim is resolved as satisfied, its earmark is free again: it covers the next session,
    // never one that opened uncovered.
    await fx.escrow.settle(c.claimId, PROOF, false);
    await rejected(fx, () => fx.asUser.fileClaim(s, c.promiseId, BOND), /NotCovered/);
    await expect(fx.asUser.fileClaim(await session(fx, "next"), c.promiseId, BOND)).resolves.toBeDefined();
  });

  it("17. a second claim while one is open on the pair is refused", async () => {
    const c = await filed();
    await rejected(fx, () => fx.asUser.fileClaim(c.sessionId, c.promiseId, BOND), /ClaimAlreadyOpen/);
  });

  it("18. a claim with no bond, or by anyone but the session's user, is refused", async () => {
    const promiseId = await register(fx);
    const s = await session(fx, "s");
    await rejected(fx, () => fx.asUser.fileClaim(s, promiseId, 0n), /ZeroValue/);
    await rejected(fx, () => fx.asStranger.fileClaim(s, promiseId, BOND), /NotUser/);
    await rejected(fx, () => fx.escrow.fileClaim(s, promiseId, BOND), /NotUser/);
  });

  it("19. self-claims cannot spend a covered session's payout: drained, front-run and retired, the honest claim is paid", async () => {
    const promiseId = await register(fx, { reserve: 3n * PAYOUT });
    const honest = await session(fx, "honest"); // earmarks one payout for the user's session
    // Drain: the provider opens sessions naming an address it controls (otherUser) until nothing is free.
    const socks = [
      await session(fx, "sock-1", { user: fx.otherUser }),
      await session(fx, "sock-2", { user: fx.otherUser }),
    ];
    expect(await fx.escrow.availableReserve(promiseId)).toBe(0n);
    const sock3 = await session(fx, "sock-3", { user: fx.otherUser }); // nothing free: uncovered, visibly
    await rejected(fx, () => fx.escrow.as(fx.otherUser).fileClaim(sock3, promiseId, 1n), /NotCovered/);
    // Front-run: self-claims land before the honest one, which is filed all the same.
    const self = [];
    for (const s of socks) self.push((await fx.escrow.as(fx.otherUser).fileClaim(s, promiseId, 1n)).claimId);
    await fx.chain.testClient.increaseTime({ seconds: 3600 });
    const honestClaim = await claim(fx, honest, promiseId);
    // Defaults timed against the honest claim: the self-claims pay the provider's addresses from their own
    // sessions' earmarks, and retiring and withdrawing find nothing free.
    await at(fx, (await filedAt(fx, self[0])) + PROOF_WINDOW);
    for (const id of self) await fx.escrow.claimDefault(id);
    await fx.escrow.retirePromise(promiseId);
    await rejected(fx, () => fx.escrow.withdrawReserve(promiseId), /NothingToWithdraw/);
    expect(await fx.escrow.promise(promiseId)).toMatchObject({ reserve: PAYOUT, earmarks: 1 });
    // The honest session's violation, proven, is paid in full.
    expect(await fx.asStranger.settle(honestClaim, PROOF, true)).toMatchObject({
      beneficiary: fx.user.account.address,
      amount: PAYOUT + BOND,
    });
    expect(await fx.escrow.promise(promiseId)).toMatchObject({ reserve: 0n, earmarks: 0 });
    await expectSolvent(fx, addressesOf(fx));
  });
});
