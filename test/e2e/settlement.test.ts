// End to end on the in-process chain: records → store → checkpoints → claim →
// Groth16 proof → escrow settlement, with the real verifier and real proofs.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { embeddedChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { type EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { answerClaim, prepareClaim, TraceMismatchError } from "../../prover/claims.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { ProofError, prove, releaseProver, verifyLocally } from "../../prover/prove.js";
import { claimInput } from "../../prover/witness.js";
import { aap4Recipients } from "../../sdk/core/predicates/aap4/definition.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import { verifyReceipt } from "../../sdk/chain/receipts.js";
import { circuitArtifacts } from "../../sdk/manifest/manifest.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

const PROFILE: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
const THETA = { outboundTools: ["send_email"], allowlist: ["alice@a.example", "bob@a.example"] };
const PAYOUT = parseEther("1");
const BOND = parseEther("0.25");

let chain: DevChainHandle;
let deployment: ZkVaiDeployment;
let escrow: EscrowClient;
let asUser: EscrowClient;
let store: TraceStore;
let user: `0x${string}`;
let promiseId: bigint;
let twinPromiseId: bigint;

const sid = (label: string): Hex => scopedSessionId(HARDHAT_ACCOUNT_0, label);

type Step = { tool: string; to?: string | string[] } | { checkpoint: true };
async function session(label: string, steps: Step[], secret?: bigint): Promise<Hex> {
  const sessionId = sid(label);
  const session = await Session.open({ store, escrow, sessionId, user, profile: PROFILE, secret });
  for (const s of steps) {
    if ("checkpoint" in s) await session.checkpointNow();
    else await session.call(s.tool, s.to === undefined ? {} : { to: s.to }, async () => "ok");
  }
  await session.close();
  return sessionId;
}

beforeAll(async () => {
  chain = await embeddedChain();
  deployment = await deployZkVai(chain, chain.wallets[0], DEV);
  escrow = deployment.escrow;
  asUser = escrow.as(chain.wallets[1]);
  user = chain.wallets[1].account.address;
  store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-e2e-")), "store.sqlite"));
  const spec = {
    predicate: "AAP-4",
    theta: THETA,
    profile: PROFILE,
    payout: PAYOUT,
    reserve: parseEther("10"),
  };
  promiseId = (await registerPromise(deployment.record, escrow, store, spec)).promiseId;
  // Same θ, same verifiers: only the context tells a proof for one from the other.
  twinPromiseId = (await registerPromise(deployment.record, escrow, store, spec)).promiseId;
});

afterAll(async () => {
  store?.close();
  await releaseProver();
});

describe("settlement with real proofs", () => {
  it("a satisfied trace: the proof credits the bond to the provider", async () => {
    const s = await session("ok", [
      { tool: "read" },
      { tool: "send_email", to: "alice@a.example" },
      { checkpoint: true },
      { tool: "send_email", to: ["bob@a.example", "alice@a.example"] },
    ]);
    const { claimId } = await asUser.fileClaim(s, promiseId, BOND);
    const before = await escrow.credits(chain.wallets[0].account.address);
    const answer = await answerClaim(store, escrow, claimId);
    expect(answer.verdict.violated).toBe(false);
    expect((await escrow.credits(chain.wallets[0].account.address)) - before).toBe(BOND);
    expect(answer.settleGas).toBeLessThan(300_000n);
  });

  it("a violated trace: the proof pays the user payout + bond and draws the reserve", async () => {
    const s = await session("bad", [
      { tool: "read" },
      { checkpoint: true },
      { tool: "send_email", to: ["bob@a.example", "eve@evil.example"] },
    ]);
    const { claimId } = await asUser.fileClaim(s, promiseId, BOND);
    const reserve = (await escrow.promise(promiseId)).reserve;
    const before = await escrow.credits(user);
    const answer = await answerClaim(store, escrow, claimId);
    expect(answer.verdict).toMatchObject({ violated: true, seq: 1 });
    expect((await escrow.credits(user)) - before).toBe(PAYOUT + BOND);
    expect((await escrow.promise(promiseId)).reserve).toBe(reserve - PAYOUT);
  });

  it("an empty session proves satisfied", async () => {
    const s = await session("empty", []);
    const { claimId } = await asUser.fileClaim(s, promiseId, BOND);
    expect((await answerClaim(store, escrow, claimId)).verdict.violated).toBe(false);
  });
});

