// Observations (record encoding v3, docs/PROTOCOL.md "Observations"): the facts of one record that the
// circuits may read beyond its slots, derived from that record alone by the encoding profile.
//   status   0 not a call, 1 the call ran and returned (no error), 2 it has an error, 3 it was blocked
//   values   OBS_SLOTS field elements, the tool's one observed fact (a scalar or a short list), 0 = absent
// A record's digest binds them: digest = Poseidon(status, values..., content) (sdk/core/encoding.ts), so a
// circuit that reads observations recomputes the digest, and one that does not (AAP-1..5) takes it as it is.
// Who trusts what: as with the slots, the recorder computes them, and anyone holding the raw record and the
// profile (whose hash is on-chain) can recompute them and compare (docs/SOUNDNESS.md, "Observations").
import { CanonicalJsonError, canonicalJson, toMinorUnits, type Json } from "./canonical.js";
import { stringToField } from "./hash.js";
import type { TauDomain } from "./rules/tau-facts.js";
import { tauRows, tauRowsDigest, type FactRow } from "./rules/tau-rows.js";
import type { TraceRecord } from "./records.js";
import { ZkvaiError } from "./errors.js";

/** Where a harness puts a tool's result fields (readableResult below); the profile's `results`. */
export const RESULT_SHAPES = ["json", "mcp", "ai-sdk", "langchain"] as const;
export type ResultShape = (typeof RESULT_SHAPES)[number];

/**
 * The one fact of a tool's calls that circuits may read, as the encoding profile declares it
 * (sdk/core/profile.ts): the values at `path` in the call's args or its result, each an identifier
 * taken from text by `pattern` (group 1 when it has one), an amount in `decimals` units, or the value
 * itself, hashed after `normalise`.
 */
export interface ObservedFact {
  fact: string;
  from: "args" | "result";
  path: string;
  pattern?: string;
  normalise?: "exact" | "fold";
  decimals?: number;
  /** At most this many values per record (default and ceiling OBS_SLOTS); more is an error when stored. */
  max?: number;
}

/** What of the encoding profile observations read (EncodingProfile has it; no import, no circle). */
export interface ObservingProfile {
  tools: { [tool: string]: { observe?: ObservedFact } };
  /**
   * A domain fact profile (sdk/core/rules/tau-facts.ts): every executed call's observation is the hash of its
   * RULE_FACTS facts (the rule circuits read them), instead of a tool's one observed fact.
   */
  facts?: TauDomain;
  results?: ResultShape;
  bounds?: { text?: number };
}

/** The largest amount a record holds, in minor units (an amount slot or an observed amount is amount + 1). */
export const MAX_AMOUNT = (1n << 64n) - 2n;

/** Observation values per record: a fact holds at most this many (a list longer than that is refused). */
export const OBS_SLOTS = 2;
export const STATUS = { none: 0n, ok: 1n, error: 2n, blocked: 3n } as const;
/** The longest text a fact may read (a value it hashes, or a text its pattern scans), in UTF-16 units. */
export const DEFAULT_MAX_TEXT = 64 * 1024;

export class ObservationError extends ZkvaiError {
  static override readonly code: string = "BAD_OBSERVATION";
  override name = "ObservationError";
}

export interface RecordObservations {
  status: bigint;
  /** OBS_SLOTS values, 0-padded. */
  values: bigint[];
}

/** One step of a fact's path: an object key, an array index, or every element ("[*]"). */
export type PathStep = { key: string } | { index: number } | { every: true };

/**
 * Parses the path syntax facts use: "$", then any of `.key`, `["key"]`, `[3]`, `[*]`.
 * Throws an ObservationError that says where the path stops making sense.
 */
