// #34 finding 4: a segment chain at MAX_CHAIN_LINKS must settle in one transaction under EIP-7825's 2^24 gas cap,
// which the project's Hardhat network enforces too; the escrow refuses one link more, and so does the SDK (one
// figure: the contract's constant and sdk/core/segments.ts MAX_CHAIN_LINKS, checked equal here; the SDK's refusal
// is test/sdk/segment-capacity.test.ts). Links are
// proven with the fixture's MockVerifier3, which accepts any proof: what is measured is settleSegments' own walk
// over the chain (one cold slot and one keccak per link), which no verifier takes part in.
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, keccak256, pad, parseAbiParameters, toHex, type Hex } from "viem";
import { FIELD_MODULUS as R } from "../../sdk/core/hash.js";
import {
  MAX_CHAIN_LINKS,
  MAX_SETTLEABLE_LINKS,
  segmentChainCapacity,
  SEGMENT_SATISFIED,
} from "../../sdk/core/segments.js";
import {
  claim,
  customRevert,
  escrowFixture,
  PAYOUT,
  PROOF,
  register,
  session,
  type Fixture,
} from "./fixture.js";

const fx = escrowFixture();
/** EIP-7825: the most gas one transaction may use (2^24). */
const TX_GAS_CAP = 16_777_216n;

/** A link's key in the escrow's _provenSegments (EscrowSegments._segmentKey). */
const segmentKey = (claimId: bigint, digest: bigint, stateIn: bigint, stateOut: bigint) =>
  keccak256(
    encodeAbiParameters(parseAbiParameters("uint256, uint256, uint256, uint256"), [
      claimId,
      digest,
      stateIn,
      stateOut,
    ]),
  );
/** The storage slot of mapping entry `key` in the mapping at `slot`. */
const entrySlot = (key: Hex, slot: bigint) =>
  keccak256(encodeAbiParameters(parseAbiParameters("bytes32, uint256"), [key, slot]));

/**
 * A claim whose chain of `links` links is proven: by proveSegment transactions, or, with `write`, by writing the
 * links' proven flags straight into storage at the slot `write` names (4,096 transactions take ~15 s; the flags
 * are exactly what proveSegment stores, and settleSegments reads nothing else of a link).
 */
async function provenChain(f: Fixture, label: string, links: number, write?: bigint) {
  const promiseId = await register(f, { reserve: 2n * PAYOUT });
  const sessionId = await session(f, label, { checkpoints: 0 });
  const claimId = await claim(f, sessionId, promiseId);
  const { claimDigest } = await f.asStranger.openSegments(claimId);
  // Nonzero-byte states, as real Poseidon commitments are: calldata costs what it will in production.
  const states = [
    0n,
    ...Array.from({ length: links - 1 }, (_, j) => R - 1000n - BigInt(j)),
    SEGMENT_SATISFIED,
  ];
  for (let j = 0; j < links; j++) {
    if (write === undefined) await f.asStranger.proveSegment(claimId, states[j], states[j + 1], PROOF);
    else
      await f.chain.testClient.setStorageAt({
        address: f.escrow.address,
        index: entrySlot(segmentKey(claimId, claimDigest, states[j], states[j + 1]), write),
        value: pad(toHex(1n)),
      });
  }
  return { claimId, states, digest: claimDigest };
}

/** _provenSegments' slot, found from a link proveSegment stored (the layout is the compiler's to choose). */
async function provenSegmentsSlot(f: Fixture, c: { claimId: bigint; states: bigint[]; digest: bigint }) {
  const key = segmentKey(c.claimId, c.digest, c.states[0], c.states[1]);
  for (let slot = 0n; slot < 64n; slot++) {
    const value = await f.chain.publicClient.getStorageAt({
      address: f.escrow.address,
      slot: entrySlot(key, slot),
    });
    if (value && BigInt(value) === 1n) return slot;
  }
  throw new Error("no slot holds the proven link");
}

describe("segment chain length", () => {
  it("one figure: the escrow's MAX_CHAIN_LINKS is the SDK's", async () => {
    const onChain = await fx.chain.publicClient.readContract({
      address: fx.escrow.address,
      abi: fx.escrow.abi,
      functionName: "MAX_CHAIN_LINKS",
    });
    expect(onChain).toBe(BigInt(MAX_CHAIN_LINKS));
    expect(segmentChainCapacity(8)).toBe(8 * MAX_SETTLEABLE_LINKS);
  });

  it("a chain of MAX_CHAIN_LINKS links settles in one transaction under 2^24 gas; the escrow refuses one more", async () => {
    const gasAt: Record<number, bigint> = {};
    let slot = -1n;
    for (const links of [1, 64]) {
      const chain = await provenChain(fx, `short-${links}`, links);
      slot = await provenSegmentsSlot(fx, chain);
      gasAt[links] = (await fx.asStranger.settleSegments(chain.claimId, chain.states)).gasUsed;
    }
    const { claimId, states } = await provenChain(fx, "longest", MAX_CHAIN_LINKS, slot);
    // One link too many: refused by its length, before any link is read.
    const tooLong = [...states.slice(0, -1), R - 1n, SEGMENT_SATISFIED];
    expect(await customRevert(fx.asStranger.settleSegments(claimId, tooLong))).toEqual({
      name: "SegmentChainLength",
      args: [BigInt(MAX_CHAIN_LINKS + 2)],
    });
    const settled = await fx.asStranger.settleSegments(claimId, states);
    gasAt[MAX_CHAIN_LINKS] = settled.gasUsed;
    const perLink = (gasAt[64] - gasAt[1]) / 63n;
    console.log("settleSegments gas by links", gasAt, { perLink, base: gasAt[1] - perLink });
    expect(settled.gasUsed).toBeLessThan(TX_GAS_CAP);
    // With a margin: the cap could take about a fifth more links than MAX_CHAIN_LINKS, so calldata repricing
    // (EIP-7623's floor, EIP-7904) or a colder state does not push the longest chain over it.
    expect(settled.gasUsed).toBeLessThan((TX_GAS_CAP * 80n) / 100n);
    expect(gasAt[1] + perLink * BigInt(MAX_CHAIN_LINKS - 1)).toBeGreaterThan((settled.gasUsed * 95n) / 100n);
  }, 600_000);
});
