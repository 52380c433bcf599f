// Paths for AAP-2 scope checks. A path is normalised (POSIX normpath: `.` and
// `..` resolved, so `..` cannot climb out of a prefix) and split into segments;
// its cumulative hashes c_0 = H(root), c_i = Poseidon(c_{i-1}, H(segment_i)) make
// "p lies under prefix q" one equality: c_depth(q)(p) == c_depth(q)(q).
// A call's absolute path is committed in its target slot as
//   pathDigest = Poseidon(b_1, …, b_D),  b_d = c_min(d, depth),  D = PREFIX_DEPTH,
// the path cut to its first D segments, so the circuit reads the path's ancestors from an auxiliary
// witness (b_1..b_D, and the root c_0 = H("/") that every absolute path is under) and checks them against
// the digest. Prefixes hold at most D segments, so what lies deeper never decides a scope check; the
// record's args slot binds the whole path. Past its depth a path repeats its last hash, so no ancestor the
// circuit reads is 0. A relative path has no digest (0, "absent"): no prefix is relative, so none covers
// it, exactly as a missing path. Four inputs, not the five ancestors and the full hash the digest held
// before: 57 constraints fewer per record (docs/BENCHMARKS.md, "AAP-2 at 1,024 records").
import { poseidon, stringToField } from "./hash.js";
import { ZkvaiError } from "./errors.js";

export const PREFIX_DEPTH = 4;
const ROOT_ABSOLUTE = "/";
const ROOT_RELATIVE = ".";
/** Marks a path argument that was not a string: relative, so no (absolute) prefix can cover it. */
export const MALFORMED_PATH_PREFIX = "\u0000malformed:";

export class PathError extends ZkvaiError {
  static override readonly code: string = "BAD_PATH";
  override name = "PathError";
}

export interface NormalPath {
  absolute: boolean;
  segments: string[];
}

/** POSIX normpath, as Python's posixpath.normpath (which VAI uses), minus its `//` special case. */
export function normalisePath(path: string): NormalPath {
  if (typeof path !== "string") throw new PathError(`a path must be a string, got ${typeof path}`);
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(seg);
  }
  return { absolute, segments: out };
}

export function formatPath(p: NormalPath): string {
  const body = p.segments.join("/");
  return p.absolute ? `/${body}` : body || ".";
}

/** c_0 … c_k for a path of k segments. */
export function cumulativeHashes(p: NormalPath): bigint[] {
  const chain = [stringToField(p.absolute ? ROOT_ABSOLUTE : ROOT_RELATIVE)];
  for (const seg of p.segments) chain.push(poseidon([chain[chain.length - 1], stringToField(seg)]));
  return chain;
}

/** H("/"): the root every absolute path lies under, the ancestor the path witness leaves implicit. */
export const ROOT_PREFIX_HASH = stringToField(ROOT_ABSOLUTE);

/**
 * The ancestors the circuit reads besides the root: b_1 … b_PREFIX_DEPTH, b_d = c_min(d, depth); undefined
 * for a relative path, which has no digest.
 */
export function pathWitness(path: string): bigint[] | undefined {
  const p = normalisePath(path);
  if (!p.absolute) return undefined;
  const chain = cumulativeHashes(p);
  return Array.from({ length: PREFIX_DEPTH }, (_, i) => chain[Math.min(i + 1, chain.length - 1)]!);
}

/**
 * Agents read the same paths again and again, and a digest costs a Poseidon hash per path segment and one
 * over the ancestors (about 1.5 ms a path in JS, as much as the rest of its record's leaf): the latest
 * PATH_DIGESTS_KEPT are kept. A pure function's cache, bounded in entries and in each key's length (at most
 * 4 Mi characters in all), so a session of distinct or huge paths cannot grow it.
 */
const PATH_DIGESTS_KEPT = 4096;
const PATH_DIGEST_KEY_MAX = 1024;
const pathDigests = new Map<string, bigint>();

export function pathDigest(path: string): bigint {
  let digest = pathDigests.get(path);
  if (digest === undefined) {
    const witness = pathWitness(path);
    digest = witness === undefined ? 0n : poseidon(witness);
    if (path.length <= PATH_DIGEST_KEY_MAX) {
      if (pathDigests.size >= PATH_DIGESTS_KEPT) pathDigests.clear();
      pathDigests.set(path, digest);
    }
  }
  return digest;
}

/** A prefix (θ entry or grant value) as the one hash a path's ancestor must equal. */
export function prefixHash(prefix: string): bigint {
  const p = normalisePath(prefix);
  if (!p.absolute) throw new PathError(`scope prefix "${prefix}" must be absolute`);
  if (p.segments.length > PREFIX_DEPTH) {
    throw new PathError(
      `scope prefix "${prefix}" has ${p.segments.length} segments; circuits check at most ${PREFIX_DEPTH}`,
    );
  }
  return cumulativeHashes(p)[p.segments.length];
}

/** Segment-wise: `/a/b` covers `/a/b` and `/a/b/c`, not `/a/bc`. */
export function isUnder(path: string, prefix: string): boolean {
  const p = normalisePath(path);
  const q = normalisePath(prefix);
  return (
    p.absolute === q.absolute &&
    q.segments.length <= p.segments.length &&
    q.segments.every((s, i) => p.segments[i] === s)
  );
}
