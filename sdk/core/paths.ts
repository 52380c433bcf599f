// Paths for AAP-2 scope checks. A path is normalised (POSIX normpath: `.` and
// `..` resolved, so `..` cannot climb out of a prefix) and split into segments;
// its cumulative hashes c_0 = H(root), c_i = Poseidon(c_{i-1}, H(segment_i)) make
// "p lies under prefix q" one equality: c_depth(q)(p) == c_depth(q)(q).
// A call's path is committed in its target slot as
//   pathDigest = Poseidon(a_0, …, a_D, c_full),  a_d = c_d (0 when the path is shallower),
// so the circuit can read the D+1 shallowest ancestors from an auxiliary witness
// and check them against the digest. Prefixes hold at most PREFIX_DEPTH segments.
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

/** The ancestors the circuit reads: a_0 … a_PREFIX_DEPTH, then c_full. */
export function pathWitness(path: string): bigint[] {
  const chain = cumulativeHashes(normalisePath(path));
  const ancestors = Array.from({ length: PREFIX_DEPTH + 1 }, (_, d) => chain[d] ?? 0n);
  return [...ancestors, chain[chain.length - 1]];
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
    digest = poseidon(pathWitness(path));
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
