// Coverage decided at openSession (#34 finding 1), as the SDK sees it: "auto" names every active promise of the
// provider pinned to the session's profile, each covers the session when its free reserve holds its payout and
// leaves it visibly uncovered otherwise; coverageOf and sessionCoverage read it back; releaseExpired gives the
// earmarks whose claim windows ended back to the free reserve; and Session.open reports it (openTx.coverage, and
// a `session.uncovered` warning). The README's default path (registerPromise, then Session.open) covers the
// session, so a claim on it is paid.
import { describe, expect, it } from "vitest";
import { Coverage } from "../../sdk/chain/escrow.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import { profileHash } from "../../sdk/core/profile.js";
import { Session } from "../../sdk/provider/session.js";
import { freshId, PROFILE as SESSION_PROFILE, sessionEnv } from "../sdk/session-fixture.js";
import {
  at,
  BOND,
  claim,
  CLAIM_WINDOW,
  closedAt,
  escrowFixture,
  expectSolvent,
  addressesOf,
  filedAt,
  PAYOUT,
  PROFILE,
  PROOF_WINDOW,
  register,
  session,
} from "./fixture.js";

const fx = escrowFixture();

describe("EscrowClient: coverage at open", () => {
  it('"auto" names the opener\'s active promises with the profile; each covers while its free reserve lasts', async () => {
    const roomy = await register(fx, { reserve: 2n * PAYOUT });
    const thin = await register(fx);
    const retired = await register(fx);
    await fx.escrow.retirePromise(retired);
    await register(fx, { profile: PROFILE + 1n }); // another profile: not named
    await register(fx, { from: fx.otherProvider }); // another provider's: not named
    const first = await session(fx, "first");
    expect(await fx.escrow.sessionCoverage(first)).toEqual([
      { promiseId: roomy, covered: true, amount: PAYOUT, available: PAYOUT },
      { promiseId: thin, covered: true, amount: PAYOUT, available: 0n },
    ]);
    // The second session: roomy still covers it, thin has nothing free and leaves it uncovered, visibly.
    const second = await session(fx, "second");
    expect(await fx.escrow.sessionCoverage(second)).toEqual([
      { promiseId: roomy, covered: true, amount: PAYOUT, available: 0n },
      { promiseId: thin, covered: false, amount: 0n, available: 0n },
    ]);
    expect(await fx.escrow.coverageOf(second, thin)).toEqual({
      coverage: Coverage.None,
      openClaimId: 0n,
      amount: 0n,
    });
    const c = await claim(fx, second, roomy);
    expect(await fx.escrow.coverageOf(second, roomy)).toEqual({
      coverage: Coverage.Earmarked,
      openClaimId: c,
      amount: PAYOUT,
    });
    await at(fx, (await filedAt(fx, c)) + PROOF_WINDOW);
    await fx.asUser.claimDefault(c);
    expect(await fx.escrow.coverageOf(second, roomy)).toEqual({
      coverage: Coverage.Resolved,
      openClaimId: 0n,
      amount: 0n,
    });
    // An empty cover opens a session nothing covers.
    const bare = await session(fx, "bare", { cover: [] });
    expect(await fx.escrow.sessionCoverage(bare)).toEqual([]);
    await expectSolvent(fx, addressesOf(fx));
  });

  it("releaseExpired frees exactly the earmarks whose windows ended with no claim open", async () => {
    const promiseId = await register(fx, { reserve: 3n * PAYOUT });
    const quiet = await session(fx, "quiet");
    const claimed = await session(fx, "claimed");
    const open = await session(fx, "open", { close: false }); // no close: no window end until retirement
    expect(await fx.escrow.availableReserve(promiseId)).toBe(0n);
    const late = (await closedAt(fx, claimed)) + CLAIM_WINDOW;
    await at(fx, late);
    const c = await claim(fx, claimed, promiseId); // filed on the window's last second
    await fx.chain.testClient.increaseTime({ seconds: 60 });
    await fx.chain.testClient.mine({ blocks: 1 });
    expect(await fx.escrow.releaseExpired(promiseId)).toEqual([quiet]);
    expect(await fx.escrow.coverageOf(quiet, promiseId)).toMatchObject({ coverage: Coverage.Released });
    expect(await fx.escrow.availableReserve(promiseId)).toBe(PAYOUT);
    // The claimed pair keeps its earmark until the claim ends; the unclosed session keeps its own.
    expect(await fx.escrow.coverageOf(claimed, promiseId)).toMatchObject({ coverage: Coverage.Earmarked });
    expect(await fx.escrow.coverageOf(open, promiseId)).toMatchObject({ coverage: Coverage.Earmarked });
    await at(fx, (await filedAt(fx, c)) + PROOF_WINDOW);
    expect(await fx.asUser.claimDefault(c)).toMatchObject({ amount: PAYOUT + BOND });
    expect(await fx.escrow.releaseExpired(promiseId)).toEqual([]);
    await expectSolvent(fx, addressesOf(fx));
  });
});

describe("Session.open: coverage", () => {
  it("covers the session by the provider's promises by default, reports it, and warns of one it could not", async () => {
    const env = await sessionEnv(1, [{ predicateId: 4, capacity: 8 }]);
    const hash = profileHash(SESSION_PROFILE);
    const args = { predicateId: 4, paramsHash: 1n, profileHash: hash, payout: PAYOUT };
    const { promiseId } = await env.escrow.registerPromise({ ...args, value: PAYOUT });
    const open = async (extra: Partial<Parameters<typeof Session.open>[0]> = {}) => {
      const log = memoryLogger();
      const sessionId = freshId("coverage");
      const session = await Session.open({
        store: env.store(),
        escrow: env.escrow,
        sessionId,
        user: env.user,
        profile: SESSION_PROFILE,
        policy: { everyRecords: Infinity, everyMs: Infinity },
        log,
        ...extra,
      });
      return { session, log, sessionId };
    };
    const first = await open();
    expect(first.session.openTx?.coverage).toEqual([
      { promiseId, covered: true, amount: PAYOUT, available: 0n },
    ]);
    expect(first.log.entries.find((e) => e.event === "session.covered")?.fields).toMatchObject({
      promises: [String(promiseId)],
    });
    // Nothing left free: the next session opens uncovered by it, with a warning, not silently.
    const second = await open();
    expect(second.session.openTx?.coverage).toEqual([
      { promiseId, covered: false, amount: 0n, available: 0n },
    ]);
    expect(
      second.log.entries.filter((e) => e.level === "warn" && e.event === "session.uncovered"),
    ).toHaveLength(1);
    // cover: [] opens one nothing covers.
    expect((await open({ cover: [] })).session.openTx?.coverage).toEqual([]);
  });
});
