// Registry appends (Escrow.appendPredicateVerifiers): the deployer adds a predicate the escrow does not serve yet,
// whole-claim verifiers and a segment verifier at once, and nothing else: a predicate with any entry is refused,
// so no promise's verifiers can ever change; nobody else may append. A promise on the appended predicate settles
// through the appended verifier (a MockVerifier switched off then on shows it is the one called).
import { describe, expect, it } from "vitest";
import { parseEventLogs, type Address } from "viem";
import { EscrowRevertError, type SegmentEntry, type VerifierEntry } from "../../sdk/chain/escrow.js";
import { deployContract } from "../../sdk/chain/artifacts.js";
import { ESCROW_ABI } from "../../sdk/chain/generated/escrow-abi.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import {
  BOND,
  CAPACITY,
  claim,
  escrowFixture,
  PARAMS,
  PAYOUT,
  PROFILE,
  PROOF,
  SEGMENT_SIZE,
  session,
  type Fixture,
} from "./fixture.js";

const fx = escrowFixture();
/** The predicate appended here: AAP-3, which the fixture's escrow does not serve (it serves AAP-4). */
const NEW = 3;

const mock = async (name: "MockVerifier" | "MockVerifier3" = "MockVerifier"): Promise<Address> =>
  (await deployContract(fx.chain, fx.provider, name)).address;

const entry = (verifier: Address, capacity: number, predicateId = NEW): VerifierEntry => ({
  predicateId,
  capacity,
  checkpoints: checkpointSlots(capacity, fx.interval),
  verifier,
});

const segmentEntry = (verifier: Address, predicateId = NEW): SegmentEntry => ({
  predicateId,
  segmentSize: SEGMENT_SIZE,
  checkpoints: checkpointSlots(SEGMENT_SIZE, fx.interval),
  verifier,
});

async function setResult(f: Fixture, verifier: Address, valid: boolean) {
  const hash = await f.provider.writeContract({
    address: verifier,
    abi: f.mockAbi,
    functionName: "setResult",
    args: [valid],
  });
  await f.chain.publicClient.waitForTransactionReceipt({ hash });
}

