// Escrow state machine against MockVerifier: every check of every function, the money each path moves, and
// that settle() hands the verifier public inputs built from storage alone.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEther, type Address, type Hex } from "viem";
import {
  ClaimStatus,
  Coverage,
  deployEscrow,
  deployPoseidon3,
  EscrowClient,
  scopedSessionId,
} from "../../sdk/chain/escrow.js";
import { deployContract, readArtifact } from "../../sdk/chain/artifacts.js";
import { embeddedChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { type Wallet } from "../../sdk/chain/network.js";
import { checkpointSlots, DEFAULT_RECEIPT_WINDOW_S } from "../../sdk/core/checkpoints.js";
import { accumulate, claimContext, FIELD_MODULUS } from "../../sdk/core/hash.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";

const R = FIELD_MODULUS;
// A budget step of 2 lets the sessions below checkpoint at 2 and 4; test/contracts/budget.test.ts runs
// production's 10.
const INTERVAL = 2;
const PROOF_WINDOW = 3n * 24n * 3600n;
const PAYOUT = parseEther("1");
const BOND = parseEther("0.1");
const PROFILE = 77n;
const PARAMS = 1234n;
const PROOF = [11n, 12n, 13n, 14n, 15n, 16n, 17n, 18n] as const;

let chain: DevChainHandle;
let provider: Wallet, user: Wallet, stranger: Wallet, otherProvider: Wallet;
let escrow: EscrowClient; // sends as provider
let poseidon3: Address;
let small: Address, large: Address; // MockVerifiers for capacities 8 and 64
let mockAbi: Awaited<ReturnType<typeof readArtifact>>["abi"];
let snapshot: Hex;

const sid = (label: string): Hex => scopedSessionId(HARDHAT_ACCOUNT_0, label);

async function mock(address: Address, fn: string, args: readonly unknown[]) {
  const hash = await provider.writeContract({ address, abi: mockAbi, functionName: fn, args });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

async function register(opts: { from?: Wallet; payout?: bigint; value?: bigint; profile?: bigint } = {}) {
  const { promiseId } = await escrow.as(opts.from ?? provider).registerPromise({
    predicateId: 4,
    paramsHash: PARAMS,
    profileHash: opts.profile ?? PROFILE,
    payout: opts.payout ?? PAYOUT,
    value: opts.value,
  });
  return promiseId;
}

/** A promise, then a session it covers with two checkpoints, closed at `finalN`. */
async function closedSession(label: string, finalN = 5, opts: { close?: boolean } = {}) {
  const promiseId = await register();
  const sessionId = sid(label);
  await escrow.openSession(sessionId, user.account.address, PROFILE);
  const cps = [
    { n: 2, root: 222n },
    { n: 4, root: 444n }, // the 2nd entry: n > INTERVAL
  ];
  for (const c of cps) await escrow.checkpoint(sessionId, c.n, c.root);
  if (opts.close !== false) await escrow.closeSession(sessionId, finalN, 555n);
  return { promiseId, sessionId, cps };
}

async function filed(label: string, finalN = 5) {
  const s = await closedSession(label, finalN);
  const { claimId } = await escrow.as(user).fileClaim(s.sessionId, s.promiseId, BOND);
  return { ...s, claimId };
}

/** AAP-4's two capacity classes, 8 and 64 records, served by the two mocks. */
const registryFor = (predicateId: number, interval: number) => [
  { predicateId, capacity: 64, checkpoints: checkpointSlots(64, interval), verifier: large },
  { predicateId, capacity: 8, checkpoints: checkpointSlots(8, interval), verifier: small },
];

async function nextBlockAt(timestamp: bigint) {
  await chain.testClient.setNextBlockTimestamp({ timestamp });
}

beforeAll(async () => {
  chain = await embeddedChain();
  [provider, user, stranger, otherProvider] = chain.wallets;
  poseidon3 = (await deployPoseidon3(chain, provider)).address;
  small = (await deployContract(chain, provider, "MockVerifier")).address;
  large = (await deployContract(chain, provider, "MockVerifier")).address;
  // RECEIPT_WINDOW 0: claims settle right after close (test/contracts/receipt-window.test.ts runs a real one).
  const { address } = await deployEscrow(chain, provider, {
    poseidon3,
    checkpointInterval: INTERVAL,
    receiptWindow: 0,
    registry: registryFor(4, INTERVAL),
  });
  escrow = await EscrowClient.connect(chain, address, provider);
  mockAbi = (await readArtifact("MockVerifier")).abi;
  snapshot = await chain.testClient.snapshot();
});

beforeEach(async () => {
  await chain.testClient.revert({ id: snapshot });
  snapshot = await chain.testClient.snapshot(); // a Hardhat snapshot is spent by reverting to it
});

describe("constructor", () => {
  it("rejects a Poseidon address without code and a zero checkpoint interval", async () => {
    await expect(
      deployEscrow(chain, provider, {
        poseidon3: stranger.account.address,
        checkpointInterval: 10,
        registry: [],
      }),
    ).rejects.toThrow(/InvalidConfig/);
    await expect(
      deployEscrow(chain, provider, { poseidon3, checkpointInterval: 0, registry: [] }),
    ).rejects.toThrow(/InvalidConfig/);
  });

  it("takes a RECEIPT_WINDOW below PROOF_WINDOW only, and defaults it to DEFAULT_RECEIPT_WINDOW_S", async () => {
    const window = (receiptWindow?: number) =>
      deployEscrow(chain, provider, { poseidon3, checkpointInterval: 10, receiptWindow, registry: [] });
    for (const w of [Number(PROOF_WINDOW), Number(PROOF_WINDOW) + 1, 2 ** 32 - 1])
      await expect(window(w), String(w)).rejects.toThrow(/InvalidConfig/);
    for (const [w, expected] of [
      [undefined, BigInt(DEFAULT_RECEIPT_WINDOW_S)],
      [0, 0n],
      [Number(PROOF_WINDOW) - 1, PROOF_WINDOW - 1n],
    ] as const) {
      const client = await EscrowClient.connect(chain, (await window(w)).address, provider);
      expect((await client.constants()).receiptWindow, String(w)).toBe(expected);
    }
    expect((await escrow.constants()).receiptWindow).toBe(0n);
  });

  it("fixes the verifier registry: code at every address, checkpointSlots(capacity) each, ascending capacities", async () => {
    const deploy = (
      registry: { predicateId: number; capacity: number; checkpoints: number; verifier: Address }[],
    ) => deployContract(chain, provider, "Escrow", [poseidon3, 10, 0, registry, []]);
    // ceil(8 / 10) + 1: the one entry a session of 8 records can earn under the budget, and the spare receipt.
    const entry = { predicateId: 1, capacity: 8, checkpoints: 2, verifier: small };
    const wide = { ...entry, capacity: 64, checkpoints: 8, verifier: large };
    const zero = "0x0000000000000000000000000000000000000000";
    await expect(deploy([{ ...entry, verifier: zero }])).rejects.toThrow(/VerifierNotContract/);
    await expect(deploy([{ ...entry, verifier: stranger.account.address }])).rejects.toThrow(
      /VerifierNotContract/,
    );
    for (const checkpoints of [1, 3, 4])
      await expect(deploy([{ ...entry, checkpoints }])).rejects.toThrow(
        new RegExp(`CheckpointsMismatch\\(${checkpoints}, 2\\)`),
      );
    await expect(deploy([{ ...wide, checkpoints: 7 }])).rejects.toThrow(/CheckpointsMismatch\(7, 8\)/);
    await expect(deploy([{ ...entry, capacity: 0 }])).rejects.toThrow(/BadCapacities/);
    await expect(deploy([entry, { ...entry, capacity: 8 }])).rejects.toThrow(/BadCapacities/);
    await expect(deploy([wide, entry])).rejects.toThrow(/BadCapacities/);
    const seventeen = Array.from({ length: 17 }, (_, i) => ({
      ...entry,
      capacity: i + 1,
      checkpoints: checkpointSlots(i + 1, 10),
    }));
    await expect(deploy(seventeen)).rejects.toThrow(/TooManyVerifiers/);
    // Another predicate's list starts afresh; deployEscrow sorts what the constructor needs in order.
    const both = await deployEscrow(chain, provider, {
      poseidon3,
      checkpointInterval: 10,
      registry: [{ ...entry, predicateId: 2 }, entry, wide],
    });
    const client = await EscrowClient.connect(chain, both.address, provider);
    expect((await client.constants()).checkpointInterval).toBe(10);
    for (const capacity of [1, 8, 9, 10, 11, 64, 1024, 2 ** 32 - 1])
      expect(await client.checkpointSlots(capacity)).toBe(checkpointSlots(capacity, 10));
    expect(await client.verifierSet(1)).toEqual({ capacities: [8, 64], verifiers: [small, large] });
    expect(await client.verifierSet(2)).toEqual({ capacities: [8], verifiers: [small] });
    expect(await client.verifierSet(3)).toEqual({ capacities: [], verifiers: [] });
  });
});

describe("registerPromise / fund", () => {
  it("numbers promises from 1 and serves them with the registry's verifiers for their predicate", async () => {
    expect(await register()).toBe(1n);
    expect(await register({ value: PAYOUT * 3n })).toBe(2n);
    const p = await escrow.promise(2n);
    expect(p).toMatchObject({
      provider: provider.account.address,
      predicateId: 4,
      paramsHash: PARAMS,
      payout: PAYOUT,
    });
    expect(p.reserve).toBe(PAYOUT * 3n);
    expect(p.capacities).toEqual([8, 64]);
    expect(p.verifiers).toEqual([small, large]);
  });

  it("checks payout, reserve, a predicate the registry serves, and field elements", async () => {
    const base = { predicateId: 4, paramsHash: 1n, profileHash: 1n, payout: PAYOUT };
    await expect(escrow.registerPromise({ ...base, payout: 0n })).rejects.toThrow(/ZeroPayout/);
    await expect(escrow.registerPromise({ ...base, value: PAYOUT - 1n })).rejects.toThrow(
      /InsufficientReserve/,
    );
    // No verifier address is an argument any more: a predicate without registry entries cannot be promised.
    await expect(escrow.registerPromise({ ...base, predicateId: 1 })).rejects.toThrow(/UnknownPredicate/);
    await expect(escrow.registerPromise({ ...base, paramsHash: R })).rejects.toThrow(/NotFieldElement/);
    await expect(escrow.registerPromise({ ...base, profileHash: R })).rejects.toThrow(/NotFieldElement/);
    await expect(
      escrow.registerPromise({ ...base, paramsHash: R - 1n, profileHash: R - 1n }),
    ).resolves.toBeDefined();
  });

  it("lets anyone fund an existing promise", async () => {
    const id = await register();
    const { reserve } = await escrow.as(stranger).fund(id, 5n);
    expect(reserve).toBe(PAYOUT + 5n);
    await expect(escrow.fund(99n, 5n)).rejects.toThrow(/UnknownPromise/);
    await expect(escrow.fund(id, 0n)).rejects.toThrow(/ZeroValue/);
  });
});

describe("sessions and checkpoints", () => {
  it("opens a session once, for a nonzero user and a field-element profile", async () => {
    await escrow.openSession(sid("a"), user.account.address, PROFILE);
    const s = await escrow.session(sid("a"));
    expect(s).toMatchObject({
      provider: provider.account.address,
      user: user.account.address,
      acc: 0n,
      closed: false,
    });
    await expect(escrow.openSession(sid("a"), user.account.address, 1n)).rejects.toThrow(/SessionExists/);
    const zero = "0x0000000000000000000000000000000000000000";
    await expect(escrow.openSession(sid("b"), zero, 1n)).rejects.toThrow(/ZeroAddress/);
    await expect(escrow.openSession(sid("b"), user.account.address, R)).rejects.toThrow(/NotFieldElement/);
  });

  it("refuses an id not scoped to the sender: a copied openSession cannot take the provider's id", async () => {
    // The front-runner replays the provider's pending transaction from its own account first.
    const id = sid("front-run");
    await expect(escrow.as(stranger).openSession(id, stranger.account.address, PROFILE)).rejects.toThrow(
      /ForeignSessionId/,
    );
    await escrow.openSession(id, user.account.address, PROFILE);
    expect((await escrow.session(id)).provider).toBe(provider.account.address);
    // The stranger's own ids are its own.
    await escrow
      .as(stranger)
      .openSession(scopedSessionId(stranger.account.address, "mine"), user.account.address, PROFILE);
  });

  it("accepts checkpoints only from the provider, strictly increasing from 1, within the budget", async () => {
    const s = sid("cp");
    await escrow.openSession(s, user.account.address, PROFILE);
    await expect(escrow.as(user).checkpoint(s, 1, 1n)).rejects.toThrow(/NotProvider/);
    await expect(escrow.checkpoint(s, 0, 1n)).rejects.toThrow(/CheckpointNotIncreasing/);
    await expect(escrow.checkpoint(s, 1, R)).rejects.toThrow(/NotFieldElement/);
    await escrow.checkpoint(s, 1, 1n);
    await expect(escrow.checkpoint(s, 1, 2n)).rejects.toThrow(/CheckpointNotIncreasing/);
    // The 2nd entry needs n > 1 * INTERVAL, the 3rd n > 2 * INTERVAL.
    await expect(escrow.checkpoint(s, 2, 2n)).rejects.toThrow(/CheckpointBudget/);
    await escrow.checkpoint(s, 3, 2n);
    await expect(escrow.checkpoint(s, 4, 3n)).rejects.toThrow(/CheckpointBudget/);
    await escrow.checkpoint(s, 9, 3n);
    const info = await escrow.session(s);
    expect(info).toMatchObject({ lastN: 9, checkpointCount: 3, spareReceiptUsed: false });
    const cps = await escrow.checkpointsOf(s);
    expect(cps.map((c) => c.n)).toEqual([1, 3, 9]);
    expect(cps.every((c) => c.kind === "checkpoint" && !c.spare)).toBe(true);
    expect(info.acc).toBe(accumulate(cps));
  });

  it("closes once, by the provider, at n >= lastN, without folding into acc", async () => {
    const { sessionId } = await closedSession("x", 4, { close: false });
    const before = await escrow.session(sessionId);
    await expect(escrow.as(user).closeSession(sessionId, 4, 1n)).rejects.toThrow(/NotProvider/);
    await expect(escrow.closeSession(sessionId, 3, 1n)).rejects.toThrow(/FinalBelowCheckpoint/);
    await expect(escrow.closeSession(sessionId, 4, R)).rejects.toThrow(/NotFieldElement/);
    await escrow.closeSession(sessionId, 4, 999n);
    const after = await escrow.session(sessionId);
    expect(after).toMatchObject({ closed: true, finalN: 4, finalRoot: 999n, acc: before.acc, lastN: 4 });
    expect(after.closedAt).toBeGreaterThan(0n);
    await expect(escrow.closeSession(sessionId, 5, 1n)).rejects.toThrow(/AlreadyClosed/);
    await expect(escrow.checkpoint(sessionId, 5, 1n)).rejects.toThrow(/AlreadyClosed/);
  });
});

describe("fileClaim", () => {
  it("numbers claims from 1 and records bond and filing time", async () => {
    const { claimId, sessionId, promiseId } = await filed("f");
    expect(claimId).toBe(1n);
    const c = await escrow.claim(claimId);
    expect(c).toMatchObject({
      sessionId,
      promiseId,
      claimant: user.account.address,
      bond: BOND,
      status: ClaimStatus.Open,
    });
    expect(await escrow.pair(sessionId, promiseId)).toEqual({ openClaimId: 1n, resolved: false });
  });

  it("takes claims only from the session's user, with a bond", async () => {
    const { sessionId, promiseId } = await closedSession("g");
    await expect(escrow.fileClaim(sessionId, promiseId, BOND)).rejects.toThrow(/NotUser/);
    await expect(escrow.as(stranger).fileClaim(sessionId, promiseId, BOND)).rejects.toThrow(/NotUser/);
    await expect(escrow.as(user).fileClaim(sessionId, promiseId, 0n)).rejects.toThrow(/ZeroValue/);
    await expect(escrow.as(user).fileClaim(sid("nope"), promiseId, BOND)).rejects.toThrow(/UnknownSession/);
    await expect(escrow.as(user).fileClaim(sessionId, 99n, BOND)).rejects.toThrow(/UnknownPromise/);
  });

  it("is covered only by the opener's own active promises pinned to its profile, named at open", async () => {
    const foreign = await register({ from: otherProvider });
    const otherProfile = await register({ profile: PROFILE + 1n });
    const mine = await register();
    const s = sid("h");
    const u = user.account.address;
    await expect(escrow.openSession(s, u, PROFILE, [foreign])).rejects.toThrow(/ProviderMismatch/);
    await expect(escrow.openSession(s, u, PROFILE, [otherProfile])).rejects.toThrow(/ProfileMismatch/);
    await expect(escrow.openSession(s, u, PROFILE, [99n])).rejects.toThrow(/UnknownPromise/);
    await expect(escrow.openSession(s, u, PROFILE, [mine, mine])).rejects.toThrow(/DuplicateCover/);
    const opened = await escrow.openSession(s, u, PROFILE, [mine]);
    expect(opened.coverage).toEqual([{ promiseId: mine, covered: true, amount: PAYOUT, available: 0n }]);
    expect(await escrow.coverageOf(s, mine)).toEqual({
      coverage: Coverage.Earmarked,
      openClaimId: 0n,
      amount: PAYOUT,
    });
    const late = await register(); // registered after the session opened: no retroactive coverage
    for (const id of [foreign, otherProfile, late])
      await expect(escrow.as(user).fileClaim(s, id, BOND)).rejects.toThrow(/NotCovered/);
    expect(await escrow.coverageOf(s, late)).toEqual({
      coverage: Coverage.None,
      openClaimId: 0n,
      amount: 0n,
    });
  });

  it("allows one open claim per pair, none once resolved, and keeps pairs independent", async () => {
    const { sessionId, promiseId, claimId } = await filed("i");
    await expect(escrow.as(user).fileClaim(sessionId, promiseId, BOND)).rejects.toThrow(/ClaimAlreadyOpen/);
    await escrow.as(stranger).settle(claimId, PROOF, false);
    await expect(escrow.as(user).fileClaim(sessionId, promiseId, BOND)).rejects.toThrow(/PairResolved/);
    // The same promise over another session, and another promise over this session, are untouched.
    const other = await closedSession("j");
    expect(await escrow.pair(other.sessionId, promiseId)).toEqual({ openClaimId: 0n, resolved: false });
    await expect(escrow.as(user).fileClaim(other.sessionId, promiseId, BOND)).resolves.toBeDefined();
  });

  it("earmarks the payout at open: a session the free reserve cannot cover opens visibly uncovered", async () => {
    const a = await filed("k"); // session k's open earmarked promise 1's whole reserve (1 ETH)
    expect(await escrow.availableReserve(a.promiseId)).toBe(0n);
    const b = await closedSession("l"); // registers promise 2; l opens covered by 2 and not by 1
    expect(await escrow.sessionCoverage(b.sessionId)).toEqual([
      { promiseId: a.promiseId, covered: false, amount: 0n, available: 0n },
      { promiseId: b.promiseId, covered: true, amount: PAYOUT, available: 0n },
    ]);
    await expect(escrow.as(user).fileClaim(b.sessionId, a.promiseId, BOND)).rejects.toThrow(/NotCovered/);
    await escrow.fund(a.promiseId, PAYOUT);
    expect(await escrow.availableReserve(a.promiseId)).toBe(PAYOUT);
    const m = sid("m");
    await escrow.openSession(m, user.account.address, PROFILE, [a.promiseId]);
    await escrow.closeSession(m, 1, 9n);
    const { claimId: c2 } = await escrow.as(user).fileClaim(m, a.promiseId, BOND);
    // Both open claims are payable, in either order, each from its own session's earmark.
    await escrow.settle(c2, PROOF, true);
    await escrow.settle(a.claimId, PROOF, true);
    expect(await escrow.promise(a.promiseId)).toMatchObject({ reserve: 0n, earmarks: 0 });
  });

  it("a satisfied outcome frees the earmark and pays the bond to the provider", async () => {
    const a = await filed("k2");
    expect(await escrow.availableReserve(a.promiseId)).toBe(0n);
    await expect(escrow.settle(a.claimId, PROOF, false)).resolves.toMatchObject({ amount: BOND });
    expect(await escrow.availableReserve(a.promiseId)).toBe(PAYOUT);
  });
});

describe("settle", () => {
  it("requires a closed session and an open claim", async () => {
    const { promiseId, sessionId } = await closedSession("n", 4, { close: false });
    const { claimId } = await escrow.as(user).fileClaim(sessionId, promiseId, BOND);
    await expect(escrow.settle(claimId, PROOF, true)).rejects.toThrow(/SessionNotClosed/);
    await expect(escrow.publicInputs(claimId, true)).rejects.toThrow(/SessionNotClosed/);
    await escrow.closeSession(sessionId, 4, 1n);
    await escrow.settle(claimId, PROOF, true);
    await expect(escrow.settle(claimId, PROOF, true)).rejects.toThrow(/ClaimNotOpen/);
    await expect(escrow.settle(99n, PROOF, true)).rejects.toThrow(/ClaimNotOpen/);
  });

  it("rejects an invalid proof and changes nothing", async () => {
    const { claimId } = await filed("o");
    await mock(small, "setResult", [false]);
    await expect(escrow.as(stranger).settle(claimId, PROOF, false)).rejects.toThrow(/InvalidProof/);
    expect((await escrow.claim(claimId)).status).toBe(ClaimStatus.Open);
  });

  it("satisfied: credits the bond to the provider; the reserve stays", async () => {
    const { claimId, promiseId, sessionId } = await filed("p");
    const r = await escrow.as(stranger).settle(claimId, PROOF, false);
    expect(r).toMatchObject({ violated: false, beneficiary: provider.account.address, amount: BOND });
    expect(await escrow.credits(provider.account.address)).toBe(BOND);
    expect(await escrow.credits(user.account.address)).toBe(0n);
    expect((await escrow.promise(promiseId)).reserve).toBe(PAYOUT);
    expect((await escrow.claim(claimId)).status).toBe(ClaimStatus.Settled);
    expect(await escrow.pair(sessionId, promiseId)).toEqual({ openClaimId: 0n, resolved: true });
  });

  it("violated: pays payout + bond to the user out of the reserve", async () => {
    const { claimId, promiseId } = await filed("q");
    await escrow.fund(promiseId, PAYOUT);
    const r = await escrow.as(stranger).settle(claimId, PROOF, true);
    expect(r).toMatchObject({ violated: true, beneficiary: user.account.address, amount: PAYOUT + BOND });
    expect(await escrow.credits(user.account.address)).toBe(PAYOUT + BOND);
    expect(await escrow.credits(provider.account.address)).toBe(0n);
    expect((await escrow.promise(promiseId)).reserve).toBe(PAYOUT);
  });

  it("picks the verifier with the smallest capacity that fits finalN", async () => {
    await mock(small, "setResult", [false]); // any proof routed to the 8-record verifier fails
    const fits8 = await filed("r8", 8);
    expect(await escrow.verifierOf(fits8.claimId)).toEqual({ verifier: small, capacity: 8 });
    await expect(escrow.settle(fits8.claimId, PROOF, false)).rejects.toThrow(/InvalidProof/);
    const needs64 = await filed("r9", 9);
    expect(await escrow.verifierOf(needs64.claimId)).toEqual({ verifier: large, capacity: 64 });
    await escrow.settle(needs64.claimId, PROOF, false);
    const tooBig = await filed("r65", 65);
    await expect(escrow.settle(tooBig.claimId, PROOF, false)).rejects.toThrow(/NoVerifierForSize/);
  });

  it("passes the verifier the proof words and public inputs from storage, context included", async () => {
    const { claimId, promiseId, sessionId, cps } = await filed("s", 6);
    const context = claimContext(chain.chainId, escrow.address, sessionId, promiseId);
    const expected = [context, 555n, 6n, accumulate(cps), PARAMS, 1n] as const;
    expect(await escrow.context(sessionId, promiseId)).toBe(context);
    expect(await escrow.publicInputs(claimId, true)).toEqual(expected);
    expect(await escrow.publicInputs(claimId, false)).toEqual([...expected.slice(0, 5), 0n]);

    await mock(small, "expect", [PROOF, expected]);
    // Off by one anywhere, the strict mock refuses: the outcome bit, or a proof word in another slot.
    await expect(escrow.settle(claimId, PROOF, false)).rejects.toThrow(/InvalidProof/);
    const swapped = [...PROOF];
    [swapped[2], swapped[3]] = [swapped[3], swapped[2]];
    await expect(escrow.settle(claimId, swapped, true)).rejects.toThrow(/InvalidProof/);
    await escrow.settle(claimId, PROOF, true);

    // Another promise over the same session gets another context: a proof cannot be replayed across pairs (P4).
    expect(await escrow.context(sessionId, promiseId + 1n)).not.toBe(context);
  });
});

describe("claimDefault", () => {
  it("opens exactly PROOF_WINDOW after filing and pays payout + bond", async () => {
    const { claimId, promiseId, sessionId } = await filed("t");
    const { filedAt } = await escrow.claim(claimId);
    await nextBlockAt(filedAt + PROOF_WINDOW - 1n);
    await expect(escrow.as(stranger).claimDefault(claimId)).rejects.toThrow(/ProofWindowOpen/);
    await nextBlockAt(filedAt + PROOF_WINDOW);
    const r = await escrow.as(stranger).claimDefault(claimId);
    expect(r).toMatchObject({ beneficiary: user.account.address, amount: PAYOUT + BOND });
    expect(await escrow.credits(user.account.address)).toBe(PAYOUT + BOND);
    expect((await escrow.promise(promiseId)).reserve).toBe(0n);
    expect((await escrow.claim(claimId)).status).toBe(ClaimStatus.Defaulted);
    expect(await escrow.pair(sessionId, promiseId)).toEqual({ openClaimId: 0n, resolved: true });
    await expect(escrow.claimDefault(claimId)).rejects.toThrow(/ClaimNotOpen/);
    await expect(escrow.settle(claimId, PROOF, false)).rejects.toThrow(/ClaimNotOpen/);
  });

  it("does not apply to a settled claim, and always finds the earmarked payout", async () => {
    const a = await filed("u");
    await escrow.settle(a.claimId, PROOF, false);
    await chain.testClient.increaseTime({ seconds: Number(PROOF_WINDOW) });
    await expect(escrow.claimDefault(a.claimId)).rejects.toThrow(/ClaimNotOpen/);

    const b = await closedSession("v");
    await escrow.fund(b.promiseId, PAYOUT);
    const w = sid("w");
    await escrow.openSession(w, user.account.address, PROFILE, [b.promiseId]);
    await escrow.closeSession(w, 1, 9n);
    const { claimId: cb } = await escrow.as(user).fileClaim(b.sessionId, b.promiseId, BOND);
    const { claimId: cc } = await escrow.as(user).fileClaim(w, b.promiseId, BOND);
    await chain.testClient.increaseTime({ seconds: Number(PROOF_WINDOW) });
    await expect(escrow.claimDefault(cc)).resolves.toMatchObject({ amount: PAYOUT + BOND });
    await expect(escrow.claimDefault(cb)).resolves.toMatchObject({ amount: PAYOUT + BOND });
  });

  it("pays out credited balances once, and keeps the escrow solvent", async () => {
    await expect(escrow.as(user).withdraw()).rejects.toThrow(/NothingToWithdraw/);
    const { claimId } = await filed("x");
    await escrow.settle(claimId, PROOF, true);
    const before = await chain.publicClient.getBalance({ address: user.account.address });
    const r = await escrow.as(user).withdraw();
    expect(r.amount).toBe(PAYOUT + BOND);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: r.txHash });
    const after = await chain.publicClient.getBalance({ address: user.account.address });
    expect(after - before).toBe(PAYOUT + BOND - receipt.gasUsed * receipt.effectiveGasPrice);
    expect(await escrow.credits(user.account.address)).toBe(0n);
    await expect(escrow.as(user).withdraw()).rejects.toThrow(/NothingToWithdraw/);
    expect(await chain.publicClient.getBalance({ address: escrow.address })).toBe(0n); // reserve was exactly p
  });

  it("holds exactly reserves + open bonds + credits (P6)", async () => {
    const a = await filed("y");
    const b = await filed("z");
    await escrow.fund(b.promiseId, 7n);
    await escrow.settle(a.claimId, PROOF, false);
    const held = await chain.publicClient.getBalance({ address: escrow.address });
    const reserves =
      (await escrow.promise(a.promiseId)).reserve + (await escrow.promise(b.promiseId)).reserve;
    const credits = await escrow.credits(provider.account.address);
    const openBonds = (await escrow.claim(b.claimId)).bond;
    expect(held).toBe(reserves + credits + openBonds);
  });
});

