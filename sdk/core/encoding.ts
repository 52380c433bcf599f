// Record commitment v3 (docs/PROTOCOL.md "Record commitment"). A record becomes
// SLOT_COUNT field elements ("slots"), what the predicates read, plus its digest, which binds its
// content, a salted hash of its whole canonical form (result, error and metadata included), and, for a
// call of a tool whose profile entry observes a fact, its observations (a status and OBS_SLOTS values,
// sdk/core/observations.ts); its leaf chains the previous one:
//   salt    = Poseidon(sessionSecret, seq)
//   content = keccak256(salt as 32 bytes ‖ canonical JSON of the stored record) >> 3
//   digest  = Poseidon(status, obs_0, obs_1, content)   an executed (not blocked) call of a tool that observes a fact
//           = content                                   any other record (exactly v2's digest)
//   leaf_i  = Poseidon(slots_i..., digest_i, leaf_{i-1}),   leaf_{-1} = 0
// So every v2 session (no profile observed anything) has the same leaves under v3, and a circuit
// that reads no observations (AAP-1..5) takes the digest as an opaque input, as before.
// circuits/gadgets/leaf.circom computes the same leaf from the same layout; the
// circuit never hashes JSON. Each slot's meaning depends on the kind:
//
//   slot      call / blocked call     authorization                grant / revoke
//   0 kind    1 / 2                   3                            4 / 5
//   1 tool    H(tool)                 H(tool it covers)            H(namespace)
//   2 args    keccak(args) >> 3 (or   argsHash >> 3                0
//             its argsHash >> 3)
//   3 action  H(actionId) or 0        H(actionId)                  0
//   4 aux     amount + 1, 0 if none   decision+4*authority+16*scope 0
//             or malformed
//   5 t0      H(first target) or 0    H(policyId) or 0             H(value); scope: prefixHash
//             or pathDigest(path)
//   6 t1      H(second target) or 0   0                            0
//
// H = stringToField. 0 always means "absent": no real string hashes to 0.
import { canonicalJson, toMinorUnits, CanonicalJsonError } from "./canonical.js";
import { AUTHORITIES, DECISIONS, SCOPES, isPadCall, type CallRecord, type TraceRecord } from "./records.js";
import { keccakToField, poseidon, reduceBytes32, stringToField } from "./hash.js";
import type { EncodingProfile } from "./profile.js";
import { MALFORMED_PATH_PREFIX, pathDigest, prefixHash } from "./paths.js";
import { ZkvaiError } from "./errors.js";
import { MAX_AMOUNT, recordObservations, recordRows } from "./observations.js";
import type { FactRow } from "./rules/tau-rows.js";

export const SLOT_COUNT = 7;
export const SLOT = { kind: 0, tool: 1, args: 2, action: 3, aux: 4, target0: 5, target1: 6 } as const;
export const KIND = { call: 1n, blocked: 2n, authorization: 3n, grant: 4n, revoke: 5n } as const;
export const MAX_TARGETS = 2;
export { MAX_AMOUNT } from "./observations.js";

/** Prefix that marks a target value that was not a string; it can never be allowlisted. */
export const MALFORMED_TARGET_PREFIX = "\u0000malformed:";

export class EncodingError extends ZkvaiError {
  static override readonly code: string = "UNENCODABLE";
  override name = "EncodingError";
}

/**
 * The targets of a call as the profile reads them: [] when the tool has no target
 * argument or the argument is missing or null (VAI skips a null recipient).
 * A non-string element is kept, marked malformed, so that predicates fail closed on it.
 */
export function callTargets(call: CallRecord, profile: EncodingProfile): string[] {
  const key = toolProfile(call, profile).target;
  if (key === undefined) return [];
  const raw = call.args[key];
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  const targets = list
    .filter((v) => v !== null)
    .map((v) => (typeof v === "string" ? v : MALFORMED_TARGET_PREFIX + canonicalJson(v)));
  if (targets.length > MAX_TARGETS) {
    throw new EncodingError(
      `record ${call.seq}: ${call.tool}.${key} has ${targets.length} targets; encoding v1 holds at most ${MAX_TARGETS} per call`,
    );
  }
  return targets;
}

/**
 * The call's path as the profile reads it, or undefined when the tool has no path
 * argument or it is missing or null. A non-string value becomes a marked relative
 * path, which no (absolute) prefix covers: fail-closed.
 */
export function callPath(call: CallRecord, profile: EncodingProfile): string | undefined {
  const key = toolProfile(call, profile).path;
  if (key === undefined) return undefined;
  const raw = call.args[key];
  if (raw === undefined || raw === null) return undefined;
  return typeof raw === "string" ? raw : MALFORMED_PATH_PREFIX + canonicalJson(raw);
}

