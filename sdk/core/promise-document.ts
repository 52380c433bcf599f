// A promise as a JSON document, the one format `vai promise register`, `vai check` and library callers
// share: {"predicate", "params" | "theta", "profile"?, "payout"?, "reserve"?}. "params" may use VAI's names
// (each predicate's dialect, predicates/<aapN>/vai.ts); "predicate" may be VAI's name for it. Parsing is pure:
// reading the file, and turning ETH strings into wei, belong to the caller.
import { InputError } from "./errors.js";
import { knownPredicateNames, resolvePredicate, type AnyPredicate } from "./predicates/index.js";
import { parseProfile, type EncodingProfile } from "./profile.js";

const KEYS = ["predicate", "params", "theta", "profile", "payout", "reserve"];

export interface PromiseDocument {
  predicate: AnyPredicate;
  /** θ as the predicate parsed it from "params" or "theta". */
  theta: unknown;
  /** The parameters as written (VAI's dialect reads them for importer options). */
  params: unknown;
  /** Absent only where the caller allowed it (`vai check` builds one from the trace). */
  profile?: EncodingProfile;
  payout?: string;
  reserve?: string;
}

/**
 * Parses and checks a promise document: known keys only, exactly one of "params" and "theta", a known
 * predicate, θ that parses, and (when given or required) a profile θ can be committed under. `where` opens
 * every error message, e.g. "promise file p.json".
 */
export function parsePromiseDocument(
  raw: unknown,
  where: string,
  opts: { profile: "required" | "optional" },
): PromiseDocument {
  const p = raw as Record<string, unknown>;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || typeof p.predicate !== "string")
    throw new InputError(`${where} must be {"predicate": ..., "params": {...}, "profile": {...}}`);
  const unknown = Object.keys(p).find((k) => !KEYS.includes(k));
  if (unknown) throw new InputError(`${where}: unknown key "${unknown}" (known: ${KEYS.join(", ")})`);
  if ((p.params === undefined) === (p.theta === undefined))
    throw new InputError(`${where}: give the parameters as exactly one of "params" or "theta"`);
  if (p.profile === undefined && opts.profile === "required")
    throw new InputError(`${where}: "profile" (the encoding profile sessions will commit to) is missing`);
  const predicate = resolvePredicate(p.predicate);
  if (!predicate)
    throw new InputError(
      `${where}: unknown predicate "${p.predicate}" (known: ${knownPredicateNames().join(", ")})`,
    );
  for (const key of ["payout", "reserve"] as const)
    if (p[key] !== undefined && typeof p[key] !== "string")
      throw new InputError(`${where}: "${key}" must be a string of ETH`);
  const params = p.params ?? p.theta;
  try {
    const theta = predicate.parseTheta(params);
    const profile = p.profile === undefined ? undefined : parseProfile(p.profile);
    if (profile) predicate.checkProfile(theta, profile);
    return {
      predicate,
      theta,
      params,
      profile,
      payout: p.payout as string | undefined,
      reserve: p.reserve as string | undefined,
    };
  } catch (e) {
    throw new InputError(`${where}: ${(e as Error).message}`);
  }
}
