// The run as the reference walks it (fixtures/vai-tau/SEMANTICS.md §2, §3): turns numbered from 0, each
// assistant turn with its calls in benchmark-seq order, and the end. Built from raw reference records (one
// JSONL line each), independently of sdk/core/import-tau.ts, so that the model checks the importer too.
// Only what the model needs is validated here; refusing malformed runs is the importer's job.

/** A JSON value as JSON.parse returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const isJsonObject = (x: unknown): x is JsonObject =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** One tool call, at its own record. */
export interface EpisodeCall {
  /** The record seq of the tool record: a per-call arm's verdict seq (§2). */
  recordSeq: number;
  /** metadata.benchmark_seq: 1, 2, 3, … over the run. */
  benchmarkSeq: number;
  tool: string;
  args: JsonObject;
  /** The tool message content, as recorded (a string in every real run). */
  result: JsonValue;
  /** §3.3: captured_error true, or (flag absent) a result string starting with "Error". */
  rejected: boolean;
}

export interface UserTurn {
  role: "user";
  index: number;
  recordSeq: number;
  text: string;
}

export interface AssistantTurn {
  role: "assistant";
  index: number;
  /** The tau.assistant record: a message arm's verdict seq (§2). */
  recordSeq: number;
  text: string;
  calls: EpisodeCall[];
}

export type Turn = UserTurn | AssistantTurn;

export interface Episode {
  turns: Turn[];
  /** The tau.end record: an end-of-episode arm's verdict seq (§2). */
  endSeq: number;
}

/** §3.3: the reference's rejection rule. */
export function isRejected(result: JsonValue, metadata: JsonObject): boolean {
  if (typeof metadata.captured_error === "boolean") return metadata.captured_error;
  return typeof result === "string" && result.startsWith("Error");
}

export function buildEpisode(records: readonly unknown[]): Episode {
  const turns: Turn[] = [];
  let endSeq: number | undefined;
  let current: AssistantTurn | undefined;
  for (const raw of records) {
    if (!isJsonObject(raw) || typeof raw.seq !== "number" || typeof raw.tool !== "string")
      throw new Error(`not a reference record: ${JSON.stringify(raw)}`);
    const metadata = isJsonObject(raw.metadata) ? raw.metadata : {};
    const result = raw.result ?? null;
    switch (raw.tool) {
      case "tau.capture":
        break;
      case "tau.user":
        current = undefined;
        turns.push({ role: "user", index: turns.length, recordSeq: raw.seq, text: String(result) });
        break;
      case "tau.assistant": {
        const text = isJsonObject(result) && typeof result.text === "string" ? result.text : "";
        current = { role: "assistant", index: turns.length, recordSeq: raw.seq, text, calls: [] };
        turns.push(current);
        break;
      }
      case "tau.end":
        endSeq = raw.seq;
        current = undefined;
        break;
      default:
        if (current === undefined)
          throw new Error(`record ${raw.seq}: a tool call outside an assistant turn`);
        current.calls.push({
          recordSeq: raw.seq,
          benchmarkSeq: Number(metadata.benchmark_seq),
          tool: raw.tool,
          args: isJsonObject(raw.args) ? raw.args : {},
          result,
          rejected: isRejected(result, metadata),
        });
    }
  }
  if (endSeq === undefined) throw new Error("the run has no tau.end record");
  return { turns, endSeq };
}

/** §3: normalized string equality's normal form: lowercase, no leading http(s)://, no trailing "." or "/". */
export function norm(value: JsonValue | undefined): string {
  return String(value ?? "")
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/[./]+$/, "");
}

/** tau2 returns JSON text for entities and plain text otherwise; undefined when the text is not JSON. */
export function parseResult(result: JsonValue): JsonValue | undefined {
  if (typeof result !== "string") return result;
  try {
    return JSON.parse(result) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * What one evaluation of an arm gives (§3): a check that passes, a check that fires (its condition is
 * false), or an "unsupported" note when evidence is missing (no check, not violated). `failClosed` marks a
 * fire that missing evidence caused: only retail auth_first and status_precondition have those (§3).
 */
export type Outcome = { kind: "pass" } | { kind: "fire"; failClosed?: boolean } | { kind: "unsupported" };

export const PASS: Outcome = { kind: "pass" };
export const FIRE: Outcome = { kind: "fire" };
export const UNSUPPORTED: Outcome = { kind: "unsupported" };
/** A check: passes when the condition holds, fires when it does not. */
export const check = (condition: boolean): Outcome => (condition ? PASS : FIRE);