describe("appendPredicateVerifiers", () => {
  it("adds a new predicate's verifiers and segment verifier, one event per entry and one for the append", async () => {
    const [small, large, segment] = [await mock(), await mock(), await mock("MockVerifier3")];
    // Given out of order: the client sorts by capacity, as the escrow requires.
    const appended = await fx.escrow.appendPredicateVerifiers(
      NEW,
      [entry(large, 64), entry(small, 8)],
      segmentEntry(segment),
    );
    expect(appended).toMatchObject({ verifiers: 2n, segmentVerifier: segment });
    expect(await fx.escrow.verifierSet(NEW)).toEqual({ capacities: [8, 64], verifiers: [small, large] });
    expect(await fx.escrow.segmentVerifier(NEW)).toEqual({
      segmentSize: SEGMENT_SIZE,
      checkpoints: checkpointSlots(SEGMENT_SIZE, fx.interval),
      verifier: segment,
    });
    const { logs } = await fx.chain.publicClient.getTransactionReceipt({ hash: appended.txHash });
    const names = parseEventLogs({ abi: ESCROW_ABI, logs }).map((l) => l.eventName);
    expect(names).toEqual([
      "VerifierRegistered",
      "VerifierRegistered",
      "SegmentVerifierRegistered",
      "PredicateAppended",
    ]);
    // The deployment's predicate is untouched.
    expect(await fx.escrow.verifierSet(4)).toEqual({ capacities: [CAPACITY], verifiers: [fx.verifier] });
  });

  it("refuses a predicate the escrow serves, by whole-claim or segment verifiers, before or after an append", async () => {
    const v = await mock();
    const refused = (p: Promise<unknown>, id: number) =>
      expect(p).rejects.toSatisfy(
        (e: unknown) =>
          e instanceof EscrowRevertError && e.revert === "PredicateExists" && e.message.includes(`(${id})`),
      );
    // The deployment's AAP-4: neither a new class nor a segment verifier.
    await refused(fx.escrow.appendPredicateVerifiers(4, [entry(v, 128, 4)]), 4);
    await refused(fx.escrow.appendPredicateVerifiers(4, [], segmentEntry(await mock("MockVerifier3"), 4)), 4);
    // A predicate appended with a segment verifier alone can be promised already: no whole-claim classes later.
    await fx.escrow.appendPredicateVerifiers(5, [], segmentEntry(await mock("MockVerifier3"), 5));
    await refused(fx.escrow.appendPredicateVerifiers(5, [entry(v, 8, 5)]), 5);
    // And an appended predicate is as final as the deployment's.
    await fx.escrow.appendPredicateVerifiers(NEW, [entry(v, 8)]);
    await refused(fx.escrow.appendPredicateVerifiers(NEW, [entry(v, 16)]), NEW);
    expect(await fx.escrow.verifierSet(NEW)).toEqual({ capacities: [8], verifiers: [v] });
    expect(await fx.escrow.segmentVerifier(NEW)).toBeNull();
  });

  it("only the deployer may append", async () => {
    const v = await mock();
    for (const w of [fx.stranger, fx.otherProvider, fx.user])
      await expect(fx.escrow.as(w).appendPredicateVerifiers(NEW, [entry(v, 8)])).rejects.toThrow(
        /NotDeployer/,
      );
    await expect(fx.escrow.appendPredicateVerifiers(NEW, [entry(v, 8)])).resolves.toMatchObject({
      verifiers: 1n,
    });
  });

  it("checks every entry as the constructor does, and refuses an empty or mixed append", async () => {
    const v = await mock();
    const append = (verifiers: VerifierEntry[], segment?: SegmentEntry) =>
      fx.escrow.appendPredicateVerifiers(NEW, verifiers, segment);
    await expect(append([])).rejects.toThrow(/EmptyAppend/);
    await expect(append([entry(v, 8, 2)])).rejects.toThrow(/PredicateMismatch/);
    await expect(append([], segmentEntry(await mock("MockVerifier3"), 2))).rejects.toThrow(
      /PredicateMismatch/,
    );
    await expect(append([entry(v, 8), entry(v, 8)])).rejects.toThrow(/BadCapacities/);
    await expect(append([{ ...entry(v, 8), capacity: 0 }])).rejects.toThrow(/BadCapacities/);
    await expect(append([{ ...entry(v, 8), checkpoints: 9 }])).rejects.toThrow(/CheckpointsMismatch/);
    await expect(append([entry(fx.user.account.address, 8)])).rejects.toThrow(/VerifierNotContract/);
    await expect(append([], { ...segmentEntry(v), segmentSize: 6 })).rejects.toThrow(/BadSegmentSize/);
    const seventeen = Array.from({ length: 17 }, (_, i) => entry(v, i + 1));
    await expect(append(seventeen)).rejects.toThrow(/TooManyVerifiers/);
    // Nothing of a refused append remains: the predicate is still new.
    expect(await fx.escrow.verifierSet(NEW)).toEqual({ capacities: [], verifiers: [] });
    await expect(
      fx.escrow.registerPromise({
        predicateId: NEW,
        paramsHash: PARAMS,
        profileHash: PROFILE,
        payout: PAYOUT,
      }),
    ).rejects.toThrow(/UnknownPredicate/);
  });

  it("an appended verifier settles a claim on a promise of the new predicate; earlier promises keep theirs", async () => {
    const before = await fx.escrow.registerPromise({
      predicateId: 4,
      paramsHash: PARAMS,
      profileHash: PROFILE,
      payout: PAYOUT,
    });
    const appendedVerifier = await mock();
    const segment = await mock("MockVerifier3");
    await fx.escrow.appendPredicateVerifiers(NEW, [entry(appendedVerifier, 8)], segmentEntry(segment));
    const { promiseId } = await fx.escrow.registerPromise({
      predicateId: NEW,
      paramsHash: PARAMS,
      profileHash: PROFILE,
      payout: PAYOUT,
    });
    expect(await fx.escrow.promise(promiseId)).toMatchObject({
      predicateId: NEW,
      capacities: [8],
      verifiers: [appendedVerifier],
      segmentVerifier: segment,
    });
    // The AAP-4 promise registered before the append still has the deployment's set, and no segment verifier
    // of the new predicate.
    expect(await fx.escrow.promise(before.promiseId)).toMatchObject({
      capacities: [CAPACITY],
      verifiers: [fx.verifier],
      segmentVerifier: fx.segmentVerifier,
    });

    const sessionId = await session(fx, "appended", { cover: [promiseId] });
    const claimId = await claim(fx, sessionId, promiseId);
    expect(await fx.escrow.verifierOf(claimId)).toEqual({ verifier: appendedVerifier, capacity: 8 });
    // The appended verifier is the one called: refusing, it fails the settlement; accepting, it settles it.
    await setResult(fx, appendedVerifier, false);
    await expect(fx.asStranger.settle(claimId, PROOF, true)).rejects.toThrow(/InvalidProof/);
    await setResult(fx, appendedVerifier, true);
    const settled = await fx.asStranger.settle(claimId, PROOF, true);
    expect(settled).toMatchObject({
      violated: true,
      beneficiary: fx.user.account.address,
      amount: PAYOUT + BOND,
    });
  });

  it("gas: per appended verifier", async () => {
    const gasOf = async (predicateId: number, classes: number, withSegment: boolean) => {
      const verifiers = await Promise.all(
        Array.from({ length: classes }, async (_, i) => entry(await mock(), 8 * (i + 1), predicateId)),
      );
      const segment = withSegment ? segmentEntry(await mock("MockVerifier3"), predicateId) : undefined;
      return (await fx.escrow.appendPredicateVerifiers(predicateId, verifiers, segment)).gasUsed;
    };
    const one = await gasOf(1, 1, false);
    const four = await gasOf(2, 4, false);
    const segmentOnly = await gasOf(3, 0, true);
    const fourAndSegment = await gasOf(5, 4, true);
    const perVerifier = (four - one) / 3n;
    console.log(
      `appendPredicateVerifiers gas: 1 verifier ${one}, 4 verifiers ${four} (${perVerifier} per further verifier), ` +
        `segment verifier alone ${segmentOnly}, 4 verifiers + segment ${fourAndSegment}`,
    );
    // One slot of capacities (shared by eight classes), one of the address, the event: about 50k a verifier.
    expect(perVerifier).toBeLessThan(60_000n);
    expect(one).toBeLessThan(120_000n);
  });
});
