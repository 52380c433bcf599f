// sdk/core/paths.ts's pathDigest keeps the digests of recent paths: whatever it kept, a digest is always the
// Poseidon of the path's witness, for paths read again, interleaved, spelled another way, or too long to keep.
import { describe, expect, it } from "vitest";
import { poseidon } from "../../sdk/core/hash.js";
import { pathDigest, pathWitness } from "../../sdk/core/paths.js";

const fresh = (path: string) => poseidon(pathWitness(path));

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
