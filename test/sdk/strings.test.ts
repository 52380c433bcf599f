// The protocol's strings (docs/SOUNDNESS.md, "Strings"): well-formed Unicode only, refused
// with a clear error everywhere a string enters; stringToField injective at the packing
// edges; and the oracles, which compare strings, agreeing with the circuits, which compare
// hashes, on recipients and action ids drawn from the awkward cases.
import { keccak256, toBytes } from "viem";
import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalJson, wellFormed } from "../../sdk/core/canonical.js";
import { stringToField } from "../../sdk/core/hash.js";
import { aap1Authorization } from "../../sdk/core/predicates/aap1/definition.js";
import { aap4Recipients } from "../../sdk/core/predicates/aap4/definition.js";
import { ThetaError } from "../../sdk/core/predicates/index.js";
import { parseProfile, ProfileError } from "../../sdk/core/profile.js";
import { parseRecord, RecordError, type TraceRecord } from "../../sdk/core/records.js";
import { claimInput, shapeOf } from "../../prover/witness.js";
import { builtCircuit, expectVerdict } from "../helpers/circuit.js";
import { instance } from "../helpers/instance.js";

const LONE = ["\uD800", "\uDBFF", "\uDC00", "\uDFFF", "x\uD800", "\uDC00\uD800", "a\uD83Db"];
const call = (args: unknown, extra: object = {}) => ({
  kind: "call",
  seq: 0,
  ts: 0,
  tool: "t",
  args,
  ...extra,
});

describe("well-formed strings only", () => {
  it("wellFormed names the path and the code unit; paired surrogates pass", () => {
    for (const s of LONE) expect(() => wellFormed(s, "$.x")).toThrow(CanonicalJsonError);
    expect(() => wellFormed("ab\uD800", "$.x")).toThrow("$.x: lone UTF-16 surrogate U+D800 at index 2");
    for (const s of ["", "\uFFFD", "\u0000", "😀", "\uD83D\uDE00x", "é"]) expect(wellFormed(s, "$")).toBe(s);
  });

  it("canonical JSON refuses them in values and in keys, at any depth", () => {
    expect(() => canonicalJson({ a: [{ b: "\uDC00" }] })).toThrow(/\$\.a\[0\]\.b: lone UTF-16 surrogate/);
    expect(() => canonicalJson({ ["k\uD800"]: 1 })).toThrow(/key: lone UTF-16 surrogate/);
  });

  it("records refuse them in the tool, args, result, action id and grant value", () => {
    for (const s of LONE) {
      expect(() => parseRecord(call({ to: s }))).toThrow(RecordError);
      expect(() => parseRecord(call({}, { tool: s }))).toThrow(/surrogate/);
      expect(() => parseRecord(call({}, { result: { r: s } }))).toThrow(/surrogate/);
      expect(() => parseRecord(call({}, { actionId: s }))).toThrow(/surrogate/);
      expect(() => parseRecord({ kind: "grant", seq: 0, ts: 0, namespace: "recipient", value: s })).toThrow(
        /surrogate/,
      );
    }
  });

  it("θ and profiles refuse them with their own errors", () => {
    expect(() =>
      aap4Recipients.parseTheta({ outboundTools: ["send"], allowlist: ["bob\uFFFD", "bob\uD800"] }),
    ).toThrow(ThetaError);
    expect(() => aap1Authorization.parseTheta({ gatedTools: ["rm\uDFFF"] })).toThrow(/AAP-1 θ: .*surrogate/);
    expect(() => parseProfile({ version: 1, tools: { ["send\uD800"]: {} } })).toThrow(ProfileError);
    expect(() => parseProfile({ version: 1, tools: { send: { target: "to\uDC00" } } })).toThrow(/surrogate/);
  });

  it("stringToField refuses them", () => {
    for (const s of LONE) expect(() => stringToField(s)).toThrow(/surrogate/);
  });
});

describe("stringToField is injective at the edges", () => {
  const bytes = (n: number, c = "a") => c.repeat(n);
  const cases = [
    "",
    "\u0000",
    "\u0000\u0000",
    "\uFFFD",
    "x\uFFFD",
    "\uD83D\uDE00",
    ...[30, 31, 32, 61, 62, 63, 93].map((n) => bytes(n)),
    bytes(31) + "\u0000",
    "\u0000" + bytes(31),
    bytes(30) + "é", // a two-byte character across the 31-byte chunk boundary
    bytes(29) + "é",
    bytes(30) + "😀",
    "é".repeat(31),
    "a".repeat(600),
    "a".repeat(599) + "b",
  ];
  it("distinct strings, distinct hashes; never 0", () => {
    const hashes = cases.map(stringToField);
    expect(new Set(hashes).size).toBe(cases.length);
    expect(hashes.includes(0n)).toBe(false);
  });
});

describe("oracle = circuit on awkward strings", () => {
  const pool = [
    "bob@corp.example",
    "bob@corp.example\uFFFD",
    "bob@corp.example\u0000",
    "bob@corp.exampl",
    "b".repeat(31),
    "b".repeat(32),
    "bób@corp.example",
    "😀@corp.example",
  ];

  it("AAP-4: every recipient against every one-entry allowlist", async () => {
    const name = "aap4_n8";
    const circuit = await builtCircuit(name);
    const profile = parseProfile({ version: 1, tools: { send: { target: "to" } } });
    for (const listed of pool.slice(0, 4)) {
      const theta = aap4Recipients.parseTheta({ outboundTools: ["send"], allowlist: [listed] });
      for (const to of pool) {
        const records = [parseRecord(call({ to }, { tool: "send" }))] as TraceRecord[];
        const { input, verdict } = claimInput({
          records,
          profile,
          sessionSecret: 1n,
          checkpoints: [],
          predicate: aap4Recipients,
          theta,
          context: 9n,
          shape: shapeOf(instance(name).params),
        });
        expect(verdict.violated, `${JSON.stringify(to)} vs ${JSON.stringify(listed)}`).toBe(to !== listed);
        await expectVerdict(circuit, input, verdict.violated);
      }
    }
  });

  it("AAP-1: an allow and a call whose action ids differ only at the edge", async () => {
    const name = "aap1_n4";
    const circuit = await builtCircuit(name);
    const profile = parseProfile({ version: 1, tools: { rm: {} } });
    const theta = aap1Authorization.parseTheta({ gatedTools: ["rm"], acceptedAuthorities: ["human"] });
    for (const allowId of pool.slice(0, 3)) {
      for (const callId of pool.slice(0, 3)) {
        const callRecord = parseRecord({
          kind: "call",
          seq: 1,
          ts: 1,
          tool: "rm",
          args: {},
          actionId: callId,
        });
        // The allow covers the call's own args, so only the action ids decide.
        const allow = parseRecord({
          kind: "authorization",
          seq: 0,
          ts: 0,
          actionId: allowId,
          tool: "rm",
          argsHash: keccak256(toBytes(canonicalJson({}))),
          decision: "allow",
          authority: "human",
          scope: "once",
        });
        const parsed = [allow, callRecord];
        const { input, verdict } = claimInput({
          records: parsed,
          profile,
          sessionSecret: 1n,
          checkpoints: [],
          predicate: aap1Authorization,
          theta,
          context: 9n,
          shape: shapeOf(instance(name).params),
        });
        expect(verdict.violated).toBe(allowId !== callId);
        await expectVerdict(circuit, input, verdict.violated);
      }
    }
  });
});