describe("a valid proof settles only its own claim", () => {
  const steps: Step[] = [
    { tool: "send_email", to: "alice@a.example" },
    { checkpoint: true },
    { tool: "read" },
  ];

  it("is rejected for another session with the same records and secret, for another promise, and flipped", async () => {
    // Two sessions whose roots and accumulators are identical: only the context differs. The v2 digest
    // binds each record's ts, so both are recorded at one frozen Date.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.UTC(2026, 0, 1) });
    const s1 = await session("twin-1", steps, 42n);
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const s2 = await session("twin-2", steps, 42n);
    vi.useRealTimers();
    expect((await escrow.session(s1)).finalRoot).toBe((await escrow.session(s2)).finalRoot);
    const c1 = (await asUser.fileClaim(s1, promiseId, BOND)).claimId;
    const c2 = (await asUser.fileClaim(s2, promiseId, BOND)).claimId;
    const c3 = (await asUser.fileClaim(s1, twinPromiseId, BOND)).claimId;

    const { artifacts, input, verdict } = await prepareClaim(store, escrow, c1);
    const proof = await prove(artifacts, input);
    expect(await verifyLocally(artifacts, proof)).toBe(true);

    await expect(escrow.settle(c2, proof.words, verdict.violated)).rejects.toThrow(/InvalidProof/);
    await expect(escrow.settle(c3, proof.words, verdict.violated)).rejects.toThrow(/InvalidProof/);
    await expect(escrow.settle(c1, proof.words, !verdict.violated)).rejects.toThrow(/InvalidProof/);
    // Anyone may submit it for its own claim, once.
    await escrow.as(chain.wallets[5]).settle(c1, proof.words, verdict.violated);
    await expect(escrow.settle(c1, proof.words, verdict.violated)).rejects.toThrow();
  });
});

describe("a trace altered after a checkpoint", () => {
  // Results are no slot any predicate reads, so in protocol v1 a stored result could be rewritten at will:
  // v2's digest binds them (and args, errors, metadata, ts) through the chained leaves.
  const edits: [string, (r: TraceRecord) => TraceRecord][] = [
    ["its args", (r) => (r.kind === "call" ? { ...r, args: { to: "alice@a.example" } } : r)],
    ["its result", (r) => (r.kind === "call" ? { ...r, result: "not sent" } : r)],
  ];
  for (const [what, edit] of edits)
    it(`is refused by the prover's check when record 0 changes ${what}, and no witness exists for it`, async () => {
      const s = await session(`tamper ${what}`, [
        { tool: "send_email", to: "eve@evil.example" },
        { checkpoint: true },
        { tool: "read" },
      ]);
      const { claimId } = await asUser.fileClaim(s, promiseId, BOND);

      // The provider's store is append-only, so the dishonest provider keeps a second one.
      const forged = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-forged-")), "store.sqlite"));
      const original = store.session(s)!;
      forged.createSession({
        sessionId: s,
        secret: original.secret,
        profile: original.profile,
        user: original.user,
      });
      const records = store.records(s);
      const altered: TraceRecord[] = records.map((r) => (r.seq === 0 ? edit(r) : r));
      for (const r of altered) forged.append(s, r);
      forged.putPromise(store.promise(promiseId)!);
      await expect(prepareClaim(forged, escrow, claimId)).rejects.toThrow(TraceMismatchError);
      await expect(prepareClaim(forged, escrow, claimId)).rejects.toThrow(
        /checkpoint 0 \(first 1 records\) has chain head .* a stored record among seq 0\.\.0 was changed/,
      );

      // Skipping the check does not help: the circuit refuses the on-chain checkpoint.
      const { artifacts } = await prepareClaim(store, escrow, claimId);
      const checkpoints = (await escrow.checkpointsOf(s)).map(({ n, root }) => ({ n, root }));
      const { input } = claimInput({
        records: altered,
        profile: PROFILE,
        sessionSecret: original.secret,
        checkpoints,
        predicate: aap4Recipients,
        theta: THETA,
        context: await escrow.context(s, promiseId),
        shape: { depth: 3, checkpoints: checkpointSlots(8) },
      });
      await expect(prove(artifacts, input)).rejects.toThrow(ProofError);
      forged.close();
    });
});

