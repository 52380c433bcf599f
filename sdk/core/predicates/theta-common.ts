// Small helpers every predicate's θ parsing and encoding share.
import { CanonicalJsonError, canonicalJson } from "../canonical.js";
import { stringToField } from "../hash.js";
import type { TraceRecord } from "../records.js";
import { ThetaError } from "./types.js";

/**
 * Raw θ as JSON the protocol accepts (sdk/core/canonical.ts): well-formed strings, finite
 * numbers, plain objects. Every parseTheta starts here, so a lone surrogate in any
 * θ string is refused before anything is hashed or written.
 */
export function checkThetaJson(x: unknown, predicate: string): void {
  try {
    canonicalJson(x);
  } catch (e) {
    if (e instanceof CanonicalJsonError) throw new ThetaError(`${predicate} θ: ${e.message}`);
    throw e;
  }
}

/** Strings as field elements, padded with 0 to the circuit's fixed size. */
export function paddedStrings(list: readonly string[], size: number): bigint[] {
  return [...list.map(stringToField), ...Array<bigint>(size - list.length).fill(0n)];
}

/** A θ list of non-empty strings, deduplicated and sorted (so equal sets hash equally), at most `max`. */
export function stringList(
  x: unknown,
  what: string,
  max: number,
  fail: (message: string) => never,
): string[] {
  if (!Array.isArray(x) || !x.every((s) => typeof s === "string" && s.length > 0)) {
    fail(`${what} must be a list of non-empty strings`);
  }
  const unique = [...new Set(x as string[])].sort();
  if (unique.length > max) fail(`${what} has ${unique.length} entries; circuits hold ${max}`);
  return unique;
}

/** Python's repr of a string (or None), so reasons read exactly as VAI's. */
export function pythonRepr(s: string | undefined): string {
  if (s === undefined) return "None";
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

/**
 * The grant and revoke records of one namespace: what the circuit's event log (EventLog in
 * circuits/gadgets/active_set.circom) compacts, one slot each, whatever their value.
 */
export function namespaceEvents(
  namespace: string,
): (records: readonly TraceRecord[]) => { count: number; what: string } {
  return (records) => ({
    count: records.filter((r) => (r.kind === "grant" || r.kind === "revoke") && r.namespace === namespace)
      .length,
    what: `${namespace} grant/revoke records`,
  });
}
