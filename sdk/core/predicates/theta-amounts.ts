// θ values that are amounts or counts (AAP-3's cap, AAP-5's limits), and the checks
// that keep θ, the encoding profile and the circuits' 64-bit comparisons consistent.
import { CanonicalJsonError, toMinorUnits } from "../canonical.js";
import type { EncodingProfile } from "../profile.js";
import { ThetaError } from "./types.js";

/** Every cap and limit is below 2^64: the circuits range-check them to 64 bits. */
export const LIMIT_MAX = (1n << 64n) - 1n;

/**
 * A cap or limit given in zkVAI's θ form: an integer in [0, 2^64 - 1], as a JSON
 * number (safe integer), a string of decimal digits, or a bigint.
 */
export function parseLimit(x: unknown, what: string): bigint {
  let value: bigint | undefined;
  if (typeof x === "bigint") value = x;
  else if (typeof x === "number" && Number.isSafeInteger(x)) value = BigInt(x);
  else if (typeof x === "string" && /^\d+$/.test(x)) value = BigInt(x);
  if (value === undefined) {
    throw new ThetaError(
      `${what} must be a whole number (a safe integer or a string of digits), got ${JSON.stringify(
        typeof x === "bigint" ? String(x) : x,
      )}`,
    );
  }
  if (value < 0n || value > LIMIT_MAX) throw new ThetaError(`${what} must be in [0, 2^64 - 1], got ${value}`);
  return value;
}

/**
 * A VAI amount parameter (e.g. `max_amount`, which VAI compares as a float) in
 * minor units under `decimals`: 100.5 with decimals 2 is 10050. Refuses a value
 * that is not a whole number of minor units, rather than rounding a promise.
 */
export function vaiAmountLimit(x: unknown, decimals: number, what: string): bigint {
  let value: bigint;
  try {
    value = toMinorUnits(x, decimals, what);
  } catch (e) {
    if (!(e instanceof CanonicalJsonError)) throw e;
    throw new ThetaError(
      `${e.message}; with amount_decimals = ${decimals} the limit must be a whole number of minor units ` +
        `(set amount_decimals to the scale the agent's amounts use, e.g. 2 for cents)`,
    );
  }
  if (value > LIMIT_MAX)
    throw new ThetaError(`${what} is ${value} minor units; the circuits hold at most 2^64 - 1`);
  return value;
}

/** `amount_decimals`, this project's extension of VAI's parameters: the scale amounts are read at (default 0). */
export function vaiDecimals(x: unknown, what: string): number {
  if (x === undefined) return 0;
  if (!Number.isInteger(x) || (x as number) < 0 || (x as number) > 36) {
    throw new ThetaError(`${what} must be an integer in 0..36, got ${JSON.stringify(x)}`);
  }
  return x as number;
}

/** A non-empty argument name, or the default when absent. */
export function vaiKey(x: unknown, fallback: string, what: string): string {
  if (x === undefined) return fallback;
  if (typeof x !== "string" || x.length === 0) throw new ThetaError(`${what} must be a non-empty string`);
  return x;
}

/** A list of distinct non-empty strings, sorted (the θ vector's order), at most `max`. */
export function stringSet(x: unknown, what: string, max: number): string[] {
  if (!Array.isArray(x) || !x.every((s) => typeof s === "string" && s.length > 0)) {
    throw new ThetaError(`${what} must be a list of non-empty strings`);
  }
  const unique = [...new Set(x as string[])].sort();
  if (unique.length > max) throw new ThetaError(`${what} has ${unique.length} entries; circuits hold ${max}`);
  return unique;
}

/** Refuses keys outside `known`, so that a misspelt limit is not silently dropped. */
export function onlyKeys(t: Record<string, unknown>, known: readonly string[], what: string): void {
  const extra = Object.keys(t).filter((k) => !known.includes(k));
  if (extra.length)
    throw new ThetaError(`${what}: unknown field(s) ${extra.join(", ")}; known: ${known.join(", ")}`);
}

/**
 * The decimals at which the profile reads the amounts of `tools`, refusing a tool
 * without an amount and tools of different scales: one cap in minor units cannot
 * mean the same money at two scales.
 */
export function sharedAmountScale(
  tools: readonly string[],
  profile: EncodingProfile,
  what: string,
  expect?: { amountKey: string; decimals: number },
): number | undefined {
  let decimals: number | undefined;
  for (const tool of tools) {
    const spec = profile.tools[tool]?.amount;
    if (spec === undefined) {
      throw new ThetaError(`${what}: the encoding profile does not read an amount for tool "${tool}"`);
    }
    if (decimals !== undefined && spec.decimals !== decimals) {
      throw new ThetaError(
        `${what}: the profile reads amounts of these tools at different decimals (${decimals} and ${spec.decimals} for "${tool}"); one limit in minor units cannot serve both`,
      );
    }
    decimals = spec.decimals;
    if (expect && (spec.key !== expect.amountKey || spec.decimals !== expect.decimals)) {
      throw new ThetaError(
        `${what}: the params read tool "${tool}"'s amount as "${expect.amountKey}" at ${expect.decimals} decimals, ` +
          `but the encoding profile reads "${spec.key}" at ${spec.decimals}`,
      );
    }
  }
  return decimals;
}
