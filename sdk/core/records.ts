// The record model: what the recorder writes for every tool call and permission event.
// seq runs contiguously from 0 within a session; the record at seq i is leaf i.
import { CanonicalJsonError, canonicalJson, type Json } from "./canonical.js";
import { ZkvaiError } from "./errors.js";

export const DECISIONS = ["allow", "deny", "timeout"] as const;
export const AUTHORITIES = ["human", "policy", "auto_review"] as const;
export const SCOPES = ["once", "session", "persistent"] as const;
export const NAMESPACES = ["recipient", "scope"] as const;

export interface CallRecord {
  kind: "call";
  seq: number;
  ts: number;
  tool: string;
  args: { [key: string]: Json };
  result?: Json;
  error?: string;
  actionId?: string;
  /** The harness refused to run it; such a record is not a call. */
  blocked?: boolean;
  /**
   * keccak256 of the args as their producer hashed them, 0x-hex. When present the
   * encoder commits it instead of keccak(canonical JSON of args): the VAI importer
   * sets it, because VAI hashes Python's json.dumps bytes (sdk/core/python-json.ts).
   */
  argsHash?: `0x${string}`;
}

/**
 * The tool of a row pad, the blocked call a session under a domain fact profile closes with so that its rows fit
 * the circuit its record count picks (sdk/core/predicates/aap7/pads.ts): every profile encodes it, reading nothing.
 */
export const PAD_TOOL = "vai.rows";

/** Whether a record is a row pad (a blocked call of PAD_TOOL). */
export function isPadCall(record: TraceRecord): boolean {
  return record.kind === "call" && record.tool === PAD_TOOL && record.blocked === true;
}

export interface AuthorizationRecord {
  kind: "authorization";
  seq: number;
  ts: number;
  actionId: string;
  tool: string;
  /** keccak256 of the canonical JSON of the args it covers, 0x-hex. */
  argsHash: `0x${string}`;
  decision: (typeof DECISIONS)[number];
  authority: (typeof AUTHORITIES)[number];
  scope: (typeof SCOPES)[number];
  policyId?: string;
  /**
   * The recorder's idempotency key for this event (sdk/provider/session.ts): stored with the
   * record so a retry after a crash is recognised, but not part of its leaf.
   */
  eventId?: string;
}

export interface GrantRecord {
  kind: "grant" | "revoke";
  seq: number;
  ts: number;
  namespace: (typeof NAMESPACES)[number];
  value: string;
  /** Idempotency key, as on AuthorizationRecord: stored, not committed. */
  eventId?: string;
}

export type TraceRecord = CallRecord | AuthorizationRecord | GrantRecord;

export class RecordError extends ZkvaiError {
  static override readonly code: string = "BAD_RECORD";
  override name = "RecordError";
}

/**
 * Size limits, in UTF-8 bytes of canonical JSON (what the store holds and the encoder hashes).
 * One argument value and one result may each be 1 MiB, one stored record 4 MiB. The Session
 * refuses a call before its tool runs unless its record, with a result of MAX_RESULT_BYTES,
 * still fits MAX_RECORD_BYTES, so a record is never refused after the tool ran: a larger
 * result is recorded as the call's error instead (sdk/provider/session.ts).
 */
export const MAX_ARG_BYTES = 1 << 20;
export const MAX_RESULT_BYTES = 1 << 20;
export const MAX_RECORD_BYTES = 4 << 20;
/** A recorded error text is cut to this many UTF-16 units (a tool's error may be any size). */
export const MAX_ERROR_CHARS = 16 * 1024;
/**
 * The longest actionId or eventId the Session takes, in UTF-16 units: they are idempotency keys held in
 * memory for the whole session and hashed into a slot, and every harness's call ids are far shorter.
 */
export const MAX_ACTION_ID_CHARS = 256;

/** Something over one of the size limits above; nothing was written. */
export class RecordSizeError extends RecordError {
  static override readonly code: string = "RECORD_TOO_LARGE";
  override name = "RecordSizeError";
}

