// Batched segment verification (contracts/templates/SegmentVerifier.sol.tmpl verifyChain, the escrow's
// settleChain and proveSegments) with real aap3_seg8 proofs on an in-process chain. A batch is one pairing check
// over a random linear combination of its links' Groth16 equations (docs/SOUNDNESS.md "Batched segment
// verification"); every way to slip a bad link into it is refused: a bad proof in each position, proofs swapped
// between links, a proof from another claim, points off the curve, a G2 point outside its subgroup, a wrong
// length. Then the gas: a full batch of MAX_BATCH_LINKS links stays under 2^24 with a margin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, parseAbi, type Address, type Hex } from "viem";
import { loadClaim } from "../../prover/claims.js";
import { prepareSegments, type PreparedSegments } from "../../prover/segments/claims.js";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import { MAX_BATCH_LINKS } from "../../sdk/core/segments.js";
import { claimOn, revertOf, segmentWorld, type SegmentWorld } from "../helpers/segment-claims.js";
import { expectVerified } from "../helpers/segment-claims.js";

const VERIFIER_ABI = parseAbi([
  "function verifyChain(uint256 digest, uint256[] states, uint256[] proofs) view returns (bool)",
  "function verifyProof(uint256[2] pA, uint256[2][2] pB, uint256[2] pC, uint256[3] pubSignals) view returns (bool)",
  "function MAX_BATCH_LINKS() view returns (uint256)",
]);
/** The BN254 base field. */
const Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
const G1 = [1n, 2n];
/** The G2 generator in the precompile's limb order (x.c1, x.c0, y.c1, y.c0). */
const G2 = [
  11559732032986387107991004021392285783925812861821192530917403151452391805634n,
  10857046999023057135944570762232829481370756359578518086990519993285655852781n,
  4082367875863433681332203403145435568316851327593401208105741076214120093531n,
  8495653923123431417604973247489272438418190587263600148770280649306958101930n,
];

let w: SegmentWorld;
let verifier: Address;
interface Proven {
  claimId: bigint;
  prepared: PreparedSegments;
  digest: bigint;
  /** Link j's 8 proof words. */
  words: bigint[][];
}
let a: Proven; // 20 records, 3 links, satisfied
let b: Proven; // 20 records, violated at record 3, 3 links
/** The gas of settleChain's 3-link settlement of claim A, for the full-batch estimate. */
let settleChainGas = 0n;

async function proven(n: number, bad: number[]): Promise<Proven> {
  const { claimId } = await claimOn(w, n, bad);
  const escrow = w.deployment.escrow;
  const prepared = await prepareSegments(await loadClaim(w.store, escrow, claimId), escrow);
  const got = await w.pool.proveAll(prepared.tasks);
  const words = got.sort((x, y) => x.index - y.index).map((p) => p.words.map(BigInt));
  return { claimId, prepared, digest: (await escrow.claimDigests(claimId)).current, words };
}

const flat = (words: bigint[][]) => words.flat();
const verifyChain = (digest: bigint, states: readonly bigint[], proofs: readonly bigint[]) =>
  w.chain.publicClient.readContract({
    address: verifier,
    abi: VERIFIER_ABI,
    functionName: "verifyChain",
    args: [digest, [...states], [...proofs]],
  });
/** The proof with A negated: still a point on the curve, no longer a proof of anything. */
const negateA = (p: bigint[]) => [p[0]!, (Q - p[1]!) % Q, ...p.slice(2)];

beforeAll(async () => {
  w = await segmentWorld();
  verifier = w.deployment.record.segmentVerifiers.find((v) => v.circuit === "aap3_seg8")!.address;
  a = await proven(20, []);
  b = await proven(20, [3]);
}, 300_000);
afterAll(async () => {
  await w?.close();
});

