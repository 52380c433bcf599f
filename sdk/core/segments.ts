// Segment chains: a session of n records proven by ceil(n / S) segment proofs, S = 2^depth, linked by
// commitments to the state carried from one segment to the next (docs/PROTOCOL.md "Segmented
// settlement"). This module computes every carried value and state commitment exactly as
// circuits/gadgets/segment.circom does: the chain head, the Merkle frontier, the checkpoint fold and
// the lookup's running sum under the global challenge. Pure: no I/O.
import { FIELD_MODULUS, foldCheckpoint, hashVector, poseidon } from "./hash.js";
import { TREE_ARITY, zeroHash } from "./merkle.js";
import { checkpointSlots } from "./checkpoints.js";
import { ZkvaiError } from "./errors.js";

/** Levels of the trace tree a segment chain carries: sessions of at most 16^6 records (segment.circom). */
export const SEGMENT_TREE_HEIGHT = 6;

/** Segment labels carry a count − 1 in 24 bits: a session holds at most 16^6 = 2^24 records. */
export const SESSION_COUNT_BITS = 4 * SEGMENT_TREE_HEIGHT;
export const MAX_SEGMENTED_RECORDS = TREE_ARITY ** SEGMENT_TREE_HEIGHT;
/**
 * The most segments one settleSegments call links: the escrow's MAX_CHAIN_LINKS (contracts/EscrowSegments.sol;
 * test/contracts/chain-limit.test.ts checks the two are equal). One transaction may use at most 2^24 gas
 * (EIP-7825, enforced by the project's Hardhat network too), and settleSegments reads one cold slot per link:
 * measured about 114k plus 3,074 gas per link, 12,709,054 gas at 4,096 links, 76% of the cap, so the longest
 * chain keeps a quarter of the cap as margin (docs/BENCHMARKS.md "Segment chains").
 */
export const MAX_CHAIN_LINKS = 4_096;
/**
 * The most links one settleChain or proveSegments call verifies with one pairing check: the escrow's and every
 * segment verifier's MAX_BATCH_LINKS (contracts/EscrowSegments.sol, contracts/templates/SegmentVerifier.sol.tmpl;
 * test/contracts/segment-batch.test.ts checks all three are equal and measures a full batch under 2^24 gas).
 * A chain of at most this many links settles in one transaction (settleChain); a longer one is proven in spans
 * of this many (proveSegments) and settled by settleSegments over the spans' ends.
 */
export const MAX_BATCH_LINKS = 160;

/** The last segment's stateOut: the verdict instead of a hash. */
export const SEGMENT_SATISFIED = 1n;
export const SEGMENT_VIOLATED = 2n;
/** Multiplicities pack 126 to a field element in the lookup's hash chain (2 bits each). */
const PACK = 126;

export class SegmentError extends ZkvaiError {
  static override readonly code: string = "SEGMENT_ERROR";
  override name = "SegmentError";
}

/** What a segment proof is about, the five values a whole-claim proof takes as public inputs. */
export interface SegmentClaim {
  context: bigint;
  finalRoot: bigint;
  n: number;
  checkpointAcc: bigint;
  paramsHash: bigint;
}

/**
 * The one public input that binds a segment proof to its claim: Poseidon(Poseidon(context, finalRoot, n),
 * checkpointAcc, paramsHash), as circuits/gadgets/segment.circom SegmentClaim and the escrow's openSegments
 * compute it (the escrow with its Poseidon(3)).
 */
export function segmentClaimDigest(c: SegmentClaim): bigint {
  return poseidon([poseidon([c.context, c.finalRoot, BigInt(c.n)]), c.checkpointAcc, c.paramsHash]);
}

/** Segments a session of n records takes with segments of `size` records. */
export function segmentCount(n: number, size: number): number {
  return Math.ceil(n / size);
}

/**
 * The most links a claim can settle by: settleSegments takes MAX_CHAIN_LINKS steps, and each step may be a span
 * of MAX_BATCH_LINKS links (proveSegments), each batch and the walk under 2^24 gas on its own: 655,360.
 */
export const MAX_SETTLEABLE_LINKS = MAX_CHAIN_LINKS * MAX_BATCH_LINKS;

/**
 * The most records a segment chain of `size` records a segment settles: the circuit's 16^6, or fewer
 * when MAX_SETTLEABLE_LINKS segments hold fewer (5,242,880 records at 8 a segment; 16^6 from 32 up).
 */
export function segmentChainCapacity(size: number): number {
  return Math.min(MAX_SEGMENTED_RECORDS, size * MAX_SETTLEABLE_LINKS);
}

/** What segment `index` takes from the one before it (all 0 and empty groups for the first). */
export interface SegmentCarry {
  index: number;
  head: bigint;
  acc: bigint;
  sum: bigint;
  chain: bigint;
  alpha: bigint;
  beta: bigint;
  violated: boolean;
  /** The predicate's own state commitment (0 for a predicate that judges records one by one). */
  predicate: bigint;
  /** The Merkle frontier: per carried level, 16 nodes (zeroHash(level) where none is finished). */
  pending: bigint[][];
}

