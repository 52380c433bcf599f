// Receipts (protocol v2): the provider's EIP-712 signature over (sessionId, n, root), posted by the session's
// user, who says which kind it posts. One definition (sdk/core/receipt.ts) on both sides; before close a receipt
// posted as no spare folds like a checkpoint when within the checkpoint rules and reverts with the rule's error
// otherwise (AlreadyClosed after close), spending nothing; one receipt per session, the spare, folds outside the
// rules, before close or within RECEIPT_WINDOW after it (later only while no claim was filed: SpareReceiptTooLate),
// and only when asked for (no silent fallback a provider could trigger by front-running with a checkpoint); every other signature, poster or domain is refused with a custom error; a
// high-s twin is normalised by the SDK, refused by the escrow when sent raw; and the attack receipts exist for, a
// provider closing on fewer records than it signed (or checkpointing another history), ends with a claim no
// proof can settle.
import { describe, expect, it } from "vitest";
import { domainSeparator, type Address, type Hex } from "viem";
import { verifyReceipt } from "../../sdk/chain/receipts.js";
import { isTransportError, revertName } from "../../sdk/chain/retry.js";
import { accumulate, FIELD_MODULUS as R } from "../../sdk/core/hash.js";
import {
  RECEIPT_PRIMARY_TYPE,
  RECEIPT_TYPES,
  receiptDigest,
  receiptDomain,
  type Receipt,
} from "../../sdk/core/receipt.js";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import {
  customRevert,
  at,
  BOND,
  claim,
  closedAt,
  escrowFixture,
  filedAt,
  PAYOUT,
  PROFILE,
  PROOF_WINDOW,
  register,
  sid,
  signed,
  whatIf,
  type Fixture,
} from "./fixture.js";

// An hour's RECEIPT_WINDOW, as `vai deploy` sets: the spare receipts below, posted right after close with a claim
// open, land within it. Nothing here settles, so nothing waits for it.
const fx = escrowFixture({ receiptWindow: 3600 });
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const OTHER_ESCROW: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

const revertOf = async (call: Promise<unknown>) => (await customRevert(call)).name;

const revertArgs = async (call: Promise<unknown>) => (await customRevert(call)).args;

async function opened(label: string, checkpoints: number[] = []): Promise<Hex> {
  const s = sid(label);
  await fx.escrow.openSession(s, fx.user.account.address, PROFILE);
  for (const n of checkpoints) await fx.escrow.checkpoint(s, n, 1000n + BigInt(n));
  return s;
}

