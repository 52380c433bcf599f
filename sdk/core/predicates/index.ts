import { hashVector } from "../hash.js";
import { aap1Authorization } from "./aap1/definition.js";
import { aap2Scope } from "./aap2/definition.js";
import { aap3Payment } from "./aap3/definition.js";
import { aap4Recipients } from "./aap4/definition.js";
import { aap5Limits } from "./aap5/definition.js";
import { ThetaError, type PredicateDefinition } from "./types.js";

export * from "./types.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const PREDICATES: Record<string, PredicateDefinition<any>> = {
  [aap1Authorization.id]: aap1Authorization,
  [aap2Scope.id]: aap2Scope,
  [aap3Payment.id]: aap3Payment,
  [aap4Recipients.id]: aap4Recipients,
  [aap5Limits.id]: aap5Limits,
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
