// RFC 8785 (JCS) canonical JSON. Records are stored and hashed in this form.
// JS's own number and string serialisation are the ones JCS prescribes, so what
// is left is key order (UTF-16 code units, JS's default sort) and refusing what
// JSON cannot carry faithfully.
import { ZkvaiError } from "./errors.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export class CanonicalJsonError extends ZkvaiError {
  static override readonly code: string = "NOT_CANONICAL_JSON";
  override name = "CanonicalJsonError";
}

/**
 * Deepest nesting of arrays and objects canonicalJson takes. Recursion past a few thousand
 * levels exhausts the stack with a RangeError that names nothing; 256 is far beyond any
 * tool's args or result, and keeps the refusal a CanonicalJsonError with a path.
 */
export const MAX_JSON_DEPTH = 256;

export interface CanonicalOptions {
  /**
   * Refuse an object property whose value is undefined, instead of omitting it as JSON does.
   * The Session sets it for a call's args: a tool that sees `{x: undefined}` can tell it from
   * `{}`, so the record must not silently say `{}`.
   */
  refuseUndefined?: boolean;
}

/**
 * The canonical JSON text of value, or a CanonicalJsonError that names the path: never any
 * other error, whatever the value does (cycles, nesting past MAX_JSON_DEPTH, a getter or a
 * Proxy that throws), so callers can always tell "not JSON" from their own failures.
 */
export function canonicalJson(value: unknown, opts: CanonicalOptions = {}): string {
  try {
    return write(value, "$", { depth: 0, ancestors: new Set(), refuseUndefined: !!opts.refuseUndefined });
  } catch (e) {
    if (e instanceof CanonicalJsonError) throw e;
    throw new CanonicalJsonError(`$: reading the value threw: ${describe(e)}`);
  }
}

interface Walk {
  depth: number;
  /** The objects on the path from the root: a value among them is a cycle, not a shared reference. */
  ancestors: Set<object>;
  refuseUndefined: boolean;
}

/** A thrown value's message, without trusting it: its getters and toString may throw too. */
function describe(e: unknown): string {
  try {
    const message = (e as Error)?.message;
    return typeof message === "string" ? message : String(e);
  } catch {
    return "a value that cannot be described";
  }
}

/** value[key], with a throwing getter or Proxy trap turned into a CanonicalJsonError at path. */
function read(value: object, key: string | number, path: string): unknown {
  try {
    return (value as Record<string | number, unknown>)[key];
  } catch (e) {
    throw new CanonicalJsonError(`${path}: reading it threw: ${describe(e)}`);
  }
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

function write(value: unknown, path: string, walk: Walk): string {
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
      if (walk.ancestors.has(value))
        throw new CanonicalJsonError(`${path}: cycle (the value contains itself)`);
      if (walk.depth >= MAX_JSON_DEPTH) {
        throw new CanonicalJsonError(`${path}: nested deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`);
      }
      const inner: Walk = { ...walk, depth: walk.depth + 1 };
      walk.ancestors.add(value);
      try {
        return Array.isArray(value) ? writeArray(value, path, inner) : writeObject(value, path, inner);
      } finally {
        walk.ancestors.delete(value);
      }
    }
    default:
      throw new CanonicalJsonError(`${path}: ${typeof value} is not JSON`);
  }
}

function writeArray(value: unknown[], path: string, walk: Walk): string {
  // By index, not map(): map skips holes, and join would write `[,1]`, which is not JSON.
  const items: string[] = [];
  for (let i = 0; i < value.length; i++)
    items.push(write(read(value, i, `${path}[${i}]`), `${path}[${i}]`, walk));
  return `[${items.join(",")}]`;
}

function writeObject(value: object, path: string, walk: Walk): string {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new CanonicalJsonError(`${path}: ${proto?.constructor?.name ?? "object"} is not plain JSON`);
  }
  const entries: string[] = [];
  for (const k of Object.keys(value).sort()) {
    // Each property is read once: a getter could answer differently the second time.
    const v = read(value, k, `${path}.${k}`);
    if (v === undefined) {
      if (walk.refuseUndefined) {
        throw new CanonicalJsonError(
          `${path}.${k} is undefined, which JSON cannot carry; omit the key or pass null`,
        );
      }
      continue;
    }
    entries.push(`${JSON.stringify(wellFormed(k, `${path} key`))}:${write(v, `${path}.${k}`, walk)}`);
  }
  return `{${entries.join(",")}}`;
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
