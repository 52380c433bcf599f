// Hardening: re-entrant and ether-refusing receivers, field-element range checks, amount bounds, one event per
// state change, and immutability of a promise's terms (P5).
import { beforeAll, describe, expect, it } from "vitest";
import {
  decodeErrorResult,
  encodeFunctionData,
  parseEventLogs,
  type Abi,
  type AbiFunction,
  type Hex,
} from "viem";
import { deployContract, readArtifact } from "../../sdk/chain/artifacts.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { FIELD_MODULUS as R } from "../../sdk/core/hash.js";
import {
  addressesOf,
  at,
  BOND,
  claim,
  escrowFixture,
  expectSolvent,
  filedAt,
  PAYOUT,
  PROFILE,
  PROOF,
  PROOF_WINDOW,
  register,
  session,
  signed,
  sid,
} from "./fixture.js";

const fx = escrowFixture();
let receiverAbi: Abi;

beforeAll(async () => {
  receiverAbi = (await readArtifact("ReentrantReceiver")).abi;
});

/** A ReentrantReceiver as the user of a fresh session over a fresh promise (reserve exactly one payout). */
async function hostileUser(label: string) {
  const { address } = await deployContract(fx.chain, fx.stranger, "ReentrantReceiver", [fx.escrow.address]);
  // Untyped on purpose: the test drives the escrow by function names it iterates over.
  const escrowAbi: Abi = fx.escrow.abi;
  const abi = [...receiverAbi, ...fx.escrow.abi.filter((x) => x.type === "error")];
  const write = async (functionName: string, args: readonly unknown[] = [], value?: bigint) => {
    const hash = await fx.stranger.writeContract({ address, abi, functionName, args, value });
    return fx.chain.publicClient.waitForTransactionReceipt({ hash });
  };
  const read = (functionName: string) => fx.chain.publicClient.readContract({ address, abi, functionName });
  const call = (fn: string, args: readonly unknown[] = []) =>
    encodeFunctionData({ abi: escrowAbi, functionName: fn, args });
  const exec = (fn: string, args: readonly unknown[] = [], value?: bigint) =>
    write("exec", [call(fn, args)], value);
  const promiseId = await register(fx);
  const fileClaim = async (l: string) => {
    const s = await session(fx, `${label}-${l}`, { user: address });
    await exec("fileClaim", [s, promiseId], BOND);
    return (await fx.escrow.pair(s, promiseId)).openClaimId;
  };
  const lastError = async () => {
    const data = (await read("lastReturn")) as Hex;
    return decodeErrorResult({ abi: fx.escrow.abi, data }).errorName;
  };
  return { address, write, read, call, exec, promiseId, fileClaim, lastError };
}

describe("reentrancy (pull payments, checks-effects-interactions)", () => {
  it("a receiver that re-enters withdraw() gets its credit once", async () => {
    const h = await hostileUser("w");
    const c = await h.fileClaim("a");
    await fx.escrow.settle(c, PROOF, true);
    await h.write("setReentry", [h.call("withdraw")]);
    await h.exec("withdraw");
    expect(await h.read("received")).toBe(PAYOUT + BOND);
    expect(await h.read("reentries")).toBe(1n);
    expect(await h.read("lastOk")).toBe(false);
    expect(await h.lastError()).toBe("NothingToWithdraw");
    expect(await fx.escrow.credits(h.address)).toBe(0n);
    await expectSolvent(fx, [...addressesOf(fx), h.address]);
  });

  it("re-entering claimDefault() from withdraw() credits only what is owed, once", async () => {
    const h = await hostileUser("c");
    const x = await h.fileClaim("x");
    await fx.escrow.settle(x, PROOF, true); // credits p + b; the reserve is now 0
    await fx.escrow.fund(h.promiseId, PAYOUT);
    const z = await h.fileClaim("z"); // earmarks the new payout
    await at(fx, (await filedAt(fx, z)) + PROOF_WINDOW);
    // While x's payout arrives, default z: credited, not paid.
    await h.write("setReentry", [h.call("claimDefault", [z])]);
    await h.exec("withdraw");
    expect(await h.read("lastOk")).toBe(true);
    expect(await fx.escrow.credits(h.address)).toBe(PAYOUT + BOND);
    // While z's payout arrives, default z again: refused.
    await h.exec("withdraw");
    expect(await h.read("lastOk")).toBe(false);
    expect(await h.lastError()).toBe("ClaimNotOpen");
    expect(await h.read("reentries")).toBe(2n);
    expect(await h.read("received")).toBe(2n * (PAYOUT + BOND));
    expect(await fx.escrow.credits(h.address)).toBe(0n);
    expect((await fx.escrow.promise(h.promiseId)).earmarks).toBe(0);
    await expectSolvent(fx, [...addressesOf(fx), h.address]);
  });
});

