// The one TypeScript mirror of every hash the circuits and the escrow compute.
// circuits/gadgets/*.circom and contracts/Escrow.sol must agree with this file;
// test/contracts/poseidon-parity.test.ts, test/circuits/poseidon.test.ts and test/circuits/gadgets.test.ts hold the three of them to it.
import * as P from "poseidon-lite";
import { encodeAbiParameters, keccak256, toBytes, type Address, type Hex } from "viem";
import { wellFormed } from "./canonical.js";

/** The BN254 scalar field: every signal and every public input lives below it. */
export const FIELD_MODULUS = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;

/** Largest arity of circomlib's Poseidon (t = 17). */
export const POSEIDON_MAX_INPUTS = 16;

const byArity: ((inputs: bigint[]) => bigint)[] = [
  P.poseidon1,
  P.poseidon2,
  P.poseidon3,
  P.poseidon4,
  P.poseidon5,
  P.poseidon6,
  P.poseidon7,
  P.poseidon8,
  P.poseidon9,
  P.poseidon10,
  P.poseidon11,
  P.poseidon12,
  P.poseidon13,
  P.poseidon14,
  P.poseidon15,
  P.poseidon16,
] as ((inputs: bigint[]) => bigint)[];

export function assertField(x: bigint, what = "value"): bigint {
  if (x < 0n || x >= FIELD_MODULUS) throw new RangeError(`${what} is not a field element: ${x}`);
  return x;
}

/** A Poseidon implementation over 1..16 field elements (inputs already checked). */
export type PoseidonImplementation = (inputs: bigint[]) => bigint;

/** poseidon-lite: the definition. A faster implementation is used only once it agrees with it (installPoseidon). */
const reference: PoseidonImplementation = (inputs) => byArity[inputs.length - 1]!(inputs);
let implementation: PoseidonImplementation = reference;

/** circomlib Poseidon over 1..16 field elements. */
export function poseidon(inputs: readonly bigint[]): bigint {
  if (inputs.length < 1 || inputs.length > POSEIDON_MAX_INPUTS)
    throw new RangeError(`Poseidon takes 1..${POSEIDON_MAX_INPUTS} inputs, got ${inputs.length}`);
  inputs.forEach((x, i) => assertField(x, `Poseidon input ${i}`));
  return implementation([...inputs]);
}

/**
 * Replaces this thread's Poseidon with a faster implementation of the same function (the leaf hasher's
 * WebAssembly one, sdk/provider/leaf-worker.ts), after checking it against poseidon-lite at every arity on
 * inputs that cover 0, 1, r − 1, values spread over the field and fresh random ones (so that no fixed list
 * can be matched). Anything that disagrees is refused and the reference stays: a wrong hash would not
 * break soundness (the circuit recomputes every hash) but would leave the provider unable to prove its own
 * checkpoints.
 */
export function installPoseidon(candidate: PoseidonImplementation): void {
  const random = (): bigint => {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    return bytes.reduce((x, b) => (x << 8n) | BigInt(b), 0n) % FIELD_MODULUS;
  };
  for (let arity = 1; arity <= POSEIDON_MAX_INPUTS; arity++) {
    const samples = [
      Array.from({ length: arity }, () => 0n),
      Array.from({ length: arity }, (_, i) => (i % 2 === 0 ? 1n : FIELD_MODULUS - 1n)),
      Array.from({ length: arity }, (_, i) => (FIELD_MODULUS / 17n) * BigInt(i + 1) + BigInt(arity)),
      ...Array.from({ length: 4 }, () => Array.from({ length: arity }, random)),
    ];
    for (const inputs of samples)
      if (candidate([...inputs]) !== reference([...inputs]))
        throw new Error(`installPoseidon: the candidate disagrees with poseidon-lite at arity ${arity}`);
  }
  implementation = candidate;
}

/**
 * Hash of a variable-length vector, chained in chunks so that any length fits
 * circomlib's 16-input limit. Mirrors `HashVector(L)` in circuits/gadgets/hash.circom:
 *   h = Poseidon(v[0..16)), then h = Poseidon(h, next 15) for each further chunk.
 * Vectors of the same length collide only if Poseidon does; callers that mix
 * lengths put the length in the vector.
 */
export function hashVector(v: readonly bigint[]): bigint {
  if (v.length === 0) throw new RangeError("hashVector of an empty vector");
  let h = poseidon(v.slice(0, POSEIDON_MAX_INPUTS));
  for (let i = POSEIDON_MAX_INPUTS; i < v.length; i += POSEIDON_MAX_INPUTS - 1) {
    h = poseidon([h, ...v.slice(i, i + POSEIDON_MAX_INPUTS - 1)]);
  }
  return h;
}

/** Domain tags, so that a string hash can never equal a vector hash of other meaning. */
export const TAG_STRING = 0x737472n; // "str"

/**
 * A string as one field element: Poseidon over its UTF-8 bytes packed 31 to an
 * element (big-endian), behind a tag and the byte length. Never 0 in practice,
 * which is what lets 0 mean "absent" in a slot.
 */
export function stringToField(s: string): bigint {
  if (typeof s !== "string") throw new TypeError(`expected a string, got ${typeof s}`);
  // Well-formed strings and their UTF-8 bytes are in bijection; a lone surrogate
  // would be written as U+FFFD and collide (docs/SOUNDNESS.md, "Strings").
  const bytes = new TextEncoder().encode(wellFormed(s, "string"));
  const chunks: bigint[] = [];
  for (let i = 0; i < bytes.length; i += 31) {
    let x = 0n;
    for (const b of bytes.subarray(i, i + 31)) x = (x << 8n) | BigInt(b);
    chunks.push(x);
  }
  return hashVector([TAG_STRING, BigInt(bytes.length), ...chunks]);
}

/**
 * A 256-bit keccak value reduced into the field by dropping its low 3 bits.
 * The same shift is done in Solidity (`>> 3`), and it is total and injective on
 * the top 253 bits, unlike `mod r`, whose two preimages near 2^256 are easy to miss
 * in one of the three implementations.
 */
export function reduceBytes32(hex: `0x${string}`): bigint {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new TypeError(`expected 32 bytes of hex, got ${hex}`);
  return BigInt(hex) >> 3n;
}

/**
 * The claim context, public input 0 of every predicate circuit: the escrow's
 * `context(sessionId, promiseId)`, keccak(chainid, escrow, sessionId, promiseId) reduced like every
 * other keccak value. It binds a proof to one (session, promise) pair on one escrow (P4).
 */
export function claimContext(
  chainId: number | bigint,
  escrow: Address,
  sessionId: Hex,
  promiseId: bigint,
): bigint {
  return reduceBytes32(
    keccak256(
      encodeAbiParameters(
        [{ type: "uint256" }, { type: "address" }, { type: "bytes32" }, { type: "uint256" }],
        [BigInt(chainId), escrow, sessionId, promiseId],
      ),
    ),
  );
}

export function keccakToField(data: string | Uint8Array): bigint {
  return reduceBytes32(keccak256(typeof data === "string" ? toBytes(data) : data));
}

/** Checkpoint accumulator, folded on-chain by `Escrow.checkpoint`: acc' = Poseidon(acc, n, root). */
export function foldCheckpoint(acc: bigint, n: number, root: bigint): bigint {
  return poseidon([acc, BigInt(n), root]);
}

export const EMPTY_ACCUMULATOR = 0n;

export function accumulate(checkpoints: readonly { n: number; root: bigint }[]): bigint {
  return checkpoints.reduce((acc, c) => foldCheckpoint(acc, c.n, c.root), EMPTY_ACCUMULATOR);
}
