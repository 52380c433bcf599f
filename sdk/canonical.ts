// RFC 8785 (JCS) canonical JSON. Records are stored and hashed in this form.
// JS's own number and string serialisation are the ones JCS prescribes, so what
// is left is key order (UTF-16 code units, JS's default sort) and refusing what
// JSON cannot carry faithfully.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export class CanonicalJsonError extends Error {
  override name = "CanonicalJsonError";
}

export function canonicalJson(value: unknown): string {
  return write(value, "$");
}

/**
 * The protocol's one rule for strings: well-formed Unicode, i.e. no lone UTF-16
 * surrogate. UTF-8 has no encoding for a lone surrogate (TextEncoder writes U+FFFD
 * instead), so two different JS strings would hash the same while the oracles,
 * which compare strings, tell them apart. Every string that is hashed or
 * committed (record fields and args, θ, profiles, grants) passes through here.
 */
export function wellFormed(s: string, path: string): string {
  const lone = /[\uD800-\uDFFF]/u.exec(s);
  if (lone) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw new CanonicalJsonError(
      `${path}: lone UTF-16 surrogate U+${unit} at index ${lone.index}; strings must be well-formed Unicode`,
    );
  }
  return s;
}

function write(value: unknown, path: string): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(wellFormed(value, path));
    case "number":
      if (!Number.isFinite(value)) {
        throw new CanonicalJsonError(
          `${path}: ${value} is not representable in JSON (NaN and Infinity are refused)`,
        );
      }
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        throw new CanonicalJsonError(
          `${path}: integer ${value} is beyond 2^53 and was already rounded; pass it as a string`,
        );
      }
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map((v, i) => write(v, `${path}[${i}]`)).join(",")}]`;
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalJsonError(`${path}: ${proto?.constructor?.name ?? "object"} is not plain JSON`);
      }
      const entries = Object.keys(value as object)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map(
          (k) =>
            `${JSON.stringify(wellFormed(k, `${path} key`))}:${write((value as Record<string, unknown>)[k], `${path}.${k}`)}`,
        );
      return `{${entries.join(",")}}`;
    }
    default:
      throw new CanonicalJsonError(`${path}: ${typeof value} is not JSON`);
  }
}

/** Parses JSON and returns it in canonical form, refusing duplicate-free but lossy input the same way. */
export function parseCanonical(text: string): Json {
  const value = JSON.parse(text) as Json;
  canonicalJson(value);
  return value;
}

/**
 * An amount in integer minor units: `value` × 10^decimals, exactly.
 * Works on the decimal text of the number, so 100.1 with 2 decimals is 10010,
 * not 10009.999…; anything that does not land on an integer is refused.
 */
export function toMinorUnits(value: unknown, decimals: number, what = "amount"): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) {
    throw new CanonicalJsonError(`${what}: decimals must be an integer in 0..36, got ${decimals}`);
  }
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new CanonicalJsonError(`${what}: ${value} is not a number`);
    text = decimalText(value);
  } else if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value)) {
    text = value;
  } else {
    throw new CanonicalJsonError(
      `${what}: expected a number or a decimal string, got ${JSON.stringify(value)}`,
    );
  }
  const negative = text.startsWith("-");
  const [whole, frac = ""] = (negative ? text.slice(1) : text).split(".");
  const fracTrimmed = frac.replace(/0+$/, "");
  if (fracTrimmed.length > decimals) {
    throw new CanonicalJsonError(
      `${what}: ${text} has more than ${decimals} decimal places and is not a whole number of minor units`,
    );
  }
  if (negative && /[1-9]/.test(whole + fracTrimmed))
    throw new CanonicalJsonError(`${what}: ${text} is negative`);
  return BigInt(whole + fracTrimmed.padEnd(decimals, "0"));
}

/** A number's exact shortest decimal text, with exponents expanded. */
function decimalText(x: number): string {
  const s = String(x);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, int, frac = "", expText] = m;
  const exp = Number(expText);
  const digits = int + frac;
  const point = int.length + exp;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