describe("a receiver that refuses ether", () => {
  it("makes withdraw() revert with TransferFailed and keeps its credit", async () => {
    const h = await hostileUser("r");
    await fx.escrow.settle(await h.fileClaim("a"), PROOF, true);
    await h.write("setRejecting", [true]);
    await expect(h.exec("withdraw")).rejects.toThrow(/TransferFailed/);
    expect(await fx.escrow.credits(h.address)).toBe(PAYOUT + BOND);
    await expectSolvent(fx, [...addressesOf(fx), h.address]);
    await h.write("setRejecting", [false]);
    await h.exec("withdraw");
    expect(await h.read("received")).toBe(PAYOUT + BOND);
  });
});

describe("field elements and amounts", () => {
  it("refuses r and accepts r - 1 for every field input", async () => {
    const base = {
      predicateId: 4,
      paramsHash: 1n,
      profileHash: 1n,
      payout: 1n,
    };
    await expect(fx.escrow.registerPromise({ ...base, paramsHash: R })).rejects.toThrow(/NotFieldElement/);
    await expect(fx.escrow.registerPromise({ ...base, profileHash: R })).rejects.toThrow(/NotFieldElement/);
    await fx.escrow.registerPromise({ ...base, paramsHash: R - 1n, profileHash: R - 1n });
    await expect(fx.escrow.openSession(sid("x"), fx.user.account.address, R)).rejects.toThrow(
      /NotFieldElement/,
    );
    await fx.escrow.openSession(sid("x"), fx.user.account.address, R - 1n);
    await expect(fx.escrow.checkpoint(sid("x"), 1, R)).rejects.toThrow(/NotFieldElement/);
    await expect(fx.escrow.checkpoint(sid("x"), 1, 2n ** 256n - 1n)).rejects.toThrow(/NotFieldElement/);
    await fx.escrow.checkpoint(sid("x"), 1, R - 1n);
    await expect(fx.escrow.closeSession(sid("x"), 2, R)).rejects.toThrow(/NotFieldElement/);
    await fx.escrow.closeSession(sid("x"), 2 ** 32 - 1, R - 1n);
  });

  it("builds public inputs below r from storage, even at the extremes", async () => {
    const promiseId = await register(fx);
    const s = sid("edge");
    await fx.escrow.openSession(s, fx.user.account.address, PROFILE);
    await fx.escrow.checkpoint(s, 2 ** 32 - 2, R - 1n);
    await fx.escrow.closeSession(s, 2 ** 32 - 1, R - 1n);
    const c = await claim(fx, s, promiseId);
    for (const violated of [false, true]) {
      const inputs = await fx.escrow.publicInputs(c, violated);
      for (const x of inputs) expect(x < R).toBe(true);
      expect(inputs[1]).toBe(R - 1n);
      expect(inputs[2]).toBe(2n ** 32n - 1n);
      expect(inputs[5]).toBe(violated ? 1n : 0n);
    }
  });

  it("refuses amounts that do not fit the packed reserve, instead of truncating them", async () => {
    const whale = fx.stranger;
    await fx.chain.testClient.setBalance({ address: whale.account.address, value: 2n ** 120n });
    const base = {
      predicateId: 4,
      paramsHash: 1n,
      profileHash: PROFILE,
      payout: 1n,
    };
    await expect(fx.escrow.as(whale).registerPromise({ ...base, value: 2n ** 112n })).rejects.toThrow(
      /AmountTooLarge/,
    );
    const { promiseId } = await fx.escrow.as(whale).registerPromise({ ...base, value: 2n ** 112n - 1n });
    await expect(fx.escrow.as(whale).fund(promiseId, 1n)).rejects.toThrow(/AmountTooLarge/);
  });
});

/**
 * Every function that can change state, and the one event it emits (EscrowClient checks there is exactly one);
 * openSession adds one SessionCovered per promise it names (MORE_EVENTS, for one promise).
 */
const EVENT_OF: Record<string, string> = {
  registerPromise: "PromiseRegistered",
  fund: "PromiseFunded",
  retirePromise: "PromiseRetired",
  withdrawReserve: "ReserveWithdrawn",
  releaseCoverage: "CoverageReleased",
  openSession: "SessionOpened",
  checkpoint: "Checkpointed",
  postReceipt: "ReceiptPosted",
  closeSession: "SessionClosed",
  fileClaim: "ClaimFiled",
  settle: "ClaimSettled",
  openSegments: "SegmentsOpened",
  proveSegment: "SegmentProven",
  settleSegments: "ClaimSettled",
  proveSegments: "SegmentsProven",
  settleChain: "ClaimSettled",
  claimDefault: "ClaimDefaulted",
  withdraw: "Withdrawn",
  // The deployer's, for a predicate without entries only: it changes no promise's terms or verifiers.
  appendPredicateVerifiers: "PredicateAppended",
};

const MORE_EVENTS: Record<string, string[]> = { openSession: ["SessionCovered"] };
/** Events before the function's own: appendPredicateVerifiers emits one per entry first (here, one). */
const EARLIER_EVENTS: Record<string, string[]> = { appendPredicateVerifiers: ["VerifierRegistered"] };