/** Throws a RecordSizeError when the canonical JSON text is over limit bytes of UTF-8. */
export function checkSize(what: string, canonical: string, limit: number, name: string): void {
  // UTF-8 never takes fewer bytes than UTF-16 units, nor more than three per unit: skip the count when it is clear.
  if (canonical.length * 3 <= limit) return;
  const bytes = new TextEncoder().encode(canonical).length;
  if (bytes > limit) {
    throw new RecordSizeError(
      `${what} is ${bytes} bytes of canonical JSON, over the ${limit}-byte limit (${name})`,
    );
  }
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

function need<T>(ok: boolean, value: T, message: string): T {
  if (!ok) throw new RecordError(message);
  return value;
}

function oneOf<T extends string>(list: readonly T[], x: unknown, what: string): T {
  return need(
    list.includes(x as T),
    x as T,
    `${what} must be one of ${list.join(", ")}; got ${JSON.stringify(x)}`,
  );
}

function bytes32(x: unknown, what: string): `0x${string}` {
  return need(
    typeof x === "string" && /^0x[0-9a-fA-F]{64}$/.test(x),
    (x as string | undefined)?.toLowerCase() as `0x${string}`,
    `${what} must be 32 bytes of 0x-hex`,
  );
}

function text(x: unknown, what: string, optional = false): string | undefined {
  if (x === undefined && optional) return undefined;
  return need(typeof x === "string" && x.length > 0, x as string, `${what} must be a non-empty string`);
}

/**
 * Checks an untrusted value (parsed JSON) against the record model and returns
 * it typed, or throws a RecordError that says which field is wrong.
 */
export function parseRecord(x: unknown): TraceRecord {
  if (!isObject(x)) throw new RecordError("a record must be a JSON object");
  const seq = need(
    Number.isSafeInteger(x.seq) && (x.seq as number) >= 0,
    x.seq as number,
    "seq must be an integer >= 0",
  );
  const where = `record ${seq}`;
  const ts = need(
    Number.isSafeInteger(x.ts) && (x.ts as number) >= 0,
    x.ts as number,
    `${where}: ts must be integer ms`,
  );
  try {
    canonicalJson(x);
  } catch (e) {
    if (e instanceof CanonicalJsonError) throw new RecordError(`${where}: ${e.message}`);
    throw e;
  }
  switch (x.kind) {
    case "call": {
      need(isObject(x.args), 0, `${where}: args must be a JSON object`);
      const call: CallRecord = {
        kind: "call",
        seq,
        ts,
        tool: text(x.tool, `${where}: tool`)!,
        args: x.args as CallRecord["args"],
      };
      if (x.result !== undefined) call.result = x.result as Json;
      if (x.error !== undefined) call.error = text(x.error, `${where}: error`);
      if (x.actionId !== undefined) call.actionId = text(x.actionId, `${where}: actionId`);
      if (x.blocked !== undefined)
        call.blocked = need(
          typeof x.blocked === "boolean",
          x.blocked as boolean,
          `${where}: blocked must be boolean`,
        );
      if (x.argsHash !== undefined) call.argsHash = bytes32(x.argsHash, `${where}: argsHash`);
      return call;
    }
    case "authorization": {
      const argsHash = bytes32(x.argsHash, `${where}: argsHash`);
      const auth: AuthorizationRecord = {
        kind: "authorization",
        seq,
        ts,
        actionId: text(x.actionId, `${where}: actionId`)!,
        tool: text(x.tool, `${where}: tool`)!,
        argsHash,
        decision: oneOf(DECISIONS, x.decision, `${where}: decision`),
        authority: oneOf(AUTHORITIES, x.authority, `${where}: authority`),
        scope: oneOf(SCOPES, x.scope, `${where}: scope`),
      };
      const policyId = text(x.policyId, `${where}: policyId`, true);
      if (policyId !== undefined) auth.policyId = policyId;
      const eventId = text(x.eventId, `${where}: eventId`, true);
      if (eventId !== undefined) auth.eventId = eventId;
      return auth;
    }
    case "grant":
    case "revoke": {
      const grant: GrantRecord = {
        kind: x.kind,
        seq,
        ts,
        namespace: oneOf(NAMESPACES, x.namespace, `${where}: namespace`),
        value: need(
          typeof x.value === "string" && x.value.length > 0 && !x.value.startsWith("\u0000"),
          x.value as string,
          `${where}: value must be a non-empty string not starting with NUL (reserved for malformed values)`,
        ),
      };
      const eventId = text(x.eventId, `${where}: eventId`, true);
      if (eventId !== undefined) grant.eventId = eventId;
      return grant;
    }
    default:
      throw new RecordError(
        `${where}: kind must be call, authorization, grant or revoke; got ${JSON.stringify(x.kind)}`,
      );
  }
}

/** The stored form of a record: its canonical JSON, at most MAX_RECORD_BYTES. */
export function recordBytes(record: TraceRecord): string {
  const text = canonicalJson(record);
  checkSize(`record ${record.seq}`, text, MAX_RECORD_BYTES, "MAX_RECORD_BYTES");
  return text;
}

/** Records must be exactly seq 0, 1, 2, ... */
export function checkContiguous(records: readonly TraceRecord[]): void {
  records.forEach((r, i) => {
    if (r.seq !== i)
      throw new RecordError(`records must run contiguously from seq 0; position ${i} holds seq ${r.seq}`);
  });
}

/** A record as a producer describes it; the recorder (sdk/provider/session.ts) assigns seq and ts. */
export type RecordBody = TraceRecord extends infer R
  ? R extends TraceRecord
    ? Omit<R, "seq" | "ts">
    : never
  : never;
