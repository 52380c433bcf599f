import { hashVector } from "../hash.js";
import { aap4Recipients } from "./aap4-recipients.js";
import { ThetaError, type PredicateDefinition } from "./types.js";

export * from "./types.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const PREDICATES: Record<string, PredicateDefinition<any>> = {
  [aap4Recipients.id]: aap4Recipients,
};

export function predicateById(id: string): PredicateDefinition<unknown> {
  const def = PREDICATES[id];
  if (!def) throw new ThetaError(`unknown predicate "${id}"; known: ${Object.keys(PREDICATES).join(", ")}`);
  return def;
}

/** The promise's paramsHash: the hash of its θ vector, which the circuit recomputes. */
export function paramsHashOf<T>(def: PredicateDefinition<T>, theta: T): bigint {
  return hashVector(def.thetaVector(theta));
}
