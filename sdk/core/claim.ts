// What a claim's proof is about, defined once for the prover, the verifier, the build and the tests:
// the public inputs settle() hands the verifier (their order, names and count), how a snarkjs proof is
// packed into the 8 words settle() takes and back, and which circuit serves a session of n records.
// The escrow (contracts/EscrowBase.sol) builds the same public inputs from its own storage and picks its
// verifier by the same rule; test/contracts/select-circuit.test.ts holds the two equal.

/**
 * The public inputs of every predicate's main circuit, in the order the escrow passes them:
 *   context        keccak(chainid, escrow, sessionId, promiseId) >> 3: binds the (session, promise) pair
 *   finalRoot, n   the session's final commitment and record count
 *   checkpointAcc  the fold of every on-chain checkpoint
 *   paramsHash     the promise's θ hash
 *   outcome        1 = violated, 0 = satisfied
 */
export const PUBLIC_INPUTS = ["context", "finalRoot", "n", "checkpointAcc", "paramsHash", "outcome"] as const;
export type PublicInputName = (typeof PUBLIC_INPUTS)[number];

/**
 * The public inputs of a segment circuit (circuits/segments/), in the order proveSegment passes them: the
 * claim's digest, which the escrow computes once per claim from the five values above (segmentClaimDigest in
 * sdk/core/segments.ts), then the states it links. The segment's index is private: the states lead with it.
 */
export const SEGMENT_PUBLIC_INPUTS = ["claimDigest", "stateIn", "stateOut"] as const;
export const PUBLIC_INPUT_COUNT = PUBLIC_INPUTS.length;

/** The public inputs as values, in PUBLIC_INPUTS order. */
export type PublicInputs = readonly [bigint, bigint, bigint, bigint, bigint, bigint];

export function publicInputIndex(name: PublicInputName): number {
  return PUBLIC_INPUTS.indexOf(name);
}

/**
 * A verdict as one word, for logs, the watcher's state and JSON output. The predicates' Verdict
 * (sdk/core/predicates/types.ts) carries the detail; settle() takes `violated` as a boolean; the proof
 * carries it as the `outcome` public input, 1 or 0. These three functions are the only translations.
 */
export type VerdictLabel = "violated" | "satisfied";

export function verdictLabel(violated: boolean): VerdictLabel {
  return violated ? "violated" : "satisfied";
}

/** The verdict a proof's public signals carry (the `outcome` input). */
export function outcomeOf(publicSignals: readonly bigint[]): VerdictLabel {
  return verdictLabel(publicSignals[publicInputIndex("outcome")] === 1n);
}

/** A Groth16 proof as snarkjs writes it (decimal strings; G2 coordinates as [c0, c1]). */
export interface Groth16ProofJson {
  pi_a: string[];
  pi_b: string[][];
  pi_c: string[];
  protocol: string;
  curve: string;
}

/** [a0, a1, b00, b01, b10, b11, c0, c1], as snarkjs `exportSolidityCallData` orders them. */
export type ProofWords = readonly bigint[];
export const PROOF_WORDS = 8;

/** snarkjs stores G2 coordinates as [c0, c1]; the EVM pairing precompile wants [c1, c0]. */
export function packProof(proof: Groth16ProofJson): bigint[] {
  const [a, b, c] = [proof.pi_a, proof.pi_b, proof.pi_c];
  return [a[0], a[1], b[0][1], b[0][0], b[1][1], b[1][0], c[0], c[1]].map((x) => BigInt(x));
}

/** The inverse of packProof: snarkjs' proof object from the 8 words settle() took. */
export function unpackProof(words: ProofWords): Groth16ProofJson {
  if (words.length !== PROOF_WORDS)
    throw new RangeError(`a proof is ${PROOF_WORDS} words, got ${words.length}`);
  const s = words.map(String);
  return {
    pi_a: [s[0], s[1], "1"],
    pi_b: [
      [s[3], s[2]],
      [s[5], s[4]],
      ["1", "0"],
    ],
    pi_c: [s[6], s[7], "1"],
    protocol: "groth16",
    curve: "bn128",
  };
}

/** Records a circuit of the given Merkle depth holds. */
export function capacityOfDepth(depth: number): number {
  return 2 ** depth;
}

/**
 * The escrow's rule (EscrowBase._verifierFor): the smallest capacity that holds n records. Candidates of equal
 * capacity keep their given order, so the first listed wins. Undefined when none holds n.
 */
export function selectCircuit<C extends { capacity: number }>(
  candidates: readonly C[],
  n: number,
): C | undefined {
  let best: C | undefined;
  for (const c of candidates)
    if (c.capacity >= n && (best === undefined || c.capacity < best.capacity)) best = c;
  return best;
}