describe("a segment verifier checks a chain of links with one pairing check", () => {
  it("the batch limit is one figure: the verifier's, the escrow's and the SDK's", async () => {
    const escrow = w.deployment.escrow;
    const ofVerifier = await w.chain.publicClient.readContract({
      address: verifier,
      abi: VERIFIER_ABI,
      functionName: "MAX_BATCH_LINKS",
    });
    const ofEscrow = await w.chain.publicClient.readContract({
      address: escrow.address,
      abi: escrow.abi,
      functionName: "MAX_BATCH_LINKS",
    });
    expect([ofVerifier, ofEscrow]).toEqual([BigInt(MAX_BATCH_LINKS), BigInt(MAX_BATCH_LINKS)]);
  });

  it("accepts the valid chain, every prefix of it, and each link alone (verifyProof is a chain of one)", async () => {
    const s = a.prepared.states;
    expect(await verifyChain(a.digest, s, flat(a.words))).toBe(true);
    expect(await verifyChain(a.digest, s.slice(0, 3), flat(a.words.slice(0, 2)))).toBe(true);
    for (let j = 0; j < 3; j++) {
      expect(await verifyChain(a.digest, s.slice(j, j + 2), a.words[j]!)).toBe(true);
      const p = a.words[j]!;
      const ok = await w.chain.publicClient.readContract({
        address: verifier,
        abi: VERIFIER_ABI,
        functionName: "verifyProof",
        args: [
          [p[0]!, p[1]!],
          [
            [p[2]!, p[3]!],
            [p[4]!, p[5]!],
          ],
          [p[6]!, p[7]!],
          [a.digest, s[j]!, s[j + 1]!],
        ],
      });
      expect(ok).toBe(true);
    }
  });

  it("refuses a batch with one bad proof, in each position", async () => {
    for (let j = 0; j < 3; j++) {
      const words = a.words.map((p, i) => (i === j ? negateA(p) : p));
      expect(await verifyChain(a.digest, a.prepared.states, flat(words)), `bad link ${j}`).toBe(false);
    }
  });

  it("refuses points at infinity, a digest ≥ r, and another statement's valid proof in the last position", async () => {
    const s = a.prepared.states;
    const p2 = a.words[2]!;
    const withLast = (p: bigint[]) => flat([a.words[0]!, a.words[1]!, p]);
    expect(await verifyChain(a.digest, s, withLast([0n, 0n, ...p2.slice(2)]))).toBe(false); // A = O
    expect(await verifyChain(a.digest, s, withLast([...p2.slice(0, 6), 0n, 0n]))).toBe(false); // C = O
    expect(await verifyChain(a.digest, s, withLast([p2[0]!, p2[1]!, 0n, 0n, 0n, 0n, p2[6]!, p2[7]!]))).toBe(
      false,
    ); // B = O
    expect(await verifyChain(a.digest, s, withLast(b.words[0]!))).toBe(false);
    const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
    expect(await verifyChain(a.digest + R, s, flat(a.words))).toBe(false);
  });

  it("refuses proofs swapped between links, a proof from another claim, and a forged state", async () => {
    const s = a.prepared.states;
    const swapped = [a.words[1]!, a.words[0]!, a.words[2]!];
    expect(await verifyChain(a.digest, s, flat(swapped))).toBe(false);
    // Claim B's first link, proven under B's digest, in place of A's first link.
    expect(await verifyChain(a.digest, s, flat([b.words[0]!, a.words[1]!, a.words[2]!]))).toBe(false);
    // B's valid link, presented with A's digest (another claim's statement).
    expect(await verifyChain(a.digest, b.prepared.states.slice(0, 2), b.words[0]!)).toBe(false);
    expect(await verifyChain(b.digest, b.prepared.states.slice(0, 2), b.words[0]!)).toBe(true);
    // A state changed at a boundary: both links that meet there are about other statements now.
    expect(await verifyChain(a.digest, [s[0]!, s[1]! + 1n, s[2]!, s[3]!], flat(a.words))).toBe(false);
  });

  it("refuses points off the curve, off the twist, outside G2's subgroup, non-canonical words and wrong lengths", async () => {
    const s = a.prepared.states;
    const withLink1 = (p: bigint[]) => flat([a.words[0]!, p, a.words[2]!]);
    const p1 = a.words[1]!;
    // A = (1, 1): 1 ≠ 1 + 3, not on y² = x³ + 3.
    expect(await verifyChain(a.digest, s, withLink1([1n, 1n, ...p1.slice(2)]))).toBe(false);
    // C off the curve.
    expect(await verifyChain(a.digest, s, withLink1([...p1.slice(0, 6), 1n, 1n]))).toBe(false);
    // B off the twist.
    expect(await verifyChain(a.digest, s, withLink1([p1[0]!, p1[1]!, 1n, 1n, 1n, 1n, p1[6]!, p1[7]!]))).toBe(
      false,
    );
    // B on the twist but outside the order-r subgroup: the pairing precompile itself refuses it.
    const outside = twistPointOutsideSubgroup();
    expect(await pairingAnswers([...G1, ...outside])).toBe(false);
    expect(await pairingAnswers([...G1, ...G2])).toBe(true);
    expect(await verifyChain(a.digest, s, withLink1([p1[0]!, p1[1]!, ...outside, p1[6]!, p1[7]!]))).toBe(
      false,
    );
    // A coordinate ≥ q that would be the same point mod q, and a state ≥ r that would be the same input mod r.
    expect(await verifyChain(a.digest, s, withLink1([p1[0]! + Q, ...p1.slice(1)]))).toBe(false);
    const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
    expect(await verifyChain(a.digest, [s[0]!, s[1]! + R, s[2]!, s[3]!], flat(a.words))).toBe(false);
    // Lengths: one proof word short, one link too many proofs, no link at all.
    expect(await verifyChain(a.digest, s, flat(a.words).slice(0, -1))).toBe(false);
    expect(await verifyChain(a.digest, s.slice(0, 3), flat(a.words))).toBe(false);
    expect(await verifyChain(a.digest, s.slice(0, 1), [])).toBe(false);
  });
});

