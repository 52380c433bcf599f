// AAP-2's edges after the four-input path digest (issue 38), from its independent adversarial review: the
// root, paths exactly 4 deep and deeper, traversals, relative, empty, non-string and null paths, grants and
// revokes of "/", the circuit's verdict equal to the oracle's with the flipped outcome refused; and the
// forgeries that removing the zero test from the per-record cover query (ActiveState) and opening the named
// violation's path once could have let through: a cover of 0 against 0-padded θ, a relative path dressed
// as covered, and every row and path named as the violation of a satisfied trace.
import { beforeAll, describe, expect, it } from "vitest";
import { chainHead, encodeTrace } from "../../sdk/core/encoding.js";
import { ROOT_PREFIX_HASH, pathWitness, prefixHash } from "../../sdk/core/paths.js";
import { aap2Scope, type Aap2Theta } from "../../sdk/core/predicates/aap2/definition.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { claimInput, shapeOf, type Checkpoint, type CircuitInput } from "../../prover/witness.js";
import { compileInstance, instance } from "../helpers/instance.js";
import { accepts, witnessFails, expectVerdict, type TestCircuit } from "../helpers/circuit.js";

const INSTANCE = instance("aap2_n8");
const SHAPE = shapeOf(INSTANCE.params);
const SECRET = 0x5c09en;
const PROFILE: EncodingProfile = {
  version: 1,
  tools: { read_file: { path: "path" }, write_file: { path: "path" }, search: {}, send: { target: "to" } },
};
function input(records: readonly TraceRecord[], theta: Aap2Theta, at: number[] = []) {
  const leaves = encodeTrace(records, PROFILE, SECRET).map((r) => r.leaf);
  const cps: Checkpoint[] = at.map((n) => ({ n, root: chainHead(leaves, n) }));
  return claimInput({
    records,
    profile: PROFILE,
    sessionSecret: SECRET,
    checkpoints: cps,
    predicate: aap2Scope,
    theta,
    context: 1n,
    shape: SHAPE,
  });
}
const call = (seq: number, tool: string, args: Record<string, unknown>, blocked = false): TraceRecord =>
  ({ kind: "call", seq, ts: seq, tool, args, ...(blocked ? { blocked: true } : {}) }) as TraceRecord;
const sc = (seq: number, kind: "grant" | "revoke", value: string, namespace = "scope"): TraceRecord =>
  ({ kind, seq, ts: seq, namespace, value }) as TraceRecord;
const T = (allowPrefixes: string[], scopedTools = ["read_file"]) =>
  aap2Scope.parseTheta({ scopedTools, allowPrefixes });

let circuit: TestCircuit;
beforeAll(async () => {
  circuit = await compileInstance(INSTANCE.name);
}, 600_000);

const cases: [string, TraceRecord[], Aap2Theta][] = [
  ["root path, root prefix", [call(0, "read_file", { path: "/" })], T(["/"])],
  ["root path, /a prefix", [call(0, "read_file", { path: "/" })], T(["/a"])],
  ["/a/.. is root, /a prefix", [call(0, "read_file", { path: "/a/.." })], T(["/a"])],
  ["/../a under /a", [call(0, "read_file", { path: "/../a" })], T(["/a"])],
  ["depth 4 exactly", [call(0, "read_file", { path: "/a/b/c/d" })], T(["/a/b/c/d"])],
  ["depth 3 vs prefix depth 4", [call(0, "read_file", { path: "/a/b/c" })], T(["/a/b/c/d"])],
  ["depth 5 under depth 4", [call(0, "read_file", { path: "/a/b/c/d/e" })], T(["/a/b/c/d"])],
  ["depth 9 under /", [call(0, "read_file", { path: "/a/b/c/d/e/f/g/h/i" })], T(["/"])],
  ["deep sibling", [call(0, "read_file", { path: "/a/b/c/dd/e" })], T(["/a/b/c/d"])],
  ["relative under /", [call(0, "read_file", { path: "a/b" })], T(["/"])],
  ["dot path", [call(0, "read_file", { path: "." })], T(["/"])],
  ["empty path", [call(0, "read_file", { path: "" })], T(["/"])],
  ["non-string", [call(0, "read_file", { path: ["/a"] })], T(["/"])],
  ["null", [call(0, "read_file", { path: null })], T(["/"])],
  ["double slash", [call(0, "read_file", { path: "//a//b/" })], T(["/a/b"])],
  ["grant / then call", [sc(0, "grant", "/"), call(1, "read_file", { path: "/x/y" })], T(["/a"])],
  ["revoke / (declared)", [sc(0, "revoke", "/"), call(1, "read_file", { path: "/x/y" })], T(["/"])],
  ["revoke /a/ normalises", [sc(0, "revoke", "/a/"), call(1, "read_file", { path: "/a/y" })], T(["/a"])],
  [
    "grant depth4 covers depth6",
    [sc(0, "grant", "/p/q/r/s"), call(1, "read_file", { path: "/p/q/r/s/t/u" })],
    T([]),
  ],
  [
    "revoke child keeps parent",
    [sc(0, "revoke", "/a/b"), call(1, "read_file", { path: "/a/b/c" })],
    T(["/a"]),
  ],
  ["blocked uncovered", [call(0, "read_file", { path: "/etc" }, true)], T(["/a"])],
  [
    "recipient grant of /etc",
    [sc(0, "grant", "/etc", "recipient"), call(1, "read_file", { path: "/etc/x" })],
    T(["/a"]),
  ],
  ["unscoped tool", [call(0, "write_file", { path: "/etc" })], T(["/a"])],
  ["grant after call", [call(0, "read_file", { path: "/etc/x" }), sc(1, "grant", "/etc")], T(["/a"])],
  [
    "second violates",
    [call(0, "read_file", { path: "/a/x" }), call(1, "read_file", { path: "/b" })],
    T(["/a"]),
  ],
  [
    "8 rows, last violates",
    [
      ...Array.from({ length: 7 }, (_, i) => call(i, "read_file", { path: "/a/" + i })),
      call(7, "read_file", { path: "/b" }),
    ],
    T(["/a"]),
  ],
  ["path with unicode and ..", [call(0, "read_file", { path: "/a/é/../../a/ü/x" })], T(["/a/ü"])],
];