describe("gas", () => {
  // Budgets a little above the measured figures (scripts/gas-escrow.ts prints them all), so a regression shows up
  // here. Calldata is made of nonzero bytes, as real roots and proofs are. Targets: checkpoint 80k, settle 300k.
  // postReceipt's: test/contracts/receipts.test.ts.
  it("stays within the checkpoint and settlement budgets", async () => {
    const promiseId = await register({ value: 2n * PAYOUT }); // two claims, both earmarked
    const sessionId = sid("gas");
    await escrow.openSession(sessionId, user.account.address, PROFILE);
    const first = await escrow.checkpoint(sessionId, 1, R - 1n);
    const second = await escrow.checkpoint(sessionId, 3, R - 2n);
    // ~26.5k of each is the generated Poseidon(3) call (24k inside it + the cold call); the rest is two storage
    // slots, the event and 21k of base cost. The OPENED bit makes the first as cheap as the rest.
    for (const g of [first.gasUsed, second.gasUsed]) expect(g).toBeLessThanOrEqual(64_000n);
    await escrow.closeSession(sessionId, 3, R - 3n);
    const { claimId } = await escrow.as(user).fileClaim(sessionId, promiseId, BOND);
    const proof = PROOF.map((w) => R - w);
    const settled = await escrow.as(stranger).settle(claimId, proof, true);
    // The satisfied outcome too: it reads the session's closedAt (slot 1, the receipt window) cold, where the
    // violated one reads the user from the same slot anyway, so it costs ~2.3k more than before the window.
    const other = sid("gas-satisfied");
    await escrow.openSession(other, user.account.address, PROFILE);
    await escrow.closeSession(other, 3, R - 4n);
    const { claimId: claim2 } = await escrow.as(user).fileClaim(other, promiseId, BOND);
    const satisfied = await escrow.as(stranger).settle(claim2, proof, false);
    console.log("settle gas (MockVerifier)", { violated: settled.gasUsed, satisfied: satisfied.gasUsed });
    // A snarkjs verifier with 6 public inputs costs ~219k more than the mock (scripts/gas-escrow.ts measures both
    // with real proofs: ~290k), so this keeps settle below 300k.
    expect(settled.gasUsed).toBeLessThanOrEqual(76_000n);
    expect(satisfied.gasUsed).toBeLessThanOrEqual(76_000n);
  });
});
