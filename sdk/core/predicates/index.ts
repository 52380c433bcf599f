// The predicate registry: every predicate by its id, and the lookups by id, by VAI's name and by the
// escrow's numeric code that the importer, the CLI, the prover and the Session go through instead of
// naming predicates themselves.
import { hashVector } from "../hash.js";
import type { ImportOptions } from "../import-vai.js";
import { aap1Authorization } from "./aap1/definition.js";
import { aap2Scope } from "./aap2/definition.js";
import { aap3Payment } from "./aap3/definition.js";
import { aap4Recipients } from "./aap4/definition.js";
import { aap5Limits } from "./aap5/definition.js";
import { aap6Grounding } from "./aap6/definition.js";
import { aap7Rule } from "./aap7/definition.js";
import { ThetaError, type AnyPredicate, type PredicateDefinition } from "./types.js";

export * from "./types.js";

// Keyed by each definition's literal id, so a key can never disagree with its definition's id.
const REGISTRY = {
  [aap1Authorization.id]: aap1Authorization,
  [aap2Scope.id]: aap2Scope,
  [aap3Payment.id]: aap3Payment,
  [aap4Recipients.id]: aap4Recipients,
  [aap5Limits.id]: aap5Limits,
  [aap6Grounding.id]: aap6Grounding,
  [aap7Rule.id]: aap7Rule,
};

/** A predicate id the registry holds (the keys of REGISTRY). */
export type PredicateName = keyof typeof REGISTRY;

/** Every predicate by id, each with its own θ type (PREDICATES["AAP-4"].parseTheta gives Aap4Theta). */
export const PREDICATES: Readonly<typeof REGISTRY> = Object.freeze(REGISTRY);

/** Every predicate, in id order. */
export const PREDICATE_LIST: readonly AnyPredicate[] = Object.freeze(Object.values(PREDICATES));

export function isPredicateName(x: unknown): x is PredicateName {
  return typeof x === "string" && Object.hasOwn(PREDICATES, x);
}

/** The predicate with this id, or undefined (never an Object.prototype member: "constructor" is no predicate). */
export function findPredicate(id: string): AnyPredicate | undefined {
  return isPredicateName(id) ? PREDICATES[id] : undefined;
}

export function predicateById(id: string): AnyPredicate {
  const def = findPredicate(id);
  if (!def) throw new ThetaError(`unknown predicate "${id}"; known: ${Object.keys(PREDICATES).join(", ")}`);
  return def;
}

/** The predicate the escrow knows by this numeric id (PromiseInfo.predicateId). */
export function predicateByCode(code: number): AnyPredicate | undefined {
  return PREDICATE_LIST.find((d) => d.code === code);
}

/** The reference system's predicate names (e.g. egress_within_allowlist), to the ids they stand for. */
export const VAI_PREDICATE_NAMES: Readonly<Record<string, PredicateName>> = Object.freeze(
  Object.fromEntries(
    Object.values(PREDICATES).flatMap((d) => (d.vai?.predicateNames ?? []).map((name) => [name, d.id])),
  ),
);

/** The predicate a promise file names, by zkVAI id or by VAI's name; undefined when neither. */
export function resolvePredicate(name: string): AnyPredicate | undefined {
  return findPredicate(Object.hasOwn(VAI_PREDICATE_NAMES, name) ? VAI_PREDICATE_NAMES[name] : name);
}

/** Every name resolvePredicate takes: the ids, then VAI's names (for "known: …" messages). */
export function knownPredicateNames(): string[] {
  return [...Object.keys(PREDICATES), ...Object.keys(VAI_PREDICATE_NAMES)];
}

/** The VAI importer's options θ implies: its VAI grant and revoke tools (none for zkVAI-named θ). */
export function vaiImportOptions<T>(def: PredicateDefinition<T>, theta: T): ImportOptions {
  return { grantTools: def.vai?.grantTools?.(theta) };
}

/** The promise's paramsHash: the hash of its θ vector, which the circuit recomputes. */
export function paramsHashOf<T>(def: PredicateDefinition<T>, theta: T): bigint {
  return hashVector(def.thetaVector(theta));
}