describe("honest edge cases: circuit = oracle, flipped refused", () => {
  for (const [name, records, theta] of cases) {
    it(name, async () => {
      const { input: honest, verdict } = input(records, theta);
      await expectVerdict(circuit, honest, verdict.violated);
    });
  }
});

/** base with row `row` of its per-record input `key` replaced by v. */
const withRow = (base: CircuitInput, key: string, row: number, v: string | string[]): CircuitInput => {
  const rows = (base[key] as (string | string[])[]).map((x) => (Array.isArray(x) ? [...x] : x));
  rows[row] = v;
  return { ...base, [key]: rows as string[] | string[][] };
};
const W = (p: string) => pathWitness(p)!.map(String);

describe("forgeries", () => {
  it("outcome 0 for a relative path (target 0): any path witness/cover", async () => {
    const { input: h, verdict } = input([call(0, "read_file", { path: "a/b" })], T(["/"]));
    expect(verdict.violated).toBe(true);
    for (const cover of [0n, ROOT_PREFIX_HASH, prefixHash("/a")]) {
      let x = withRow(h, "pathWitness", 0, W("/a/b"));
      x = withRow(x, "cover", 0, String(cover));
      expect(await witnessFails(circuit, { ...x, outcome: "0" })).toBe(true);
    }
  });
  it("outcome 0 with cover 0 and 0-padded prefixes", async () => {
    const { input: h, verdict } = input([call(0, "read_file", { path: "/etc/x" })], T(["/a"]));
    expect(verdict.violated).toBe(true);
    expect((h.prefixes as string[]).includes("0")).toBe(true);
    for (const pw of [W("/etc/x"), ["0", "0", "0", "0"], W("/a/x")]) {
      let x = withRow(h, "pathWitness", 0, pw);
      x = withRow(x, "cover", 0, "0");
      expect(await witnessFails(circuit, { ...x, outcome: "0" })).toBe(true);
    }
  });
  it("outcome 1 on satisfied trace: every violationAt x violationPath variant", async () => {
    const recs = [
      call(0, "read_file", { path: "/a/x" }),
      call(1, "read_file", { path: "/a/b/c/d/e" }),
      call(2, "search", {}),
      call(3, "read_file", { path: "/" }),
    ];
    const { input: h, verdict } = input(recs, T(["/a", "/"]));
    expect(verdict.violated).toBe(false);
    const paths = [["0", "0", "0", "0"], W("/etc"), W("/a/x"), W("/"), W("/a/b/c/d/e")];
    for (let at = 0; at < 8; at++)
      for (const vp of paths)
        expect(
          await witnessFails(circuit, { ...h, outcome: "1", violationAt: String(at), violationPath: vp }),
          `${at}`,
        ).toBe(true);
  });
  it("violationPath is only read where opened: honest outcome 1 on a missing-path call with garbage violationPath", async () => {
    const { input: h, verdict } = input(
      [call(0, "read_file", { path: "/a/x" }), call(1, "read_file", {})],
      T(["/a"]),
    );
    expect(verdict.violated).toBe(true);
    expect(await accepts(circuit, { ...h, violationPath: W("/zzz") })).toBe(true);
  });
  it("outcome 0 with naming prefix active at a later time (grant after call)", async () => {
    const { input: h, verdict } = input(
      [call(0, "read_file", { path: "/etc/x" }), sc(1, "grant", "/etc")],
      T(["/a"]),
    );
    expect(verdict.violated).toBe(true);
    const x = withRow(h, "cover", 0, String(prefixHash("/etc")));
    expect(await witnessFails(circuit, { ...x, outcome: "0" })).toBe(true);
  });
});

describe("the profile keeps string hashes out of the path digest", () => {
  // The digest is a bare Poseidon(4), as is stringToField of a 32–62-byte string: a scoped tool whose profile
  // read a target instead of a path would let a prover open that string's hash as a path (docs/SOUNDNESS.md,
  // AAP-2, "What it rests on"). The prover refuses such a profile before anything is hashed.
  it("refuses to build a claim whose profile reads a scoped tool's target", () => {
    const badProfile: EncodingProfile = { version: 1, tools: { read_file: { target: "path" } } };
    const records = [call(0, "read_file", { path: "relative/not/a/path/xxxxxxxxxxxxxxxxxxxxxx" })];
    expect(() =>
      claimInput({
        records,
        profile: badProfile,
        sessionSecret: SECRET,
        checkpoints: [],
        predicate: aap2Scope,
        theta: T(["/"]),
        context: 1n,
        shape: SHAPE,
      }),
    ).toThrow(/path/);
  });
});