/**
 * The call's amount in minor units; undefined when the profile reads none or it
 * is absent; "malformed" when it is not a whole number of minor units in
 * [0, 2^64 - 2]. The slot encodes both of the last as 0 (absent), so predicates
 * that need an amount fail closed; the recorder refuses malformed amounts outright.
 */
export function callAmount(call: CallRecord, profile: EncodingProfile): bigint | undefined | "malformed" {
  const spec = toolProfile(call, profile).amount;
  if (spec === undefined) return undefined;
  const raw = call.args[spec.key];
  if (raw === undefined || raw === null) return undefined;
  try {
    const amount = toMinorUnits(raw, spec.decimals, `record ${call.seq}: ${call.tool}.${spec.key}`);
    return amount > MAX_AMOUNT ? "malformed" : amount;
  } catch (e) {
    if (e instanceof CanonicalJsonError) return "malformed";
    throw e;
  }
}

/** Throws the reason a call's amount is malformed; the recorder calls it before storing. */
export function assertWellFormedAmount(call: CallRecord, profile: EncodingProfile): void {
  const spec = toolProfile(call, profile).amount;
  if (spec === undefined || callAmount(call, profile) !== "malformed") return;
  try {
    const amount = toMinorUnits(
      call.args[spec.key],
      spec.decimals,
      `record ${call.seq}: ${call.tool}.${spec.key}`,
    );
    throw new EncodingError(`record ${call.seq}: amount ${amount} exceeds 2^64 - 2 minor units`);
  } catch (e) {
    if (e instanceof CanonicalJsonError) throw new EncodingError(e.message);
    throw e;
  }
}

function toolProfile(call: CallRecord, profile: EncodingProfile) {
  // hasOwn: a tool named like an Object.prototype member ("constructor") is not in the profile.
  const spec = Object.hasOwn(profile.tools, call.tool)
    ? profile.tools[call.tool]
    : isPadCall(call)
      ? {} // a row pad is in every profile, reading nothing (sdk/core/predicates/aap7/pads.ts)
      : undefined;
  if (!spec) {
    throw new EncodingError(
      `record ${call.seq}: tool "${call.tool}" is not in the encoding profile; add it first`,
    );
  }
  return spec;
}

/** keccak256 of the canonical JSON of a call's args, reduced to the field. */
export function argsHashField(args: CallRecord["args"]): bigint {
  return keccakToField(canonicalJson(args));
}

/** A call's args slot: its recorded argsHash when it has one (imported traces), else argsHashField. */
export function callArgsField(call: CallRecord): bigint {
  return call.argsHash !== undefined ? reduceBytes32(call.argsHash) : argsHashField(call.args);
}

const opt = (s: string | undefined) => (s === undefined ? 0n : stringToField(s));
const code = (list: readonly string[], x: string) => BigInt(list.indexOf(x) + 1);

export function encodeSlots(record: TraceRecord, profile: EncodingProfile): bigint[] {
  switch (record.kind) {
    case "call": {
      const path = callPath(record, profile);
      const [t0, t1] = callTargets(record, profile);
      const amount = callAmount(record, profile);
      return [
        record.blocked ? KIND.blocked : KIND.call,
        stringToField(record.tool),
        callArgsField(record),
        opt(record.actionId),
        typeof amount === "bigint" ? amount + 1n : 0n,
        path === undefined ? opt(t0) : pathDigest(path),
        opt(t1),
      ];
    }
    case "authorization":
      return [
        KIND.authorization,
        stringToField(record.tool),
        reduceBytes32(record.argsHash),
        stringToField(record.actionId),
        code(DECISIONS, record.decision) +
          4n * code(AUTHORITIES, record.authority) +
          16n * code(SCOPES, record.scope),
        opt(record.policyId),
        0n,
      ];
    case "grant":
    case "revoke":
      return [
        KIND[record.kind],
        stringToField(record.namespace),
        0n,
        0n,
        0n,
        record.namespace === "scope" ? prefixHash(record.value) : stringToField(record.value),
        0n,
      ];
  }
}

export function recordSalt(sessionSecret: bigint, seq: number): bigint {
  return poseidon([sessionSecret, BigInt(seq)]);
}

/**
 * The record's content digest: keccak256 of its salt (32 bytes, big-endian) followed by the UTF-8 of its
 * canonical JSON, reduced to the field. It covers every stored field (tool, args, result or error,
 * metadata, ts), so a stored record that changes no longer matches its leaf. The salt keeps the
 * digest, and so the leaf, from revealing a guessable record.
 */