/** The lowest tree level a segment of 2^depth records hands on: its leaves are 2^(depth mod 4) subtrees of that height. */
export function carriedLevel(depth: number): number {
  return Math.floor(depth / 4);
}

/** An empty frontier for segments of 2^depth records. */
export function emptyFrontier(depth: number): bigint[][] {
  const q = carriedLevel(depth);
  return Array.from({ length: SEGMENT_TREE_HEIGHT - q }, (_, j) => Array<bigint>(16).fill(zeroHash(q + j)));
}

/** The carried state as the circuit hashes it (segment.circom's layout). */
export function stateVector(c: SegmentCarry): bigint[] {
  return [
    BigInt(c.index),
    c.head,
    c.acc,
    c.sum,
    c.chain,
    c.alpha,
    c.beta,
    c.violated ? 1n : 0n,
    c.predicate,
    ...c.pending.flat(),
  ];
}

/** The state commitment between segments: 0 before the first (the circuit requires it). */
export function stateCommitment(c: SegmentCarry): bigint {
  return c.index === 0 ? 0n : hashVector(stateVector(c));
}

function mod(x: bigint): bigint {
  const r = x % FIELD_MODULUS;
  return r < 0n ? r + FIELD_MODULUS : r;
}

function inverse(x: bigint): bigint {
  // Fermat: x^(r-2); x != 0 (an honest key equals alpha with probability ~1/r).
  let result = 1n;
  let base = mod(x);
  if (base === 0n) throw new SegmentError("a lookup key equals the challenge; re-derive with another trace");
  let e = FIELD_MODULUS - 2n;
  while (e > 0n) {
    if (e & 1n) result = (result * base) % FIELD_MODULUS;
    base = (base * base) % FIELD_MODULUS;
    e >>= 1n;
  }
  return result;
}

/** The tree after a segment's leaves join the frontier, and the commitment candidate of each height. */
export function joinFrontier(
  depth: number,
  index: number,
  leaves: readonly bigint[],
  pending: readonly (readonly bigint[])[],
): { pendingOut: bigint[][]; candidates: bigint[] } {
  const size = 2 ** depth;
  if (leaves.length !== size) throw new RangeError(`a segment has ${size} leaves, got ${leaves.length}`);
  const q = carriedLevel(depth);
  const blocks = 2 ** (depth % 4);
  // The segment's own levels 0..q.
  const own: bigint[][] = [[...leaves]];
  for (let l = 1; l <= q; l++) {
    const below = own[l - 1]!;
    const level: bigint[] = [];
    for (let i = 0; i < below.length; i += TREE_ARITY) level.push(poseidon(below.slice(i, i + TREE_ARITY)));
    own.push(level);
  }
  const candidates = own.map((level) => level[0]!);
  let u = index * blocks;
  const digits = pending.map(() => {
    const d = u % 16;
    u = Math.floor(u / 16);
    return d;
  });
  const groups = pending.map((g) => [...g]);
  const pendingOut = pending.map((g) => [...g]);
  let arrived = true;
  let node = 0n;
  for (let j = 0; j < groups.length; j++) {
    const d = digits[j]!;
    if (j === 0) for (let t = 0; t < blocks; t++) groups[0]![d + t] = own[q]![t]!;
    else groups[j]![d] = node;
    const complete: boolean = arrived && (j === 0 ? d + blocks === 16 : d === 15);
    node = poseidon(groups[j]!);
    candidates.push(node);
    if (arrived) pendingOut[j] = complete ? Array<bigint>(16).fill(zeroHash(q + j)) : [...groups[j]!];
    arrived = complete;
  }
  return { pendingOut, candidates };
}

/** One segment of a chain: its rows, the entries it folds, its multiplicities and its carried states. */
export interface SegmentPlan {
  index: number;
  /** Global positions [from, to) of its records. */
  from: number;
  to: number;
  /** The fold entries it folds, in the escrow's order. */
  entries: { n: number; root: bigint }[];
  /** Per row: how many entries (of the whole chain) name it, 0..3. */
  hits: number[];
  carryIn: SegmentCarry;
  carryOut: SegmentCarry;
  stateIn: bigint;
  stateOut: bigint;
}

export interface SegmentChainSpec {
  /** Segments hold 2^depth records. */
  depth: number;
  /** All n chained leaves of the session (encoding.ts). */
  leaves: readonly bigint[];
  /** The escrow's fold entries in its order (checkpoints and receipts). */
  entries: readonly { n: number; root: bigint }[];
  finalRoot: bigint;
  /** The predicate's state before each segment and after the last (length segments + 1). */
  predicateStates?: readonly bigint[];
  /** Position of the first record that violates the promise (the oracle's verdict), or null. */
  firstViolation: number | null;
  /** Entry slots per segment: checkpointSlots(2^depth) unless given. */
  entrySlots?: number;
}

/**
 * Every segment of a session's chain, with the states the escrow will link. The challenge is derived
 * from the whole trace first (alpha = HashVector(n, finalRoot, acc, chain)), then each segment's share
 * of the lookup sum is computed under it, so the segments can be proven in any order, in parallel.
 */