export function parseFactPath(path: string): PathStep[] {
  if (!path.startsWith("$")) throw new ObservationError(`path "${path}" must start with "$"`);
  const steps: PathStep[] = [];
  const re = /\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[\*\]|\["((?:[^"\\]|\\.)*)"\]/y;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const at = re.lastIndex;
    const m = re.exec(path);
    if (!m)
      throw new ObservationError(`path "${path}": cannot read from position ${at} ("${path.slice(at)}")`);
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ key: JSON.parse(`"${m[3]}"`) as string });
    else steps.push({ every: true });
  }
  return steps;
}

/** The JSON values at a path; a missing key or index yields nothing, `[*]` every element of an array. */
export function valuesAtPath(root: Json | undefined, steps: readonly PathStep[]): Json[] {
  let current: Json[] = root === undefined ? [] : [root];
  for (const step of steps) {
    const next: Json[] = [];
    for (const x of current) {
      if ("every" in step) {
        if (Array.isArray(x)) next.push(...x);
      } else if ("index" in step) {
        if (Array.isArray(x) && step.index < x.length) next.push(x[step.index]!);
      } else if (typeof x === "object" && x !== null && !Array.isArray(x) && Object.hasOwn(x, step.key)) {
        next.push(x[step.key]!);
      }
    }
    current = next;
  }
  return current;
}

const parseIfJson = (text: string): Json => {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
};

/**
 * The result as a fact's path reads it, per harness (the profile's `results`):
 *   json       the recorded result itself
 *   mcp        a CallToolResult: its structuredContent, else its text content (joined by newlines),
 *              parsed as JSON when it is JSON; a bare content array likewise (the Claude Agent SDK's
 *              tool_response for an MCP tool)
 *   ai-sdk     a tool output: { type: "json" | "text", value } gives its value, anything else itself
 *   langchain  a ToolMessage's content ({ content } or the content alone), parsed as JSON when it is JSON
 */
export function readableResult(result: Json | undefined, shape: ResultShape): Json | undefined {
  if (result === undefined) return undefined;
  const obj = typeof result === "object" && result !== null && !Array.isArray(result) ? result : undefined;
  switch (shape) {
    case "json":
      return result;
    case "mcp": {
      if (obj?.structuredContent !== undefined) return obj.structuredContent;
      // A bare content array is how the Claude Agent SDK reports an MCP tool's result (its tool_response).
      const content = Array.isArray(result) ? result : Array.isArray(obj?.content) ? obj.content : [];
      const texts = content.flatMap((c) =>
        typeof c === "object" &&
        c !== null &&
        !Array.isArray(c) &&
        c.type === "text" &&
        typeof c.text === "string"
          ? [c.text]
          : [],
      );
      return texts.length > 0 ? parseIfJson(texts.join("\n")) : undefined;
    }
    case "ai-sdk":
      return obj && (obj.type === "json" || obj.type === "text") && "value" in obj ? obj.value : result;
    case "langchain": {
      const content = obj && "content" in obj ? obj.content : result;
      return typeof content === "string" ? parseIfJson(content) : content;
    }
  }
}

/** "fold": case- and whitespace-folded (trimmed, runs of whitespace as one space, lower case). */
export function normalise(text: string, how: "exact" | "fold"): string {
  return how === "exact" ? text : text.trim().replace(/\s+/gu, " ").toLowerCase();
}

function checkText(text: string, where: string, maxText: number): string {
  if (text.length > maxText) {
    throw new ObservationError(
      `${where}: a text of ${text.length} characters is over the profile's bound of ${maxText} (bounds.text)`,
    );
  }
  return text;
}

/** One observed value and the text it came from (what a verdict's reason quotes). */
export interface Observed {
  value: bigint;
  text: string;
}

