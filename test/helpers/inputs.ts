// Circuit inputs built from hand-made slots: for encodings no TS record produces
// (undecodable aux values, zero action slots, out-of-range amounts), which the
// forged-input tests of each predicate need.
import { leafHash, recordDigest, type EncodedRecord } from "../../sdk/core/encoding.js";
import { OBS_SLOTS } from "../../sdk/core/observations.js";
import { paramsHashOf, type PredicateDefinition } from "../../sdk/core/predicates/index.js";
import { predicateInput, type CircuitInput, type TraceShape } from "../../prover/witness.js";
import { mergeInputs } from "../../sdk/core/inputs.js";

export function rawSlotsInput<Theta>(
  predicate: PredicateDefinition<Theta>,
  theta: Theta,
  slots: bigint[][],
  outcome: 0 | 1,
  opts: { context: bigint; shape: TraceShape; secret?: bigint },
): CircuitInput {
  // Hand-made slots have no stored record to digest: each row's content is its seq + 1, with no observations.
  let prev = 0n;
  const encoded: EncodedRecord[] = slots.map((s, seq) => {
    const content = BigInt(seq + 1);
    const obs = Array<bigint>(OBS_SLOTS).fill(0n);
    const digest = recordDigest(false, 0n, obs, content);
    prev = leafHash(s, digest, prev);
    return { seq, slots: s, status: 0n, obs, content, observed: false, digest, leaf: prev };
  });
  return mergeInputs(
    {
      context: String(opts.context),
      paramsHash: String(paramsHashOf(predicate, theta)),
      outcome: String(outcome),
    },
    predicateInput(predicate, theta, encoded, [], opts.shape),
  );
}
