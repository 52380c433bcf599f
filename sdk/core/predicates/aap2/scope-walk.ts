// AAP-2's one walk over a session (checkedCalls), which the verdict, the whole-claim circuit's hints and each
// segment's hints all read, and the path witnesses the circuit checks each call's cover with.
import { callPath } from "../../encoding.js";
import {
  PREFIX_DEPTH,
  ROOT_PREFIX_HASH,
  formatPath,
  isUnder,
  normalisePath,
  pathWitness,
  prefixHash,
} from "../../paths.js";
import type { CircuitInput } from "../../inputs.js";
import type { EncodingProfile } from "../../profile.js";
import type { CallRecord, TraceRecord } from "../../records.js";
import type { Aap2Theta } from "./theta.js";

/** Width of the per-record path witness: b_1 … b_PREFIX_DEPTH (sdk/core/paths.ts). */
export const PATH_WITNESS_WIDTH = PREFIX_DEPTH;

/** A scope prefix in normal form, refused (PathError) exactly where the encoder refuses it. */
export function normalisePrefix(prefix: string): string {
  prefixHash(prefix);
  return formatPath(normalisePath(prefix));
}

/**
 * The whole-claim circuit's per-record hints (circuits/predicates/aap2_scope.circom): each row's path witness,
 * the prefix that covers each call, the first violating call and its path witness again (the circuit opens
 * that one row's digest once rather than picking its witness out of every row).
 */
export function aap2RecordInputs(
  records: readonly TraceRecord[],
  theta: Aap2Theta,
  profile: EncodingProfile,
  capacity: number,
): CircuitInput {
  const zero = Array<string>(PATH_WITNESS_WIDTH).fill("0");
  // A session reads the same paths under the same prefixes again and again: each is hashed once.
  const witnessOf = memoised(pathWitness);
  const prefixHashOf = memoised(prefixHash);
  const pathWitnesses = Array.from({ length: capacity }, (_, i) => {
    const r = records[i];
    if (r?.kind !== "call" || profile.tools[r.tool]?.path === undefined) return zero;
    const path = callPath(r, profile);
    return (path === undefined ? undefined : witnessOf(path))?.map(String) ?? zero;
  });
  // The circuit checks each call against the prefix named here and, when the trace violates, scans
  // every ancestor of the first violating call (circuits/predicates/aap2_scope.circom).
  const cover = Array<string>(capacity).fill("0");
  let violationAt = 0;
  let violated = false;
  for (const call of checkedCalls(records, theta, profile)) {
    // A call with a path must name one of its ancestors; an uncovered one names the root.
    if (call.path !== undefined)
      cover[call.index] = String(call.cover ? prefixHashOf(call.cover) : ROOT_PREFIX_HASH);
    if (call.cover === undefined && !violated) {
      violated = true;
      violationAt = call.index;
    }
  }
  return {
    pathWitness: pathWitnesses,
    cover,
    violationAt: String(violationAt),
    violationPath: pathWitnesses[violationAt] ?? zero,
  };
}

/** f with its results kept by argument, for one pass over a session. */
function memoised<T>(f: (key: string) => T): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    if (!seen.has(key)) seen.set(key, f(key));
    return seen.get(key)!;
  };
}

interface CheckedCall {
  index: number;
  record: CallRecord;
  /** The normalised path, or undefined when the path argument is missing or null. */
  path: string | undefined;
  /** The prefixes active at this call. */
  active: ReadonlySet<string>;
  /** An active prefix the path is under, if any. */
  cover: string | undefined;
}

/**
 * The one walk both the verdict and the circuit's hints read: each executed call to a scoped
 * tool, with the prefixes active at it (θ's, then scope grants and revokes from their seq on).
 */
export function* checkedCalls(
  records: readonly TraceRecord[],
  theta: Aap2Theta,
  profile: EncodingProfile,
): Generator<CheckedCall> {
  const scoped = new Set(theta.scopedTools);
  const active = new Set(theta.allowPrefixes);
  for (const [index, r] of records.entries()) {
    if (r.kind === "grant" || r.kind === "revoke") {
      if (r.namespace !== "scope") continue;
      const prefix = normalisePrefix(r.value);
      if (r.kind === "grant") active.add(prefix);
      else active.delete(prefix);
      continue;
    }
    if (r.kind !== "call" || r.blocked || !scoped.has(r.tool)) continue;
    const path = callPath(r, profile);
    const cover = path === undefined ? undefined : [...active].find((prefix) => isUnder(path, prefix));
    yield { index, record: r, path, active, cover };
  }
}

/**
 * The indices of the checked calls that violate (no path, or no active prefix covers it), in record order:
 * what each segment of a segmented AAP-2 claim names as its violation (circuits/segments/aap2_scope.circom).
 */
export function aap2UncoveredCalls(
  records: readonly TraceRecord[],
  theta: Aap2Theta,
  profile: EncodingProfile,
): number[] {
  const out: number[] = [];
  for (const call of checkedCalls(records, theta, profile))
    if (call.cover === undefined) out.push(call.index);
  return out;
}