describe("the escrow settles a chain in one transaction, or in spans", () => {
  it("settleChain refuses a bad chain and settles the good one once; vai verify checks every link again", async () => {
    const escrow = w.deployment.escrow;
    const s = a.prepared.states;
    expect(
      await revertOf(escrow.settleChain(a.claimId, s, [a.words[0]!, negateA(a.words[1]!), a.words[2]!])),
    ).toBe("InvalidProof");
    expect(await revertOf(escrow.settleChain(a.claimId, s.slice(1), a.words.slice(1)))).toBe("BadChainStart");
    expect(await revertOf(escrow.settleChain(a.claimId, s.slice(0, 3), a.words.slice(0, 2)))).toBe(
      "BadChainEnd",
    );
    expect(await revertOf(escrow.settleChain(a.claimId, [0n], []))).toBe("SegmentChainLength");
    // Claim B's valid chain under claim A: B's digest is not A's.
    expect(await revertOf(escrow.settleChain(a.claimId, b.prepared.states, b.words))).toBe("InvalidProof");
    const settled = await escrow.settleChain(a.claimId, s, a.words);
    settleChainGas = settled.gasUsed;
    expect(settled.violated).toBe(false);
    expect((await escrow.claim(a.claimId)).status).toBe(ClaimStatus.Settled);
    expect(await revertOf(escrow.settleChain(a.claimId, s, a.words))).toBe("ClaimNotOpen");
    await expectVerified(w, a.claimId, false);
  });

  it("proveSegments records a span that settleSegments takes like a link, beside a single link", async () => {
    const escrow = w.deployment.escrow;
    const s = b.prepared.states;
    expect(await revertOf(escrow.proveSegments(b.claimId, s.slice(0, 3), b.words.slice(0, 2)))).toBe(
      "SegmentsNotOpened",
    );
    await escrow.openSegments(b.claimId);
    expect(
      await revertOf(escrow.proveSegments(b.claimId, s.slice(0, 3), [negateA(b.words[0]!), b.words[1]!])),
    ).toBe("InvalidProof");
    const span = await escrow.proveSegments(b.claimId, s.slice(0, 3), b.words.slice(0, 2));
    expect(span).toMatchObject({ stateIn: 0n, stateOut: s[2], links: 2n });
    expect(await revertOf(escrow.proveSegments(b.claimId, s.slice(0, 3), b.words.slice(0, 2)))).toBe(
      "SegmentAlreadyProven",
    );
    await escrow.proveSegment(b.claimId, s[2]!, s[3]!, b.words[2]!);
    // The span is recorded as (s0, s2) only: its inner link (s0, s1) was never recorded alone.
    expect(await revertOf(escrow.settleSegments(b.claimId, s))).toBe("SegmentNotProven");
    const settled = await escrow.settleSegments(b.claimId, [s[0]!, s[2]!, s[3]!]);
    expect(settled.violated).toBe(true);
    await expectVerified(w, b.claimId, true);
  });

  it("a full batch of MAX_BATCH_LINKS links costs under three quarters of 2^24 gas, escrow included", async () => {
    // Valid points (the generators) make every precompile run as for real proofs; the pairing product is then
    // not 1, which costs the same gas as when it is. The escrow's own part is measured on a real 3-link settleChain.
    const m = MAX_BATCH_LINKS;
    const gasOf = (links: number) =>
      w.chain.publicClient.estimateGas({
        to: verifier,
        data: encodeVerifyChain(links),
      });
    const [full, three] = [await gasOf(m), await gasOf(3)];
    expect(settleChainGas).toBeGreaterThan(0n); // the settleChain test above ran
    // estimateGas counts the calldata too (8 proof words and a state a link), as the escrow's transaction pays it.
    const total = settleChainGas + (full - three);
    console.log(
      `verifyChain: ${three} gas at 3 links, ${full} at ${m} (${(full - three) / BigInt(m - 3)} a link); settleChain of 3 links ${settleChainGas}; a full settleChain about ${total}`,
    );
    expect(total).toBeLessThan((3n << 24n) / 4n);
  });
});

