// What a call's record holds for the value its tool returned. The tool has run by then, so nothing
// here may fail or change what the agent gets back: the agent always receives the value itself, and
// the record holds the closest storable form of it.
// - Plain JSON is stored as it is (a canonical copy, read once).
// - A value JSON carries faithfully through toJSON (a Date: its ISO text) is stored as JSON would
//   carry it, i.e. JSON.parse(JSON.stringify(value)).
// - Anything else (a BigInt, a cycle, a function, a Map, NaN, a throwing getter, over MAX_RESULT_BYTES)
//   is stored as the marker { "$unstorable": why, "preview": text } (docs/PROTOCOL.md "Records"),
//   never as an error: the tool did not fail, and an agent told it had might run it again.
// Session.append() takes a result someone else already holds, so it is refused there instead
// (checkResultSize): one size rule, one limit, for both ways in.
import { canonicalJson, MAX_JSON_DEPTH, type Json } from "../core/canonical.js";
import { MAX_RESULT_BYTES, checkSize } from "../core/records.js";
import { errorText, recordableText } from "./session-limits.js";
import { ObservationError, recordObservations } from "../core/observations.js";
import type { EncodingProfile } from "../core/profile.js";
import type { CallRecord } from "../core/records.js";

/** The key of the marker a record holds in place of a result that could not be stored as it was. */
export const UNSTORABLE_KEY = "$unstorable";
/** The marker's preview is cut to this many UTF-16 units. */
export const MAX_PREVIEW_CHARS = 4096;

/** The record's form of a result. */
export interface StoredResult {
  result: Json;
  /** Why the result is the `$unstorable` marker instead of the value; absent when it is the value. */
  unstorable?: string;
}

/** Throws RecordSizeError when the result's canonical JSON is over MAX_RESULT_BYTES: call() and append() share it. */
export function checkResultSize(canonical: string): void {
  checkSize("the result", canonical, MAX_RESULT_BYTES, "MAX_RESULT_BYTES");
}

/** The result as its record will hold it. Never throws, whatever `value` does. */
export function storedResult(value: unknown): StoredResult {
  try {
    // One read of the value: a getter or Proxy cannot answer differently between the check and the write.
    const text = canonicalJson(carried(value, "$", "", new Set()));
    checkResultSize(text);
    return { result: JSON.parse(text) as Json };
  } catch (e) {
    const why = errorText(e);
    return { result: { [UNSTORABLE_KEY]: why, preview: preview(value) }, unstorable: why };
  }
}

/**
 * The stored result again, or the marker when the profile cannot observe it (its fact yields more values than
 * the profile allows, or reads a text over bounds.text): the record is kept, never truncated, and a marker
 * observes nothing, so such a result grounds nothing (docs/PREDICATES.md, AAP-6).
 */
export function observableResult(
  call: CallRecord,
  stored: StoredResult,
  profile: EncodingProfile,
): StoredResult {
  if (stored.unstorable !== undefined) return stored;
  try {
    recordObservations({ ...call, result: stored.result }, profile);
    return stored;
  } catch (e) {
    if (!(e instanceof ObservationError)) throw e;
    return {
      result: { [UNSTORABLE_KEY]: e.message, preview: preview(stored.result) },
      unstorable: e.message,
    };
  }
}

/**
 * A copy of value as JSON.stringify would carry it (toJSON applied, with its key), where that copy is
 * faithful; what JSON would drop, turn into null or refuse throws with its path instead.
 */
function carried(value: unknown, path: string, key: string, ancestors: Set<object>): Json {
  let v = value;
  if ((typeof v === "object" && v !== null) || typeof v === "bigint") {
    const holder = v;
    const toJSON = guarded(path, "reading toJSON", () => (holder as { toJSON?: unknown }).toJSON);
    if (typeof toJSON === "function")
      v = guarded(path, "its toJSON", () => toJSON.call(holder, key) as unknown);
  }
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (!Number.isFinite(v)) throw new Error(`${path}: ${v} is not JSON (JSON would write null)`);
      return v;
    case "object":
      break;
    default:
      throw new Error(`${path}: ${typeof v} is not JSON`);
  }
  if (v === null) return null;
  if (ancestors.has(v)) throw new Error(`${path}: cycle (the value contains itself)`);
  if (ancestors.size >= MAX_JSON_DEPTH)
    throw new Error(`${path}: nested deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`);
  ancestors.add(v);
  try {
    if (Array.isArray(v)) {
      const arr: unknown[] = v;
      const items: Json[] = [];
      for (let i = 0; i < v.length; i++) {
        const item = guarded(`${path}[${i}]`, "reading it", () => arr[i] as unknown);
        if (item === undefined)
          throw new Error(`${path}[${i}]: undefined in an array (JSON would write null)`);
        items.push(carried(item, `${path}[${i}]`, String(i), ancestors));
      }
      return items;
    }
    const proto = Object.getPrototypeOf(v) as object | null;
    if (proto !== Object.prototype && proto !== null)
      throw new Error(`${path}: ${proto?.constructor?.name ?? "object"} is not plain JSON and has no toJSON`);
    const copy: { [k: string]: Json } = {};
    for (const k of Object.keys(v)) {
      const obj = v as Record<string, unknown>;
      const item = guarded(`${path}.${k}`, "reading it", () => obj[k]);
      // JSON omits an undefined property, and so does the record (as for any result before).
      if (item !== undefined) copy[k] = carried(item, `${path}.${k}`, k, ancestors);
    }
    return copy;
  } finally {
    ancestors.delete(v);
  }
}

/** fn(), with what it throws (a getter, a Proxy trap, a toJSON) named by path. */
function guarded<T>(path: string, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new Error(`${path}: ${what} threw: ${errorText(e)}`);
  }
}

/** A best-effort text of the value for a person reading the record; never throws. */
function preview(value: unknown): string {
  let text: string | undefined;
  try {
    const seen = new WeakSet<object>();
    text = JSON.stringify(value, (_, v: unknown) => {
      if (typeof v === "bigint") return `${v}n`;
      if (typeof v === "function") return `[function ${v.name || "anonymous"}]`;
      if (typeof v === "symbol") return v.toString();
      if (typeof v === "number" && !Number.isFinite(v)) return String(v);
      if (v instanceof Map) return { "[Map]": [...v.entries()] };
      if (v instanceof Set) return { "[Set]": [...v.values()] };
      if (typeof v === "object" && v !== null) {
        if (seen.has(v)) return "[seen above]";
        seen.add(v);
      }
      return v;
    });
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    try {
      text = String(value);
    } catch {
      text = "a value that cannot be described";
    }
  }
  return recordableText(text, MAX_PREVIEW_CHARS);
}