/** r ‖ (N − s) ‖ v flipped: the malleable twin, which ecrecover maps to the same signer. */
function highS(signature: Hex): Hex {
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130), 16);
  return `${signature.slice(0, 66)}${(N - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
}

/**
 * Posts with raw arguments, past the client's own checks and normalisation (n = 0, v other than 27/28, high s).
 * Simulated only, unless `send`: then a real transaction, mined, for a revert that must come from the chain.
 */
async function postRaw(
  f: Fixture,
  r: Receipt,
  v: number,
  rr: Hex,
  ss: Hex,
  o: { spare?: boolean; send?: boolean } = {},
) {
  const request = {
    account: f.user.account,
    address: f.escrow.address,
    abi: f.escrow.abi,
    functionName: "postReceipt",
    args: [r.sessionId, r.n, r.root, o.spare ?? false, v, rr, ss],
  } as const;
  if (!o.send) return f.chain.publicClient.simulateContract(request);
  const hash = await f.user.writeContract({ ...request, gas: 200_000n });
  return f.chain.publicClient.waitForTransactionReceipt({ hash });
}

/** A signature by the provider over a receipt that skips signReceipt's checks (n = 0, for one). */
function signUnchecked(f: Fixture, r: Receipt): Promise<Hex> {
  return f.provider.signTypedData({
    account: f.provider.account,
    domain: receiptDomain(f.chain.chainId, f.escrow.address),
    types: RECEIPT_TYPES,
    primaryType: RECEIPT_PRIMARY_TYPE,
    message: r,
  });
}

const split = (sig: Hex) => ({
  r: `0x${sig.slice(2, 66)}` as Hex,
  s: `0x${sig.slice(66, 130)}` as Hex,
  v: Number.parseInt(sig.slice(130), 16),
});

describe("one definition on both sides", () => {
  it("the escrow's digest, domain separator and EIP-5267 domain equal sdk/core/receipt.ts", async () => {
    const domain = receiptDomain(fx.chain.chainId, fx.escrow.address);
    expect(await fx.escrow.domainSeparator()).toBe(domainSeparator({ domain }));
    const s = sid("parity");
    for (const r of [
      { sessionId: s, n: 1, root: 0n },
      { sessionId: s, n: 2 ** 32 - 1, root: R - 1n },
      { sessionId: sid("other"), n: 10, root: 123456789n },
    ])
      expect(await fx.escrow.receiptDigest(r)).toBe(receiptDigest(domain, r));
    const [fields, name, version, chainId, verifyingContract] = await fx.chain.publicClient.readContract({
      address: fx.escrow.address,
      abi: fx.escrow.abi,
      functionName: "eip712Domain",
    });
    expect({ fields, name, version, chainId, verifyingContract }).toEqual({
      fields: "0x0f",
      name: domain.name,
      version: domain.version,
      chainId: BigInt(domain.chainId),
      verifyingContract: fx.escrow.address,
    });
  });
});

describe("postReceipt before close", () => {
  it("within the rules, folds like a checkpoint: the same checks, the same acc, lastN and count", async () => {
    const s = await opened("before", [5]);
    const r = { sessionId: s, n: 15, root: R - 15n };
    const sig = await signed(fx, r);
    expect(await verifyReceipt({ chainId: fx.chain.chainId, escrow: fx.escrow.address }, r, sig)).toEqual({
      ok: true,
      signer: fx.provider.account.address,
    });
    const posted = await fx.asUser.postReceipt(r, sig);
    expect(posted).toMatchObject({ n: 15, root: R - 15n, spare: false });
    const info = await fx.escrow.session(s);
    const entries = await fx.escrow.checkpointsOf(s);
    expect(entries.map(({ n, kind, spare }) => ({ n, kind, spare }))).toEqual([
      { n: 5, kind: "checkpoint", spare: false },
      { n: 15, kind: "receipt", spare: false },
    ]);
    expect(info).toMatchObject({ lastN: 15, checkpointCount: 2, spareReceiptUsed: false, acc: posted.acc });
    expect(info.acc).toBe(accumulate([{ n: 5, root: 1005n }, r]));
    // The provider's own checkpoints go on from the receipt's n.
    expect(await revertOf(fx.escrow.checkpoint(s, 15, 1n))).toBe("CheckpointNotIncreasing");
    await fx.escrow.checkpoint(s, 21, 21n);
    // Another receipt within the rules is again no spare.
    const next = { sessionId: s, n: 31, root: 31n };
    expect(await fx.asUser.postReceipt(next, await signed(fx, next))).toMatchObject({ spare: false });
    expect((await fx.escrow.session(s)).spareReceiptUsed).toBe(false);
  });

  it("needs a field-element root and a known session", async () => {
    const s = await opened("args");
    const big = { sessionId: s, n: 1, root: R };
    const sig = await signUnchecked(fx, big);
    const { v, r, s: ss } = split(sig);
    expect(await revertOf(postRaw(fx, big, v, r, ss))).toBe("NotFieldElement");
    const unknown = { sessionId: sid("never-opened"), n: 1, root: 1n };
    expect(await revertOf(fx.asUser.postReceipt(unknown, await signed(fx, unknown)))).toBe("UnknownSession");
  });
});

describe("the spare receipt: one per session, outside the rules or after close, at any time", () => {
  it("after close: any n ≥ 1, without ordering or budget; lastN stays; a second is refused (SpareReceiptUsed)", async () => {
    const s = await opened("late", [1, 11]);
    await fx.escrow.closeSession(s, 12, 555n);
    const before = await fx.escrow.session(s);
    // Below lastN and with the budget long spent: still the one spare entry, when posted as the spare.
    const r = { sessionId: s, n: 3, root: 333n };
    // Not as the spare: nothing folds after close (AlreadyClosed), even within the rules, and the spare stays.
    const above = { sessionId: s, n: 21, root: 2121n };
    for (const x of [r, above])
      expect(await revertOf(fx.asUser.postReceipt(x, await signed(fx, x))), `n ${x.n}`).toBe("AlreadyClosed");
    expect(await fx.escrow.session(s)).toEqual(before);
    const posted = await fx.asUser.postReceipt(r, await signed(fx, r), { spare: true });
    expect(posted).toMatchObject({ n: 3, spare: true });
    const after = await fx.escrow.session(s);
    expect(after).toMatchObject({
      spareReceiptUsed: true,
      checkpointCount: 3,
      lastN: 11,
      finalN: 12,
      closed: true,
    });
    expect(after.acc).toBe(accumulate([{ n: 1, root: 1001n }, { n: 11, root: 1011n }, r]));
    expect(after.acc).not.toBe(before.acc);
    const second = { sessionId: s, n: 12, root: 555n };
    expect(await revertOf(fx.asUser.postReceipt(second, await signed(fx, second), { spare: true }))).toBe(
      "SpareReceiptUsed",
    );
    expect(await revertOf(fx.asUser.postReceipt(second, await signed(fx, second)))).toBe("AlreadyClosed");
    expect(await revertOf(fx.escrow.checkpoint(s, 13, 1n))).toBe("AlreadyClosed");
  });

  it("refuses n = 0: as the spare EmptyReceipt while it is unspent, before and after close; else the rules' error", async () => {
    const s = await opened("empty", [1]);
    const zero = { sessionId: s, n: 0, root: 1n };
    const { v, r, s: ss } = split(await signUnchecked(fx, zero));
    expect(await revertOf(postRaw(fx, zero, v, r, ss, { spare: true }))).toBe("EmptyReceipt");
    expect(await revertOf(postRaw(fx, zero, v, r, ss))).toBe("CheckpointNotIncreasing");
    await fx.escrow.closeSession(s, 4, 555n);
    expect(await revertOf(postRaw(fx, zero, v, r, ss, { spare: true }))).toBe("EmptyReceipt");
    expect(await revertOf(postRaw(fx, zero, v, r, ss))).toBe("AlreadyClosed");
  });

  it("with a claim open: after the provider closed short (at 20), the receipt for 25 folds an entry past finalN, and the claim defaults and pays", async () => {
    const promiseId = await register(fx, { reserve: 2n * PAYOUT });
    const s = await opened("claim-then-short-close", [10]);
    // The user claims while the session is open (allowed), then the provider closes on fewer records than the
    // receipt it signed for 25.
    const claimId = await claim(fx, s, promiseId);
    await fx.escrow.closeSession(s, 20, 2020n);
    const frozen = (await fx.escrow.publicInputs(claimId, false))[3];
    const r = { sessionId: s, n: 25, root: 2525n };
    expect(await fx.asUser.postReceipt(r, await signed(fx, r), { spare: true })).toMatchObject({
      n: 25,
      spare: true,
    });
    const info = await fx.escrow.session(s);
    expect(info).toMatchObject({ finalN: 20, lastN: 10, checkpointCount: 2, spareReceiptUsed: true });
    const entries = await fx.escrow.checkpointsOf(s);
    expect(info.acc).toBe(accumulate(entries));
    expect(entries.filter((e) => e.n > info.finalN)).toMatchObject([{ n: 25, kind: "receipt", spare: true }]);
    // The open claim's public inputs moved with acc: a proof built before the spare no longer matches, and no
    // proof over 20 records can match the n = 25 entry.
    const inputs = await fx.escrow.publicInputs(claimId, false);
    expect(inputs[3]).toBe(info.acc);
    expect(inputs[3]).not.toBe(frozen);
    await at(fx, (await filedAt(fx, claimId)) + PROOF_WINDOW);
    expect(await fx.asUser.claimDefault(claimId)).toMatchObject({ amount: PAYOUT + BOND });
  });

  it("with a claim open before close: a receipt within the rules still folds as a checkpoint, the spare stays", async () => {
    const promiseId = await register(fx);
    const s = await opened("claim-open-rules", [2]);
    await claim(fx, s, promiseId);
    const early = { sessionId: s, n: 12, root: 12n };
    expect(await fx.asUser.postReceipt(early, await signed(fx, early))).toMatchObject({ spare: false });
    await fx.escrow.closeSession(s, 12, 555n);
    const late = { sessionId: s, n: 13, root: 13n };
    expect(await fx.asUser.postReceipt(late, await signed(fx, late), { spare: true })).toMatchObject({
      spare: true,
    });
  });

  it("equivocation before close: checkpoints to 20 over one history, a receipt for 15 of another head; the rules refuse it, the spare takes it, lastN stays 20", async () => {
    const s = await opened("equivocation", [10, 20]);
    const other = { sessionId: s, n: 15, root: 1515_0000n }; // not the head the checkpoints' history has at 15
    const sig = await signed(fx, other);
    // Not asked for as the spare: the rule's error, and nothing spent.
    expect(await revertArgs(fx.asUser.postReceipt(other, sig))).toEqual([15, 20]);
    expect(await fx.escrow.session(s)).toMatchObject({ checkpointCount: 2, spareReceiptUsed: false });
    const posted = await fx.asUser.postReceipt(other, sig, { spare: true });
    expect(posted).toMatchObject({ n: 15, root: other.root, spare: true });
    const info = await fx.escrow.session(s);
    expect(info).toMatchObject({ lastN: 20, checkpointCount: 3, spareReceiptUsed: true, closed: false });
    const entries = await fx.escrow.checkpointsOf(s);
    expect(entries.map(({ n, kind, spare }) => ({ n, kind, spare }))).toEqual([
      { n: 10, kind: "checkpoint", spare: false },
      { n: 20, kind: "checkpoint", spare: false },
      { n: 15, kind: "receipt", spare: true },
    ]);
    expect(info.acc).toBe(accumulate(entries));
    // The provider goes on within the rules (the spare counts as an entry: the 4th needs n > 30).
    expect(await revertOf(fx.escrow.checkpoint(s, 30, 30n))).toBe("CheckpointBudget");
    await fx.escrow.checkpoint(s, 31, 31n);
    await fx.escrow.closeSession(s, 31, 3131n);
  });

  it("before close with n > lastN (beyond the budget): raises lastN, so closing below it is refused", async () => {
    const s = await opened("spare-raises", [1, 11]); // the 3rd entry needs n > 20
    const r = { sessionId: s, n: 18, root: 1818n };
    expect(await revertOf(fx.asUser.postReceipt(r, await signed(fx, r)))).toBe("CheckpointBudget");
    expect(await fx.asUser.postReceipt(r, await signed(fx, r), { spare: true })).toMatchObject({
      spare: true,
    });
    expect(await fx.escrow.session(s)).toMatchObject({
      lastN: 18,
      checkpointCount: 3,
      spareReceiptUsed: true,
    });
    expect(await revertOf(fx.escrow.closeSession(s, 15, 1515n))).toBe("FinalBelowCheckpoint");
    expect(await revertArgs(fx.escrow.closeSession(s, 17, 1717n))).toEqual([17, 18]);
    await fx.escrow.closeSession(s, 18, 1818n);
  });

  it("the spare's deadline: with a claim filed, none after closedAt + RECEIPT_WINDOW, so a proof built once settlement opens is never voided; without a claim it is taken later, before the claim", async () => {
    const promiseId = await register(fx, { reserve: 2n * PAYOUT });
    const claimed = await opened("deadline-claimed", [2]);
    const claimId = await claim(fx, claimed, promiseId);
    await fx.escrow.closeSession(claimed, 12, 555n);
    const deadline = (await closedAt(fx, claimed)) + BigInt(fx.receiptWindow);
    const r = { sessionId: claimed, n: 13, root: 13n };
    const sig = await signed(fx, r);
    // One second before it, the spare is still taken (probed, then rolled back).
    await whatIf(fx, async () => {
      await at(fx, deadline - 1n);
      expect(await fx.asUser.postReceipt(r, sig, { spare: true })).toMatchObject({ spare: true });
    });
    // At the deadline, when settle() opens, the fold is frozen: the attack (a spare held back and posted just
    // before the provider's proof lands) is refused, and nothing is spent.
    await at(fx, deadline);
    expect(await customRevert(fx.asUser.postReceipt(r, sig, { spare: true }))).toEqual({
      name: "SpareReceiptTooLate",
      args: [deadline],
    });
    expect(await fx.escrow.session(claimed)).toMatchObject({ spareReceiptUsed: false, checkpointCount: 1 });
    expect(await fx.escrow.settleOpensAt(claimed)).toBe(deadline);
    expect((await fx.escrow.claim(claimId)).status).toBe(ClaimStatus.Open);
    // With no claim filed, the user may still post its spare days after close; a claim filed after it is proven
    // against the new fold from the start, with its whole PROOF_WINDOW.
    const quiet = await opened("deadline-unclaimed", [2]);
    await fx.escrow.closeSession(quiet, 12, 555n);
    await at(fx, (await closedAt(fx, quiet)) + 10n * 24n * 3600n);
    const q = { sessionId: quiet, n: 14, root: 14n };
    expect(await fx.asUser.postReceipt(q, await signed(fx, q), { spare: true })).toMatchObject({
      spare: true,
    });
    const late = await claim(fx, quiet, promiseId);
    expect((await fx.escrow.publicInputs(late, false))[3]).toBe((await fx.escrow.session(quiet)).acc);
  });

  it("a second spare is refused with SpareReceiptUsed, before and after close; outside the rules a non-spare gets the rule's own error", async () => {
    const s = await opened("second-spare", [1, 11]);
    const first = { sessionId: s, n: 5, root: 55n };
    expect(await fx.asUser.postReceipt(first, await signed(fx, first), { spare: true })).toMatchObject({
      spare: true,
    });
    const below = { sessionId: s, n: 7, root: 77n };
    const budget = { sessionId: s, n: 25, root: 2525n }; // 3 entries: the 4th needs n > 30
    for (const x of [below, budget])
      expect(await revertOf(fx.asUser.postReceipt(x, await signed(fx, x), { spare: true })), `n ${x.n}`).toBe(
        "SpareReceiptUsed",
      );
    expect(await revertOf(fx.asUser.postReceipt(below, await signed(fx, below)))).toBe(
      "CheckpointNotIncreasing",
    );
    expect(await revertOf(fx.asUser.postReceipt(budget, await signed(fx, budget)))).toBe("CheckpointBudget");
    // Their arguments are the checkpoint's: (n, lastN) and (n, count, interval).
    expect(await revertArgs(fx.asUser.postReceipt(below, await signed(fx, below)))).toEqual([7, 11]);
    expect(await revertArgs(fx.asUser.postReceipt(budget, await signed(fx, budget)))).toEqual([25, 3, 10]);
    const zero = { sessionId: s, n: 0, root: 1n };
    const z = split(await signUnchecked(fx, zero));
    expect(await revertOf(postRaw(fx, zero, z.v, z.r, z.s))).toBe("CheckpointNotIncreasing");
    expect(await revertOf(postRaw(fx, zero, z.v, z.r, z.s, { spare: true }))).toBe("SpareReceiptUsed");
    // Within the rules a receipt still folds.
    const ok = { sessionId: s, n: 31, root: 31n };
    expect(await fx.asUser.postReceipt(ok, await signed(fx, ok))).toMatchObject({ spare: false });
    await fx.escrow.closeSession(s, 31, 3131n);
    const after = { sessionId: s, n: 40, root: 40n };
    expect(await revertOf(fx.asUser.postReceipt(after, await signed(fx, after), { spare: true }))).toBe(
      "SpareReceiptUsed",
    );
    expect(await revertOf(fx.asUser.postReceipt(after, await signed(fx, after)))).toBe("AlreadyClosed");
    expect((await fx.escrow.session(s)).checkpointCount).toBe(4);
  });
});

describe("refusals", () => {
  const target = () => ({ chainId: fx.chain.chainId, escrow: fx.escrow.address });

  it("a signature by another key, for another session, chain or escrow: BadReceiptSignature, and verifyReceipt agrees", async () => {
    const s = await opened("forged", [1]);
    const r = { sessionId: s, n: 11, root: 11n };
    const good = await signed(fx, r);
    const cases: [string, Receipt, Hex, string][] = [
      ["another key", r, await signed(fx, r, { signer: fx.stranger }), "wrong-signer"],
      ["the user's own key", r, await signed(fx, r, { signer: fx.user }), "wrong-signer"],
      ["another session", r, await signed(fx, { ...r, sessionId: sid("elsewhere") }), "wrong-signer"],
      ["another n", r, await signed(fx, { ...r, n: 12 }), "wrong-signer"],
      ["another root", r, await signed(fx, { ...r, root: 12n }), "wrong-signer"],
      ["another chain id", r, await signed(fx, r, { chainId: 1 }), "wrong-signer"],
      ["another escrow", r, await signed(fx, r, { escrow: OTHER_ESCROW }), "wrong-signer"],
    ];
    for (const [what, receipt, sig, reason] of cases) {
      expect(await revertOf(fx.asUser.postReceipt(receipt, sig)), what).toBe("BadReceiptSignature");
      expect(await verifyReceipt(target(), receipt, sig), what).toMatchObject({ ok: false, reason });
    }
    // A permanent answer, never retried as a transport failure.
    const error = await fx.asUser.postReceipt(r, cases[0][2]).catch((e: unknown) => e);
    expect(revertName(error)).toBe("BadReceiptSignature");
    expect(isTransportError(error)).toBe(false);
    // None of them moved anything; the genuine one still folds.
    expect((await fx.escrow.session(s)).checkpointCount).toBe(1);
    await fx.asUser.postReceipt(r, good);
    expect((await fx.escrow.session(s)).checkpointCount).toBe(2);
    // On the spare's path too (after close): a forgery is refused and leaves the spare unspent.
    await fx.escrow.closeSession(s, 11, 555n);
    const late = { sessionId: s, n: 12, root: 12n };
    for (const sig of [await signed(fx, late, { signer: fx.stranger }), await signed(fx, { ...late, n: 13 })])
      expect(await revertOf(fx.asUser.postReceipt(late, sig, { spare: true }))).toBe("BadReceiptSignature");
    expect((await fx.escrow.session(s)).spareReceiptUsed).toBe(false);
    await fx.asUser.postReceipt(late, await signed(fx, late), { spare: true });
    expect((await fx.escrow.session(s)).spareReceiptUsed).toBe(true);
  });

  it("the malleable (high-s) twin: the SDK normalises it to the low one, so verifyReceipt and postReceipt take it; sent raw, the escrow refuses it", async () => {
    const s = await opened("high-s", [1]);
    const r = { sessionId: s, n: 11, root: 11n };
    const good = await signed(fx, r);
    const twin = highS(good);
    expect(BigInt(split(twin).s)).toBeGreaterThan(N / 2n);
    // The escrow itself takes only the low s, before close and after, on either kind: a real transaction,
    // refused on chain, that moves nothing.
    const raw = split(twin);
    for (const spare of [false, true])
      expect(
        await revertOf(postRaw(fx, r, raw.v, raw.r, raw.s, { spare, send: true })),
        `spare ${spare}`,
      ).toBe("BadReceiptSignature");
    expect(await fx.escrow.session(s)).toMatchObject({ checkpointCount: 1, spareReceiptUsed: false });
    // The SDK's answer agrees with what it sends: the twin verifies, signed by the provider.
    expect(await verifyReceipt(target(), r, twin)).toEqual({ ok: true, signer: fx.provider.account.address });
    const posted = await fx.asUser.postReceipt(r, twin);
    expect(posted).toMatchObject({ n: 11, root: 11n, spare: false });
    // Sent as (r, N − s, v flipped): the same signature postReceipt would send for the low original.
    const tx = await fx.chain.publicClient.getTransaction({ hash: posted.txHash });
    const low = split(good);
    expect(tx.input.toLowerCase()).toContain(low.s.slice(2).toLowerCase());
    expect(tx.input.toLowerCase()).not.toContain(raw.s.slice(2).toLowerCase());
    expect(await fx.escrow.session(s)).toMatchObject({ checkpointCount: 2, lastN: 11 });
    // After close, as the spare: the twin of a receipt for more records folds too.
    await fx.escrow.closeSession(s, 11, 555n);
    const late = { sessionId: s, n: 12, root: 12n };
    const lateTwin = highS(await signed(fx, late));
    const spare = split(lateTwin);
    expect(await revertOf(postRaw(fx, late, spare.v, spare.r, spare.s, { spare: true, send: true }))).toBe(
      "BadReceiptSignature",
    );
    expect(await fx.asUser.postReceipt(late, lateTwin, { spare: true })).toMatchObject({
      n: 12,
      spare: true,
    });
  });

  it("v other than 27/28, r = 0 or a garbage s: BadReceiptSignature from the escrow itself", async () => {
    const s = await opened("raw");
    const r = { sessionId: s, n: 1, root: 1n };
    const sig = split(await signed(fx, r));
    const zero = `0x${"00".repeat(32)}` as Hex;
    for (const [v, rr, ss] of [
      [sig.v - 27, sig.r, sig.s], // a y parity where v belongs
      [29, sig.r, sig.s],
      [sig.v, zero, sig.s],
      [sig.v, sig.r, zero],
      [sig.v, sig.r, `0x${(N / 2n + 1n).toString(16)}` as Hex],
    ] as const)
      expect(await revertOf(postRaw(fx, r, v, rr, ss))).toBe("BadReceiptSignature");
    expect(await verifyReceipt(target(), r, `${sig.r}${sig.s.slice(2)}1d`)).toMatchObject({
      ok: false,
      reason: "malformed",
    });
    expect(await verifyReceipt(target(), r, `${sig.r}${zero.slice(2)}1b`)).toMatchObject({ ok: false });
  });

  it("only the session's user may post: not the provider, not a stranger", async () => {
    const s = await opened("poster", [1]);
    const r = { sessionId: s, n: 11, root: 11n };
    const sig = await signed(fx, r);
    expect(await revertOf(fx.escrow.postReceipt(r, sig))).toBe("NotUser");
    expect(await revertOf(fx.asStranger.postReceipt(r, sig))).toBe("NotUser");
    await fx.escrow.closeSession(s, 11, 555n);
    expect(await revertOf(fx.asStranger.postReceipt(r, sig))).toBe("NotUser");
  });

  it("verifyReceipt checks against the provider the session id names unless told another", async () => {
    const s = await opened("verify");
    const r = { sessionId: s, n: 1, root: 1n };
    const sig = await signed(fx, r);
    expect((await verifyReceipt(target(), r, sig)).ok).toBe(true);
    expect(await verifyReceipt(target(), r, sig, fx.stranger.account.address)).toMatchObject({
      ok: false,
      reason: "wrong-signer",
      signer: fx.provider.account.address,
    });
    expect(await verifyReceipt(target(), { ...r, root: R }, sig)).toMatchObject({ reason: "malformed" });
    expect(await verifyReceipt(target(), r, "0x1234")).toMatchObject({ reason: "malformed" });
  });
});

describe("the attack receipts answer: the provider closes on fewer records than it signed", () => {
  it("before close: the user's receipt for 25 raises lastN, so closing at 20 is refused", async () => {
    const s = await opened("short-close", [10]);
    const r = { sessionId: s, n: 25, root: 2525n };
    await fx.asUser.postReceipt(r, await signed(fx, r));
    expect(await revertOf(fx.escrow.closeSession(s, 20, 2020n))).toBe("FinalBelowCheckpoint");
    await fx.escrow.closeSession(s, 25, 2525n);
  });

  it("after close at 20: the spare receipt for 25 folds an entry past finalN, which no proof can match; the claim defaults and pays", async () => {
    const promiseId = await register(fx);
    const s = await opened("short-close-late", [10]);
    await fx.escrow.closeSession(s, 20, 2020n);
    const r = { sessionId: s, n: 25, root: 2525n };
    expect(await fx.asUser.postReceipt(r, await signed(fx, r), { spare: true })).toMatchObject({
      spare: true,
    });
    const info = await fx.escrow.session(s);
    const entries = await fx.escrow.checkpointsOf(s);
    expect(info.acc).toBe(accumulate(entries));
    expect(entries.filter((e) => e.n > info.finalN)).toMatchObject([{ n: 25, kind: "receipt", spare: true }]);
    const claimId = await claim(fx, s, promiseId);
    // The proof's public checkpointAcc is this acc, with its n = 25 entry over a 20-record final commitment.
    expect((await fx.escrow.publicInputs(claimId, false))[3]).toBe(info.acc);
    await at(fx, (await filedAt(fx, claimId)) + PROOF_WINDOW);
    expect(await fx.asUser.claimDefault(claimId)).toMatchObject({ amount: PAYOUT + BOND });
  });

  it("front-running cannot spend the spare: the provider checkpoints past the user's pending receipt, which reverts (CheckpointNotIncreasing) and leaves the spare for a receipt of more records after a short close", async () => {
    const promiseId = await register(fx);
    const s = await opened("front-run", [10]);
    // The user holds the provider's receipts for 25 and 30 records, and posts the one for 25 before close.
    const r25 = { sessionId: s, n: 25, root: 2525n };
    const r30 = { sessionId: s, n: 30, root: 3030n };
    const [sig25, sig30] = [await signed(fx, r25), await signed(fx, r30)];
    // The provider sees it pending and gets a checkpoint in first, at n >= 25 (here of another history's head).
    await fx.escrow.checkpoint(s, 26, 2626_0000n);
    expect(await revertArgs(fx.asUser.postReceipt(r25, sig25))).toEqual([25, 26]);
    expect(await revertOf(fx.asUser.postReceipt(r25, sig25))).toBe("CheckpointNotIncreasing");
    // Nothing folded, nothing spent: the escrow never takes a refused receipt as the spare on its own.
    expect(await fx.escrow.session(s)).toMatchObject({
      lastN: 26,
      checkpointCount: 2,
      spareReceiptUsed: false,
    });
    // The provider closes short of the 30 records it signed for; the user's spare is still there for them.
    await fx.escrow.closeSession(s, 26, 2626_0000n);
    const claimId = await claim(fx, s, promiseId);
    expect(await fx.asUser.postReceipt(r30, sig30, { spare: true })).toMatchObject({ n: 30, spare: true });
    const info = await fx.escrow.session(s);
    const entries = await fx.escrow.checkpointsOf(s);
    expect(info.acc).toBe(accumulate(entries));
    expect(entries.filter((e) => e.n > info.finalN)).toMatchObject([{ n: 30, kind: "receipt", spare: true }]);
    expect((await fx.escrow.publicInputs(claimId, false))[3]).toBe(info.acc);
    await at(fx, (await filedAt(fx, claimId)) + PROOF_WINDOW);
    expect(await fx.asUser.claimDefault(claimId)).toMatchObject({ amount: PAYOUT + BOND });
  });
});

describe("gas", () => {
  // Targets: checkpoint and postReceipt ≤ 80k, the receipt within the rules and the spare, before and after close.
  // Calldata nonzero, as real ones are.
  it("postReceipt (within the rules and the spare) and checkpoint stay within 80k, first and later calls", async () => {
    const post = async (s: Hex, n: number, root: bigint, spare = false) => {
      const r = { sessionId: s, n, root };
      const posted = await fx.asUser.postReceipt(r, await signed(fx, r), { spare });
      return { gas: posted.gasUsed, spare: posted.spare };
    };
    const s = await opened("gas");
    const receiptFirst = await post(s, 1, R - 1n);
    const checkpoint = (await fx.escrow.checkpoint(s, 11, R - 2n)).gasUsed;
    const receiptLater = await post(s, 21, R - 3n);
    const checkpointLater = (await fx.escrow.checkpoint(s, 31, R - 4n)).gasUsed;
    const close = (await fx.escrow.closeSession(s, 39, R - 5n)).gasUsed;
    const spareAfterClose = await post(s, 39, R - 6n, true);
    // Before close: one below lastN (the equivocation case), one beyond the budget that raises lastN.
    const below = await opened("gas-spare-below", [1, 11]);
    const spareBelow = await post(below, 5, R - 7n, true);
    const above = await opened("gas-spare-above", [1, 11]);
    const spareAbove = await post(above, 18, R - 8n, true);
    // With a claim open: the same path, the same cost (nothing reads the claims).
    const promiseId = await register(fx);
    const claimed = await opened("gas-spare-claimed", [1, 11]);
    await claim(fx, claimed, promiseId);
    await fx.escrow.closeSession(claimed, 12, R - 9n);
    const spareClaimOpen = await post(claimed, 15, R - 10n, true);
    const first = await opened("gas-checkpoint-first");
    const checkpointFirst = (await fx.escrow.checkpoint(first, 1, R - 1n)).gasUsed;

    expect([receiptFirst, receiptLater].map((x) => x.spare)).toEqual([false, false]);
    expect([spareAfterClose, spareBelow, spareAbove, spareClaimOpen].map((x) => x.spare)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const gas = {
      checkpointFirst,
      checkpoint,
      checkpointLater,
      receiptFirst: receiptFirst.gas,
      receiptLater: receiptLater.gas,
      spareBeforeCloseBelowLastN: spareBelow.gas,
      spareBeforeCloseAboveLastN: spareAbove.gas,
      spareAfterClose: spareAfterClose.gas,
      spareAfterCloseClaimOpen: spareClaimOpen.gas,
      close,
    };
    console.log("gas", gas);
    for (const [what, g] of Object.entries(gas))
      if (what !== "close") expect(g, what).toBeLessThanOrEqual(80_000n);
  });
});
