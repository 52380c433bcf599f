// sdk/core/paths.ts's pathDigest keeps the digests of recent paths: whatever it kept, a digest is always the
// Poseidon of the path's witness, for paths read again, interleaved, spelled another way, or too long to keep.
// The witness itself: an absolute path's ancestors after 1..PREFIX_DEPTH segments, its last hash repeated
// past its depth, so none is 0; a relative path has none and digests to 0, as a missing path.
import { describe, expect, it } from "vitest";
import { poseidon, stringToField } from "../../sdk/core/hash.js";
import {
  PREFIX_DEPTH,
  ROOT_PREFIX_HASH,
  cumulativeHashes,
  normalisePath,
  pathDigest,
  pathWitness,
  prefixHash,
} from "../../sdk/core/paths.js";

const fresh = (path: string) => {
  const witness = pathWitness(path);
  return witness === undefined ? 0n : poseidon(witness);
};

describe("pathWitness", () => {
  it("holds the ancestors after 1..4 segments, the last repeated past the path's depth", () => {
    const chain = cumulativeHashes(normalisePath("/a/b"));
    expect(pathWitness("/a/b")).toEqual([chain[1], chain[2], chain[2], chain[2]]);
    expect(pathWitness("/")).toEqual(Array(PREFIX_DEPTH).fill(ROOT_PREFIX_HASH));
    expect(ROOT_PREFIX_HASH).toBe(stringToField("/"));
    // Every prefix of at most PREFIX_DEPTH segments a path lies under is the root or one of its b_d.
    const deep = pathWitness("/srv/a/b/c/d/e")!;
    for (const q of ["/srv", "/srv/a", "/srv/a/b", "/srv/a/b/c"]) expect(deep).toContain(prefixHash(q));
    expect(deep.includes(0n)).toBe(false);
  });

  it("is undefined for a relative path, whose digest is 0 (absent)", () => {
    for (const p of ["rel/x", ".", "..", "a/../../b"]) {
      expect(pathWitness(p), p).toBeUndefined();
      expect(pathDigest(p), p).toBe(0n);
    }
  });

  it("cuts a path after PREFIX_DEPTH segments: deeper paths with the same first four share a digest", () => {
    expect(pathDigest("/a/b/c/d/e")).toBe(pathDigest("/a/b/c/d"));
    expect(pathDigest("/a/b/c/d/e")).toBe(pathDigest("/a/b/c/d/f/g"));
    expect(pathDigest("/a/b/c")).not.toBe(pathDigest("/a/b/c/d"));
  });
});

describe("pathDigest", () => {
  it("is the Poseidon of the path's witness, the first time and every time after, paths interleaved", () => {
    const paths = ["/data/run/1.json", "/data/run/2.json", "/etc/passwd", "relative/x", "/"];
    const expected = paths.map(fresh);
    for (let round = 0; round < 3; round++)
      paths.forEach((p, i) => expect(pathDigest(p), `${p}, round ${round}`).toBe(expected[i]));
    expect(new Set(expected).size).toBe(paths.length);
  });

  it("gives one path spelled two ways one digest, and a path too long to keep its own", () => {
    expect(pathDigest("/data/./run/../run/1.json")).toBe(pathDigest("/data/run/1.json"));
    const long = `/data/${"x".repeat(5000)}`;
    expect(pathDigest(long)).toBe(fresh(long));
    expect(pathDigest(long)).toBe(fresh(long));
    expect(pathDigest(long)).not.toBe(pathDigest("/data/x"));
  });
});