/** verifyChain's calldata for `links` links of generator points (valid encodings, an unsatisfied equation). */
function encodeVerifyChain(links: number): Hex {
  const states = Array.from({ length: links + 1 }, (_, i) => BigInt(i + 3));
  const proofs = Array.from({ length: links }, () => [...G1, ...G2, ...G1]).flat();
  return encodeCall("verifyChain", [5n, states, proofs]);
}

function encodeCall(name: "verifyChain", args: [bigint, bigint[], bigint[]]): Hex {
  return encodeFunctionData({ abi: VERIFIER_ABI, functionName: name, args });
}

/** Whether the pairing precompile (0x08) answers at all for these pairs (a refused input makes the call fail). */
async function pairingAnswers(words: bigint[]): Promise<boolean> {
  const data = `0x${words.map((x) => x.toString(16).padStart(64, "0")).join("")}` as Hex;
  try {
    const { data: out } = await w.chain.publicClient.call({
      to: "0x0000000000000000000000000000000000000008",
      data,
    });
    return out !== undefined && out.length === 66;
  } catch {
    return false;
  }
}

// ---- Fp2 arithmetic, only to find a point on the twist y² = x³ + 3/(9 + u) that is not in G2 (the twist's
// cofactor is about 2^254, so the first point found is outside the order-r subgroup but for a negligible chance).
type Fp2 = [bigint, bigint];
const mod = (x: bigint) => ((x % Q) + Q) % Q;
const add2 = (x: Fp2, y: Fp2): Fp2 => [mod(x[0] + y[0]), mod(x[1] + y[1])];
const mul2 = (x: Fp2, y: Fp2): Fp2 => [mod(x[0] * y[0] - x[1] * y[1]), mod(x[0] * y[1] + x[1] * y[0])];
function powF(x: bigint, e: bigint): bigint {
  let r = 1n;
  for (let b = mod(x); e > 0n; e >>= 1n, b = (b * b) % Q) if (e & 1n) r = (r * b) % Q;
  return r;
}
function pow2(x: Fp2, e: bigint): Fp2 {
  let r: Fp2 = [1n, 0n];
  for (let b = x; e > 0n; e >>= 1n, b = mul2(b, b)) if (e & 1n) r = mul2(r, b);
  return r;
}
/** A square root in Fp2 for q ≡ 3 mod 4 (Adj and Rodríguez-Henríquez, algorithm 9), or undefined. */
function sqrt2(a: Fp2): Fp2 | undefined {
  const a1 = pow2(a, (Q - 3n) / 4n);
  const alpha = mul2(mul2(a1, a1), a);
  const a0 = mul2(pow2(alpha, Q), alpha);
  if (a0[0] === Q - 1n && a0[1] === 0n) return undefined;
  const x0 = mul2(a1, a);
  if (alpha[0] === Q - 1n && alpha[1] === 0n) return mul2([0n, 1n], x0);
  return mul2(pow2(add2([1n, 0n], alpha), (Q - 1n) / 2n), x0);
}
function twistPointOutsideSubgroup(): bigint[] {
  const inv82 = powF(82n, Q - 2n);
  const bTwist: Fp2 = [mod(27n * inv82), mod(-3n * inv82)]; // 3 / (9 + u) = (27 − 3u) / 82
  for (let x0 = 1n; ; x0++) {
    const x: Fp2 = [x0, 0n];
    const rhs = add2(mul2(mul2(x, x), x), bTwist);
    const y = sqrt2(rhs);
    if (!y) continue;
    const check = mul2(y, y);
    if (check[0] !== rhs[0] || check[1] !== rhs[1]) continue;
    return [x[1], x[0], y[1], y[0]];
  }
}