describe("events and immutability", () => {
  const mutating = () =>
    (fx.escrow.abi.filter((x) => x.type === "function") as AbiFunction[]).filter(
      (f) => f.stateMutability === "nonpayable" || f.stateMutability === "payable",
    );

  it("has no state-changing function beyond the protocol's, so no setter for a promise's terms (P5)", () => {
    expect(
      mutating()
        .map((f) => f.name)
        .sort(),
    ).toEqual(Object.keys(EVENT_OF).sort());
    for (const event of Object.values(EVENT_OF))
      expect(fx.escrow.abi.some((x) => x.type === "event" && x.name === event)).toBe(true);
  });

  it("emits its event from every state-changing function, and keeps the promise's terms through a lifecycle", async () => {
    const promiseId = await register(fx);
    const terms = async () => {
      const {
        predicateId,
        paramsHash,
        profileHash,
        payout,
        capacities,
        verifiers,
        segmentVerifier,
        provider,
        nonce,
      } = await fx.escrow.promise(promiseId);
      return {
        predicateId,
        paramsHash,
        profileHash,
        payout,
        capacities,
        verifiers,
        segmentVerifier,
        provider,
        nonce,
      };
    };
    const before = await terms();
    const seen = new Set<string>(["registerPromise"]);
    const track = async (fn: string, p: Promise<{ txHash: Hex }>) => {
      const { txHash } = await p;
      const receipt = await fx.chain.publicClient.getTransactionReceipt({ hash: txHash });
      const names = parseEventLogs({ abi: fx.escrow.abi, logs: receipt.logs }).map((l) => l.eventName);
      expect(names).toEqual([...(EARLIER_EVENTS[fn] ?? []), EVENT_OF[fn], ...(MORE_EVENTS[fn] ?? [])]);
      seen.add(fn);
    };
    const appended = (await deployContract(fx.chain, fx.provider, "MockVerifier")).address;
    const entry = {
      predicateId: 3,
      capacity: 8,
      checkpoints: checkpointSlots(8, fx.interval),
      verifier: appended,
    };
    await track("appendPredicateVerifiers", fx.escrow.appendPredicateVerifiers(3, [entry]));
    const a = sid("a");
    await track("openSession", fx.escrow.openSession(a, fx.user.account.address, PROFILE));
    await track("checkpoint", fx.escrow.checkpoint(a, 1, 5n));
    const receipt = { sessionId: a, n: 11, root: 7n };
    await track("postReceipt", fx.asUser.postReceipt(receipt, await signed(fx, receipt)));
    await track("closeSession", fx.escrow.closeSession(a, 12, 6n));
    await track("fund", fx.asStranger.fund(promiseId, PAYOUT)); // room for a second session's earmark
    const b = await session(fx, "b");
    const c1 = (await fx.asUser.fileClaim(a, promiseId, BOND)).claimId;
    await track("fileClaim", fx.asUser.fileClaim(b, promiseId, BOND));
    await track("settle", fx.escrow.settle(c1, PROOF, true));
    // Segmented settlement: a chain of one link (session() closes at 3 records, within SEGMENT_SIZE), the
    // segment MockVerifier3 accepting any proof.
    await fx.asStranger.fund(promiseId, PAYOUT);
    const d = await session(fx, "d");
    const c4 = (await fx.asUser.fileClaim(d, promiseId, BOND)).claimId;
    await track("openSegments", fx.asStranger.openSegments(c4));
    await track("proveSegment", fx.asStranger.proveSegment(c4, 0n, 2n, PROOF));
    await track("settleSegments", fx.asStranger.settleSegments(c4, [0n, 2n]));
    // Batches: a span of two links recorded, and a whole chain settled in one transaction.
    await fx.asStranger.fund(promiseId, PAYOUT);
    const f = await session(fx, "f");
    const c5 = (await fx.asUser.fileClaim(f, promiseId, BOND)).claimId;
    await fx.asStranger.openSegments(c5);
    await track("proveSegments", fx.asStranger.proveSegments(c5, [0n, 5n, 6n], [PROOF, PROOF]));
    await track("settleChain", fx.asStranger.settleChain(c5, [0n, 1n], [PROOF]));
    const c3 = (await fx.escrow.pair(b, promiseId)).openClaimId;
    await at(fx, (await filedAt(fx, c3)) + PROOF_WINDOW);
    await track("claimDefault", fx.asUser.claimDefault(c3));
    // A session left unclaimed: its earmark is released once its claim window (close + 30 d) is over.
    await fx.asStranger.fund(promiseId, PAYOUT);
    const e = await session(fx, "e");
    await track("retirePromise", fx.escrow.retirePromise(promiseId));
    await at(fx, (await fx.escrow.claimDeadline(e, promiseId))! + 1n);
    await track("releaseCoverage", fx.asStranger.releaseCoverage(e, promiseId));
    await track("withdrawReserve", fx.escrow.withdrawReserve(promiseId));
    await track("withdraw", fx.asUser.withdraw());
    expect([...seen].sort()).toEqual(Object.keys(EVENT_OF).sort());
    expect(await terms()).toEqual(before);
  });
});