export function recordContent(record: TraceRecord, salt: bigint): bigint {
  const text = new TextEncoder().encode(canonicalJson(record));
  const bytes = new Uint8Array(32 + text.length);
  for (let i = 0, x = salt; i < 32; i++, x >>= 8n) bytes[31 - i] = Number(x & 0xffn);
  bytes.set(text, 32);
  return keccakToField(bytes);
}

/** The chained leaf (header): Poseidon(slots..., digest, prev), prev the previous leaf (0 first). */
export function leafHash(slots: readonly bigint[], digest: bigint, prev: bigint): bigint {
  if (slots.length !== SLOT_COUNT)
    throw new EncodingError(`expected ${SLOT_COUNT} slots, got ${slots.length}`);
  return poseidon([...slots, digest, prev]);
}

/**
 * Whether the record's digest binds observations: an executed call of a tool whose profile entry observes a
 * fact. A blocked call observes nothing, so its digest stays its content.
 */
export function isObserved(record: TraceRecord, profile: EncodingProfile): boolean {
  return (
    record.kind === "call" &&
    record.blocked !== true &&
    (profile.facts !== undefined ||
      (Object.hasOwn(profile.tools, record.tool) && profile.tools[record.tool]!.observe !== undefined))
  );
}

/** The digest the leaf binds: an observed record's observations beside its content, else the content. */
export function recordDigest(
  observed: boolean,
  status: bigint,
  obs: readonly bigint[],
  content: bigint,
): bigint {
  return observed ? poseidon([status, ...obs, content]) : content;
}

export interface EncodedRecord {
  seq: number;
  slots: bigint[];
  /** 0 not a call, 1 ok, 2 error, 3 blocked (sdk/core/observations.ts STATUS). */
  status: bigint;
  /** OBS_SLOTS observed values, 0 = absent. */
  obs: bigint[];
  /** keccak of the salted canonical record, reduced (recordContent). */
  content: bigint;
  /** Whether the digest binds the observations (isObserved). */
  observed: boolean;
  /** Under a domain fact profile, an executed call's rows: obs[0] is their chain (recordRows). */
  rows?: FactRow[];
  /** Poseidon(status, obs..., content) when observed, else content: what the leaf binds. */
  digest: bigint;
  /** The chained leaf; for the last record of a prefix, that prefix's chain head. */
  leaf: bigint;
}

/** One record, given the leaf before it (0 for seq 0); `salt` overrides the secret's (a record opening). */
export function encodeRecord(
  record: TraceRecord,
  profile: EncodingProfile,
  sessionSecret: bigint,
  prev: bigint,
  salt = recordSalt(sessionSecret, record.seq),
): EncodedRecord {
  const slots = encodeSlots(record, profile);
  const { status, values: obs } = recordObservations(record, profile);
  const content = recordContent(record, salt);
  const observed = isObserved(record, profile);
  const digest = recordDigest(observed, status, obs, content);
  const rows = recordRows(record, profile);
  return {
    seq: record.seq,
    ...{ slots, status, obs, content, observed, digest },
    ...(rows !== undefined ? { rows } : {}),
    leaf: leafHash(slots, digest, prev),
  };
}

/** A whole trace, in seq order from 0, each leaf chained to the one before. */
export function encodeTrace(
  records: readonly TraceRecord[],
  profile: EncodingProfile,
  sessionSecret: bigint,
): EncodedRecord[] {
  const out: EncodedRecord[] = [];
  let prev = 0n;
  for (const [i, record] of records.entries()) {
    if (record.seq !== i)
      throw new EncodingError(`record ${i} has seq ${record.seq}: a trace runs from seq 0 without gaps`);
    const encoded = encodeRecord(record, profile, sessionSecret, prev);
    out.push(encoded);
    prev = encoded.leaf;
  }
  return out;
}

/** The chain head of the first n leaves: what a checkpoint or receipt for n records commits to. */
export function chainHead(leaves: readonly bigint[], n: number): bigint {
  if (!Number.isInteger(n) || n < 1 || n > leaves.length)
    throw new RangeError(`chain head of ${n} records out of 1..${leaves.length}`);
  return leaves[n - 1]!;
}

/** A trace as a circuit of some capacity sees it: every row's slots (zero rows past the trace). */
export interface EncodedTrace {
  slots: readonly (readonly bigint[])[];
  /** Records in the trace; rows from n on are padding. */
  n: number;
  finalRoot: bigint;
  /** The n encoded records (their observations and content, for a circuit that recomputes digests). */
  records: readonly EncodedRecord[];
}