describe("receipts: a provider that closes short of what it signed", () => {
  // The dishonest provider records 6 calls (the 6th mails eve, a violation), hands the user a receipt for
  // all 6, then commits only the first 5 (compliant) with closeSession and offers to prove "satisfied".
  async function shortClosed(label: string) {
    const sessionId = sid(label);
    const session = await Session.open({ store, escrow, sessionId, user, profile: PROFILE });
    for (let i = 0; i < 5; i++) await session.call("read", {}, async () => `inbox ${i}`);
    await session.call("send_email", { to: "eve@evil.example" }, async () => "sent");
    const receipt = await session.receipt();
    expect(receipt.n).toBe(6);
    const target = { chainId: receipt.chainId, escrow: receipt.escrow };
    expect(await verifyReceipt(target, receipt, receipt.signature)).toMatchObject({ ok: true });
    // Bypassing the Session, which always commits everything: the first 5 records' root only.
    const leaves = encodeTrace(
      store.records(sessionId).slice(0, 5),
      PROFILE,
      store.session(sessionId)!.secret,
    );
    await escrow.closeSession(sessionId, 5, commitmentRoot(leaves.map((r) => r.leaf)));
    return { sessionId, receipt };
  }

  async function defaultsToUser(sessionId: Hex, claimId: bigint) {
    // The provider's prover refuses: an entry covers more records than the final commitment.
    await expect(prepareClaim(store, escrow, claimId)).rejects.toThrow(
      /covers 6 records, the final commitment only 5/,
    );
    // Nor does a witness exist for the short trace: the circuit finds no row 6 for the receipt's entry.
    const { filedAt } = await escrow.claim(claimId);
    await chain.testClient.setNextBlockTimestamp({ timestamp: filedAt + 3n * 24n * 3600n });
    const before = await escrow.credits(user);
    await escrow.as(chain.wallets[5]).claimDefault(claimId);
    expect((await escrow.credits(user)) - before).toBe(PAYOUT + BOND);
    expect((await escrow.session(sessionId)).finalN).toBe(5);
  }

  it("the user posts its receipt after close (the spare entry) and the claim defaults to it", async () => {
    const { sessionId, receipt } = await shortClosed("short-after");
    const posted = await asUser.postReceipt(receipt, receipt.signature, { spare: true });
    expect(posted).toMatchObject({ n: 6, spare: true });
    const { claimId } = await asUser.fileClaim(sessionId, promiseId, BOND);
    await defaultsToUser(sessionId, claimId);
  });

  it("a claim filed first: the spare comes within RECEIPT_WINDOW of close or not at all (SpareReceiptTooLate)", async () => {
    // This deployment has no receipt window (DEV), so settlement opens at close and a claimed session's fold is
    // frozen from then on: the spare would void proofs in progress. With `vai deploy`'s hour the user posts it
    // within the hour (test/contracts/receipts.test.ts); unclaimed, it may post first and claim after (above).
    const { sessionId, receipt } = await shortClosed("short-claim-first");
    await asUser.fileClaim(sessionId, promiseId, BOND);
    await expect(asUser.postReceipt(receipt, receipt.signature, { spare: true })).rejects.toThrow(
      /SpareReceiptTooLate/,
    );
    expect((await escrow.session(sessionId)).spareReceiptUsed).toBe(false);
  });

  it("no witness exists for the short trace under the receipt's entry", async () => {
    const { sessionId, receipt } = await shortClosed("short-witness");
    await asUser.postReceipt(receipt, receipt.signature, { spare: true });
    const artifacts = circuitArtifacts("aap4_n8");
    const secret = store.session(sessionId)!.secret;
    const { input } = claimInput({
      records: store.records(sessionId).slice(0, 5),
      profile: PROFILE,
      sessionSecret: secret,
      // The witness builder refuses the entry itself (it covers 6 > 5 records): it is set below.
      checkpoints: [],
      predicate: aap4Recipients,
      theta: THETA,
      context: await escrow.context(sessionId, promiseId),
      shape: { depth: 3, checkpoints: checkpointSlots(8) },
    });
    const acc = (await escrow.session(sessionId)).acc;
    const forged = {
      ...input,
      checkpointAcc: String(acc),
      cpN: ["6", "0"],
      cpHead: [String(receipt.root), "0"],
      cpActive: ["1", "0"],
    };
    for (let row = 0; row < 8; row++) {
      const hits = Array.from({ length: 8 }, (_, i) => (i === row ? ["1", "0"] : ["0", "0"]));
      await expect(prove(artifacts, { ...forged, cpHits: hits }), `hit row ${row}`).rejects.toThrow(
        ProofError,
      );
    }
  });
});
