// Issue 33 item 9: fileClaim failures are ZkvaiErrors with a code, naming the escrow's custom error, never raw
// viem errors; and the escrow's times in a revert are read as dates.
import { HttpRequestError } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { EscrowRevertError, EscrowTxError } from "../../sdk/chain/escrow.js";
import { escrowFailure } from "../../sdk/chain/escrow-errors.js";
import { describeError } from "../../sdk/chain/retry.js";
import { ZkvaiError } from "../../sdk/core/errors.js";
import { paramsHashOf, predicateById } from "../../sdk/core/predicates/index.js";
import { profileHash } from "../../sdk/core/profile.js";
import { Session } from "../../sdk/provider/session.js";
import { PROFILE, freshId, sessionEnv, type SessionEnv } from "./session-fixture.js";

const AAP4 = predicateById("AAP-4");
const BOND = 10n ** 16n;
let env: SessionEnv;
let promiseId: bigint;

beforeAll(async () => {
  env = await sessionEnv(1, [{ predicateId: AAP4.code, capacity: 8 }]);
  const theta = AAP4.parseTheta({ outboundTools: ["send_email"], allowlist: ["a@x"] });
  ({ promiseId } = await env.escrow.registerPromise({
    predicateId: AAP4.code,
    paramsHash: paramsHashOf(AAP4, theta),
    profileHash: profileHash(PROFILE),
    payout: 10n ** 15n,
    value: 10n ** 17n,
  }));
});

async function closedSession() {
  const sessionId = freshId();
  const session = await Session.open({
    store: env.store(),
    escrow: env.escrow,
    sessionId,
    user: env.user,
    profile: PROFILE,
  });
  await session.call("send_email", { to: "a@x" }, async () => "sent");
  await session.close();
  return sessionId;
}

describe("fileClaim failures", () => {
  it("a revert is an EscrowRevertError naming the escrow's custom error", async () => {
    const sessionId = await closedSession();
    const stranger = env.escrow.as(env.chain.wallets[2]);
    const filing = stranger.fileClaim(sessionId, promiseId, BOND);
    await expect(filing).rejects.toThrow(EscrowRevertError);
    const e = (await filing.catch((x: unknown) => x)) as EscrowRevertError;
    expect(e).toBeInstanceOf(ZkvaiError);
    expect(e.code).toBe("ESCROW_REVERTED");
    expect([e.functionName, e.revert]).toEqual(["fileClaim", "NotUser"]);
    expect(e.message).toBe("fileClaim reverted: NotUser()");
    const asUser = env.escrow.as(env.chain.wallets[1]);
    await expect(asUser.fileClaim(sessionId, promiseId + 50n, BOND)).rejects.toMatchObject({
      code: "ESCROW_REVERTED",
      revert: "UnknownPromise",
    });
  });

  it("a failure to reach the node is an EscrowTxError, marked transient", () => {
    const e = escrowFailure(
      "fileClaim",
      new HttpRequestError({ url: "http://127.0.0.1:1", details: "fetch failed" }),
    );
    expect(e).toBeInstanceOf(EscrowTxError);
    expect(e).toMatchObject({ code: "ESCROW_TX_FAILED", functionName: "fileClaim", transient: true });
    expect(e.message).toMatch(/^fileClaim failed: /);
  });

  it("a filed claim's early default names the end of the proof window as a date", async () => {
    const sessionId = await closedSession();
    const asUser = env.escrow.as(env.chain.wallets[1]);
    const { claimId } = await asUser.fileClaim(sessionId, promiseId, BOND);
    const claim = await env.escrow.claim(claimId);
    const endsAt = claim.filedAt + (await env.escrow.constants()).proofWindow;
    const e = await env.escrow.claimDefault(claimId).catch((x: unknown) => x);
    const iso = new Date(Number(endsAt) * 1000).toISOString();
    expect(describeError(e)).toBe(`claimDefault reverted: ProofWindowOpen(endsAt=${iso} (${endsAt}))`);
  });
});
