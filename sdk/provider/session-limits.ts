// What the Session takes from its caller, bounded and copied at the boundary, so that a call
// that passes here always has a storable record, whatever its tool returns or throws:
// - args are copied once through canonical JSON (a getter cannot answer differently later),
//   `undefined` in them is refused rather than dropped, and each value must fit MAX_ARG_BYTES;
// - the call's record must leave room for a result of MAX_RESULT_BYTES within MAX_RECORD_BYTES;
// - a result is copied the same way, or recorded as a marker saying why it could not be
//   (sdk/provider/session-results.ts);
// - an error text is made well-formed and cut to MAX_ERROR_CHARS.
import { canonicalJson, type Json } from "../core/canonical.js";
import {
  MAX_ARG_BYTES,
  MAX_ERROR_CHARS,
  MAX_RECORD_BYTES,
  MAX_RESULT_BYTES,
  checkSize,
  type CallRecord,
} from "../core/records.js";
import { messageOf } from "../core/record-checks.js";
import { InvalidCallError } from "../core/errors.js";

/** Room for seq and ts, which are assigned when the record is written. */
const POSITION_BYTES = 64;

/** A copy of a call's args as they will be recorded, or InvalidCallError before anything runs. */
export function snapshotArgs(tool: string, args: unknown): { [k: string]: Json } {
  const what = `call ${JSON.stringify(tool)}`;
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw new InvalidCallError(`${what}: args must be a JSON object`);
  let copy: { [k: string]: Json };
  try {
    copy = JSON.parse(canonicalJson(args, { refuseUndefined: true })) as typeof copy;
    for (const [k, v] of Object.entries(copy)) {
      checkSize(`args.${k}`, canonicalJson(v), MAX_ARG_BYTES, "MAX_ARG_BYTES");
    }
  } catch (e) {
    throw new InvalidCallError(`${what}: args: ${messageOf(e)}`, { cause: e });
  }
  return copy;
}

/** Refuses (InvalidCallError) a call whose record could not also hold a result of MAX_RESULT_BYTES. */
export function checkCallFits(call: CallRecord): void {
  const room = MAX_RECORD_BYTES - MAX_RESULT_BYTES - POSITION_BYTES;
  try {
    checkSize(
      `call ${JSON.stringify(call.tool)}: the record before its result`,
      canonicalJson(call),
      room,
      "MAX_RECORD_BYTES − MAX_RESULT_BYTES",
    );
  } catch (e) {
    throw new InvalidCallError(messageOf(e), { cause: e });
  }
}

/** A tool's error as recorded: its message (or name), never empty, never throwing. */
export function errorText(e: unknown): string {
  let text = describe(e);
  if (text.length === 0) {
    try {
      const name = (e as Error)?.name;
      text = typeof name === "string" && name.length > 0 ? name : "error";
    } catch {
      text = "error";
    }
  }
  return recordableText(text);
}

/** Well-formed (lone surrogates become U+FFFD) and at most `max` (MAX_ERROR_CHARS) long. */
export function recordableText(text: string, max = MAX_ERROR_CHARS): string {
  let s = text;
  if (s.length > max) {
    const kept = max - 64;
    s = `${s.slice(0, kept)}… (${s.length - kept} more characters cut)`;
  }
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** A thrown value's message, without trusting it: its getters and toString may throw too. */
function describe(e: unknown): string {
  try {
    const message = (e as Error)?.message;
    if (typeof message === "string") return message;
    return String(e);
  } catch {
    return "the tool threw a value that cannot be described";
  }
}
