// A circuit's input is assembled from parts (the trace, θ, the predicate's hints, the public
// signals), each a dictionary of signal names. Spreading them into one object would let a later part
// silently replace an earlier part's signal, and the proof would then be of other values than the
// ones each part computed; mergeInputs refuses any name two parts both give.
import { withDetails, ZkvaiError, type ZkvaiErrorOptions } from "./errors.js";

/** A circuit's input: signal name to a field element (decimal digits), a vector, or a matrix. */
export type CircuitInput = Record<string, string | string[] | string[][]>;

/** Two parts of a circuit input name the same signal. */
export class InputCollisionError extends ZkvaiError {
  static override readonly code: string = "INPUT_COLLISION";
  override name = "InputCollisionError";
  constructor(
    readonly signal: string,
    options?: ZkvaiErrorOptions,
  ) {
    super(`circuit input "${signal}" is given by two parts of the input`, withDetails(options, { signal }));
  }
}

/** The union of `parts` (an absent part contributes nothing); throws InputCollisionError on a shared name. */
export function mergeInputs(...parts: readonly (Readonly<CircuitInput> | undefined)[]): CircuitInput {
  const merged: CircuitInput = {};
  for (const part of parts) {
    if (!part) continue;
    for (const [signal, value] of Object.entries(part)) {
      if (Object.hasOwn(merged, signal)) throw new InputCollisionError(signal);
      merged[signal] = value;
    }
  }
  return merged;
}