export function planSegments(spec: SegmentChainSpec): SegmentPlan[] {
  const size = 2 ** spec.depth;
  const n = spec.leaves.length;
  if (n === 0) throw new SegmentError("an empty session has no segments");
  if (n > MAX_SEGMENTED_RECORDS)
    throw new SegmentError(`${n} records exceed the ${MAX_SEGMENTED_RECORDS} a segment chain holds`);
  const count = segmentCount(n, size);
  if (count > MAX_SETTLEABLE_LINKS)
    throw new SegmentError(
      `${n} records take ${count} segments of ${size}; a claim settles at most ${MAX_SETTLEABLE_LINKS} (${MAX_CHAIN_LINKS} spans of ${MAX_BATCH_LINKS})`,
    );
  const slots = spec.entrySlots ?? checkpointSlots(size);
  if (spec.entries.length > count * slots)
    throw new SegmentError(`${spec.entries.length} fold entries exceed ${count} segments × ${slots} slots`);
  const predicateStates = spec.predicateStates ?? Array<bigint>(count + 1).fill(0n);
  if (predicateStates.length !== count + 1)
    throw new SegmentError(`${count} segments need ${count + 1} predicate states`);

  const hits = Array<number>(n).fill(0);
  for (const [k, e] of spec.entries.entries()) {
    if (!Number.isInteger(e.n) || e.n < 1 || e.n > n)
      throw new SegmentError(`fold entry ${k} covers ${e.n} records; the trace holds ${n}`);
    if (spec.leaves[e.n - 1] !== e.root)
      throw new SegmentError(`fold entry ${k} (first ${e.n} records) is not the trace's chain head`);
    if (++hits[e.n - 1]! > 3)
      throw new SegmentError(`more than 3 fold entries name the prefix of ${e.n} records`);
  }
  const rowHits = (j: number) =>
    Array.from({ length: size }, (_, i) => (j * size + i < n ? hits[j * size + i]! : 0));

  // The multiplicities' hash chain, then the challenge.
  let chain = 0n;
  const chains = [0n];
  for (let j = 0; j < count; j++) {
    const m = rowHits(j);
    const packed: bigint[] = [];
    for (let i = 0; i < m.length; i += PACK) {
      let word = 0n;
      for (let t = Math.min(PACK, m.length - i) - 1; t >= 0; t--) word = word * 4n + BigInt(m[i + t]!);
      packed.push(word);
    }
    chains.push((chain = hashVector([chain, ...packed])));
  }
  let acc = 0n;
  for (const e of spec.entries) acc = foldCheckpoint(acc, e.n, e.root);
  const alpha = hashVector([BigInt(n), spec.finalRoot, acc, chain]);
  const beta = poseidon([alpha]);

  const plans: SegmentPlan[] = [];
  let carry: SegmentCarry = {
    index: 0,
    head: 0n,
    acc: 0n,
    sum: 0n,
    chain: 0n,
    alpha,
    beta,
    violated: false,
    predicate: predicateStates[0]!,
    pending: emptyFrontier(spec.depth),
  };
  for (let j = 0; j < count; j++) {
    const from = j * size;
    const to = Math.min(from + size, n);
    const leaves = Array.from({ length: size }, (_, i) => (from + i < n ? spec.leaves[from + i]! : 0n));
    const entries = spec.entries.slice(j * slots, (j + 1) * slots).map((e) => ({ ...e }));
    const m = rowHits(j);
    let sum = carry.sum;
    for (let i = 0; i < size; i++) {
      if (m[i] === 0) continue;
      sum = mod(sum + BigInt(m[i]!) * inverse(alpha - leaves[i]! - beta * BigInt(from + i + 1)));
    }
    for (const e of entries) sum = mod(sum - inverse(alpha - e.root - beta * BigInt(e.n)));
    let foldAcc = carry.acc;
    for (const e of entries) foldAcc = foldCheckpoint(foldAcc, e.n, e.root);
    const { pendingOut } = joinFrontier(spec.depth, j, leaves, carry.pending);
    const last = j === count - 1;
    const violated = spec.firstViolation !== null && spec.firstViolation < to;
    const out: SegmentCarry = {
      index: j + 1,
      head: leaves[size - 1]!,
      acc: foldAcc,
      sum,
      chain: chains[j + 1]!,
      alpha,
      beta,
      violated,
      predicate: predicateStates[j + 1]!,
      pending: pendingOut,
    };
    const stateOut = last ? (violated ? SEGMENT_VIOLATED : SEGMENT_SATISFIED) : hashVector(stateVector(out));
    plans.push({
      index: j,
      from,
      to,
      entries,
      hits: m,
      carryIn: carry,
      carryOut: out,
      stateIn: stateCommitment(carry),
      stateOut,
    });
    carry = out;
  }
  return plans;
}

/** The chain of states settleSegments takes: 0, each segment's stateOut, ending in the verdict. */
export function chainStates(plans: readonly SegmentPlan[]): bigint[] {
  return [0n, ...plans.map((p) => p.stateOut)];
}
