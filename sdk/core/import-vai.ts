// Reads traces in the reference implementation's format (VAI ActionRecord JSONL):
//   {seq, session_id, tool, args, result, ts, metadata?: {action_id, event_id}}
// VAI numbers seq from 1 and leaves gaps where a call failed; zkVAI's seq runs
// contiguously from 0, so records are renumbered and `vaiSeq` maps back for verdicts.
// `user_authorization` records become authorization records; a result object
// containing "blocked" marks a call the harness refused.
// Each call keeps VAI's own args_hash (keccak of Python's json.dumps), computed
// from the raw line by sdk/core/python-json.ts, since JSON.parse loses `1.0` vs `1`.
// An authorization that VAI would not count as one (schema_version other than the
// integer 1, or a session_id other than its record's) is refused: VAI treats it
// as a cancellation, which no zkVAI decision expresses faithfully.
// VAI records scope and recipient grants/revokes as ordinary calls (e.g. tool
// "scope_grant" with args {prefix}); `options.grantTools` names those tools and
// turns each executed one into a grant or revoke record whose value is the named
// argument (a non-string or missing value is refused). A blocked grant call stays
// a blocked call: it changes nothing.
import { PythonJsonError, parseLossless, vaiArgsHash } from "./python-json.js";
import { NAMESPACES, RecordError, parseRecord, type TraceRecord } from "./records.js";

export interface ImportedTrace {
  records: TraceRecord[];
  /** vaiSeq[i] is the VAI seq of zkVAI record i. */
  vaiSeq: number[];
  sessionId: string | undefined;
}

/** How one VAI tool maps to grant/revoke records: e.g. scope_grant → {namespace: "scope", kind: "grant", key: "prefix"}. */
export interface GrantToolSpec {
  namespace: (typeof NAMESPACES)[number];
  kind: "grant" | "revoke";
  /** The argument holding the granted or revoked value. */
  key: string;
}

export interface ImportOptions {
  /**
   * Tools whose executed calls are grants or revokes: what a promise's VAI params imply, from its
   * predicate's VAI dialect (vaiImportOptions in sdk/core/predicates/index.ts).
   */
  grantTools?: Record<string, GrantToolSpec>;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

export function importVaiJsonl(text: string, options: ImportOptions = {}): ImportedTrace {
  const lines = text.split("\n").filter((l) => l.trim().length > 0);
  const lineOf = new WeakMap<object, string>();
  const raw = lines.map((line, i) => {
    try {
      const value = JSON.parse(line) as unknown;
      if (isObject(value)) lineOf.set(value, line);
      return value;
    } catch (e) {
      throw new RecordError(`VAI trace line ${i + 1}: not JSON (${(e as Error).message})`);
    }
  });
  const sorted = raw
    .map((r, i) => {
      if (!isObject(r) || !Number.isSafeInteger(r.seq))
        throw new RecordError(`VAI trace line ${i + 1}: missing integer seq`);
      return r;
    })
    .sort((a, b) => (a.seq as number) - (b.seq as number));
  sorted.forEach((r, i) => {
    if (i > 0 && r.seq === sorted[i - 1].seq) throw new RecordError(`VAI trace: seq ${r.seq} appears twice`);
  });
  const records = sorted.map((r, seq) => grantRecord(r, seq, options) ?? convert(r, seq, lineOf.get(r)!));
  return {
    records,
    vaiSeq: sorted.map((r) => r.seq as number),
    sessionId: sorted[0]?.session_id as string | undefined,
  };
}

/** The raw line's args, read losslessly; undefined when it has no args object. */
function losslessArgs(r: Record<string, unknown>, line: string) {
  try {
    const parsed = parseLossless(line);
    const args =
      parsed !== null && typeof parsed === "object" && "object" in parsed
        ? parsed.object.get("args")
        : undefined;
    return args !== null && typeof args === "object" && "object" in args ? args : undefined;
  } catch (e) {
    if (e instanceof PythonJsonError) throw new RecordError(`VAI seq ${r.seq}: ${e.message}`);
    throw e;
  }
}

function convert(r: Record<string, unknown>, seq: number, line: string): TraceRecord {
  const ts = Number.isSafeInteger(r.ts) ? (r.ts as number) : 0;
  const meta = isObject(r.metadata) ? r.metadata : {};
  const args = r.args;
  if (r.tool === "user_authorization") {
    if (!isObject(args)) throw new RecordError(`VAI seq ${r.seq}: user_authorization without args`);
    const version = losslessArgs(r, line)?.object.get("schema_version");
    if (version === null || typeof version !== "object" || !("number" in version) || version.number !== "1") {
      throw new RecordError(`VAI seq ${r.seq}: user_authorization schema_version must be the integer 1`);
    }
    if (args.session_id !== r.session_id) {
      throw new RecordError(
        `VAI seq ${r.seq}: user_authorization for session ${JSON.stringify(args.session_id)} in session ${JSON.stringify(r.session_id)}`,
      );
    }
    return parseRecord({
      kind: "authorization",
      seq,
      ts,
      actionId: args.action_id,
      tool: args.tool,
      argsHash: args.args_hash,
      decision: args.decision,
      authority: args.authority,
      scope: args.scope,
      policyId: args.policy_id ?? undefined,
    });
  }
  const blocked = isObject(r.result) && "blocked" in r.result;
  const vaiArgs = losslessArgs(r, line);
  return parseRecord({
    kind: "call",
    seq,
    ts,
    tool: r.tool,
    args,
    result: r.result ?? null,
    actionId: typeof meta.action_id === "string" && meta.action_id ? meta.action_id : undefined,
    blocked: blocked || undefined,
    argsHash: vaiArgs && vaiArgsHash(vaiArgs),
  });
}

/** The grant or revoke record an executed call to a grant tool stands for; undefined for any other record. */
function grantRecord(
  r: Record<string, unknown>,
  seq: number,
  options: ImportOptions,
): TraceRecord | undefined {
  const map = options.grantTools;
  if (!map || typeof r.tool !== "string" || !Object.prototype.hasOwnProperty.call(map, r.tool))
    return undefined;
  const spec = map[r.tool];
  if (isObject(r.result) && "blocked" in r.result) return undefined;
  const value = isObject(r.args) ? r.args[spec.key] : undefined;
  if (typeof value !== "string" || value.length === 0) {
    throw new RecordError(
      `VAI seq ${r.seq}: ${r.tool} is a ${spec.namespace} ${spec.kind} tool, but its "${spec.key}" argument is ${JSON.stringify(value ?? null)}, not a non-empty string`,
    );
  }
  const ts = Number.isSafeInteger(r.ts) ? (r.ts as number) : 0;
  return parseRecord({ kind: spec.kind, seq, ts, namespace: spec.namespace, value });
}