/** The field values one fact yields from the JSON values at its path, each with its text. */
function factValues(found: readonly Json[], fact: ObservedFact, where: string, maxText: number): Observed[] {
  const how = fact.normalise ?? "exact";
  const out: Observed[] = [];
  for (const value of found) {
    if (value === null) continue;
    if (fact.pattern !== undefined) {
      if (typeof value !== "string") continue; // a pattern reads text only
      const re = new RegExp(fact.pattern, "gu");
      for (const m of checkText(value, where, maxText).matchAll(re)) {
        const id = m.length > 1 ? m[1] : m[0];
        if (id !== undefined && id.length > 0)
          out.push({ value: stringToField(normalise(id, how)), text: id });
      }
    } else if (fact.decimals !== undefined) {
      let amount: bigint;
      try {
        amount = toMinorUnits(value, fact.decimals, where);
      } catch (e) {
        if (e instanceof CanonicalJsonError) throw new ObservationError(e.message);
        throw e;
      }
      // As an amount slot: past 2^64 − 2 the value would leave the range circuits compare (and, near r, the field).
      if (amount > MAX_AMOUNT)
        throw new ObservationError(`${where}: amount ${amount} exceeds 2^64 - 2 minor units`);
      out.push({ value: amount + 1n, text: canonicalJson(value) });
    } else {
      const text = typeof value === "string" ? value : canonicalJson(value);
      out.push({ value: stringToField(normalise(checkText(text, where, maxText), how)), text });
    }
  }
  return out;
}

/** A call's status: ok, error or blocked (sdk/core/observations.ts STATUS). */
const statusOf = (record: TraceRecord): bigint =>
  record.kind !== "call"
    ? STATUS.none
    : record.blocked
      ? STATUS.blocked
      : record.error !== undefined
        ? STATUS.error
        : STATUS.ok;

/**
 * What a record observes, each value with the text it came from: nothing for a record that is not a call,
 * a blocked call, a tool that observes no fact, or a failed call's result fact (it returned no result).
 * Throws an ObservationError when a bound is over.
 */
export function observedValues(record: TraceRecord, profile: ObservingProfile): Observed[] {
  if (record.kind !== "call") return [];
  const status = statusOf(record);
  const fact = Object.hasOwn(profile.tools, record.tool) ? profile.tools[record.tool]?.observe : undefined;
  if (fact === undefined || status === STATUS.blocked || (status === STATUS.error && fact.from === "result"))
    return [];
  const where = `record ${record.seq}: ${record.tool}.${fact.fact}`;
  const root = fact.from === "args" ? record.args : readableResult(record.result, profile.results ?? "json");
  const found = factValues(
    valuesAtPath(root, parseFactPath(fact.path)),
    fact,
    where,
    profile.bounds?.text ?? DEFAULT_MAX_TEXT,
  );
  const max = fact.max ?? OBS_SLOTS;
  if (found.length > max) {
    throw new ObservationError(
      `${where} yields ${found.length} values; the profile allows at most ${max} (observe.max; record encoding v3 holds ${OBS_SLOTS} per record)`,
    );
  }
  return found;
}

/**
 * A record's rows under the profile's domain fact profile (its primary row and sub-rows, each a part and
 * RULE_FACTS facts): what the rule circuits read, and whose chain is the record's first observed value
 * (recordObservations). Undefined when the profile has none or the record is not an executed call (a blocked
 * call observes nothing).
 */
export function recordRows(record: TraceRecord, profile: ObservingProfile): FactRow[] | undefined {
  if (profile.facts === undefined || record.kind !== "call" || record.blocked === true) return undefined;
  return tauRows(record, profile.facts);
}

/** A record's status and observed values (0-padded to OBS_SLOTS), as the profile reads them. */
export function recordObservations(record: TraceRecord, profile: ObservingProfile): RecordObservations {
  const rows = recordRows(record, profile);
  if (rows !== undefined)
    return {
      status: statusOf(record),
      values: [tauRowsDigest(rows), ...Array<bigint>(OBS_SLOTS - 1).fill(0n)],
    };
  const values = observedValues(record, profile).map((o) => o.value);
  return {
    status: statusOf(record),
    values: [...values, ...Array<bigint>(OBS_SLOTS - values.length).fill(0n)],
  };
}
