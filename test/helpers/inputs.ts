// Circuit inputs built from hand-made slots: for encodings no TS record produces
// (undecodable aux values, zero action slots, out-of-range amounts), which the
// forged-input tests of each predicate need.
import { leafHash, recordSalt, type EncodedRecord } from "../../sdk/core/encoding.js";
import { paramsHashOf, type PredicateDefinition } from "../../sdk/core/predicates/index.js";
import { predicateInput, type CircuitInput, type TraceShape } from "../../prover/witness.js";
import { mergeInputs } from "../../sdk/core/inputs.js";

export function rawSlotsInput<Theta>(
  predicate: PredicateDefinition<Theta>,
  theta: Theta,
  slots: bigint[][],
  outcome: 0 | 1,
  opts: { secret: bigint; context: bigint; shape: TraceShape },
): CircuitInput {
  const encoded: EncodedRecord[] = slots.map((s, seq) => {
    const salt = recordSalt(opts.secret, seq);
    return { seq, slots: s, salt, leaf: leafHash(s, salt) };
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
