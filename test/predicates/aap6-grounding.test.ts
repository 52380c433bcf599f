// AAP-6 strict grounding, the TS side: the oracle on every fixture, θ parsing and its encoding,
// checkProfile's refusals, the bench samples, and a random differential of the oracle against a naive
// model below that works on the raw strings (not on field elements or recordObservations).
// The circuit against the oracle is the lead's part (test/predicates/fixtures.test.ts once AAP-6 is registered).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringToField } from "../../sdk/core/hash.js";
import { aap6Grounding } from "../../sdk/core/predicates/aap6/definition.js";
import { aap6Samples } from "../../sdk/core/predicates/aap6/samples.js";
import type { SampleSource } from "../../sdk/core/predicates/samples.js";
import { ThetaError } from "../../sdk/core/predicates/types.js";
import { parseProfile, type EncodingProfile } from "../../sdk/core/profile.js";
import { parseRecord, type CallRecord, type TraceRecord } from "../../sdk/core/records.js";
import { predicateFixtures } from "../helpers/fixtures.js";
import { runsOf } from "../helpers/circuit.js";

const fixtures = predicateFixtures("AAP-6");

describe("AAP-6 fixtures (oracle)", () => {
  it("has at least 22 fixtures, each within the 8-record test circuits", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(22);
    for (const f of fixtures) expect(f.records.length, f.file).toBeLessThanOrEqual(8);
    expect(fixtures.some((f) => f.expected.violated)).toBe(true);
    expect(fixtures.some((f) => !f.expected.violated)).toBe(true);
  });

  it.each(fixtures.map((f) => [f.file, f] as const))("%s", (_file, f) => {
    const theta = aap6Grounding.parseTheta(f.theta);
    aap6Grounding.checkProfile(theta, f.profile);
    const verdict = aap6Grounding.evaluate(f.records, theta, f.profile);
    expect({ violated: verdict.violated, seq: verdict.seq }).toEqual(f.expected);
    expect(verdict.reason === "").toBe(!verdict.violated);
  });

  it("names the tool, the fact and the ungrounded value in the reason", () => {
    const reasonOf = (file: string) => {
      const f = fixtures.find((x) => x.file === `aap-6/${file}.json`)!;
      return aap6Grounding.evaluate(f.records, aap6Grounding.parseTheta(f.theta), f.profile).reason;
    };
    expect(reasonOf("listing-omits-target")).toBe(
      "delete_file acts on path 'c.txt', which no earlier successful source call observed",
    );
    expect(reasonOf("user-message-other-order")).toContain("cancel_order acts on order '9999'");
    expect(reasonOf("amounts-with-decimals")).toContain("pay acts on amount 125");
    expect(reasonOf("list-argument-one-ungrounded")).toContain("'c.txt'");
  });

  it("holds on an empty trace", () => {
    const f = fixtures[0]!;
    expect(aap6Grounding.evaluate([], aap6Grounding.parseTheta(f.theta), f.profile)).toEqual({
      violated: false,
      seq: null,
      reason: "",
    });
  });
});

const THETA = { consequential: { delete_file: "path" }, sources: { read_file: "path", list_files: "path" } };

describe("AAP-6 θ", () => {
  it("parses, sorts the tools and defaults normalise to exact", () => {
    const theta = aap6Grounding.parseTheta(THETA);
    expect(theta).toEqual({
      consequential: { delete_file: "path" },
      sources: { list_files: "path", read_file: "path" },
      normalise: "exact",
    });
    expect(Object.keys(theta.sources)).toEqual(["list_files", "read_file"]);
    expect(aap6Grounding.parseTheta(theta)).toEqual(theta);
  });

  it("encodes θ as [6, 4, 4, normalise, consequential tools, source tools], sorted and 0-padded", () => {
    const h = stringToField;
    const exact = aap6Grounding.parseTheta(THETA);
    expect(aap6Grounding.thetaVector(exact)).toEqual([
      6n,
      4n,
      4n,
      0n,
      h("delete_file"),
      0n,
      0n,
      0n,
      h("list_files"),
      h("read_file"),
      0n,
      0n,
    ]);
    const fold = aap6Grounding.parseTheta({ ...THETA, normalise: "fold" });
    expect(aap6Grounding.thetaVector(fold)[3]).toBe(1n);
    expect(aap6Grounding.circuitInputs(fold)).toEqual({
      consequentialTools: [h("delete_file"), 0n, 0n, 0n].map(String),
      sourceTools: [h("list_files"), h("read_file"), 0n, 0n].map(String),
      normalise: ["1"],
    });
    // The fact names are checked against the profile, not hashed: renaming one leaves the vector.
    const renamed = aap6Grounding.parseTheta({ ...THETA, consequential: { delete_file: "target" } });
    expect(aap6Grounding.thetaVector(renamed)).toEqual(aap6Grounding.thetaVector(exact));
    expect(aap6Grounding.code).toBe(6);
    expect(aap6Grounding.caps).toEqual({ consequential: 4, sources: 4 });
  });

  const five = Object.fromEntries(["a", "b", "c", "d", "e"].map((t) => [t, "x"]));
  it.each([
    ["not an object", [THETA], /must be an object/],
    ["an unknown key", { ...THETA, allowlist: [] }, /unknown field\(s\) allowlist/],
    [
      "a misspelt key",
      { consequential: THETA.consequential, source: THETA.sources },
      /unknown field\(s\) source/,
    ],
    ["no consequential tools", { ...THETA, consequential: {} }, /consequential is empty/],
    ["no sources", { ...THETA, sources: {} }, /sources is empty/],
    ["consequential as a list", { ...THETA, consequential: ["delete_file"] }, /must be an object mapping/],
    [
      "five consequential tools",
      { ...THETA, consequential: five },
      /consequential has 5 tools; circuits hold 4/,
    ],
    ["five sources", { ...THETA, sources: five }, /sources has 5 tools; circuits hold 4/],
    ["an empty tool name", { ...THETA, sources: { "": "path" } }, /empty tool name/],
    [
      "an empty fact",
      { ...THETA, sources: { read_file: "" } },
      /sources\.read_file must be a non-empty fact/,
    ],
    ["a non-string fact", { ...THETA, sources: { read_file: 1 } }, /non-empty fact name, got 1/],
    ["an unknown normalise", { ...THETA, normalise: "lower" }, /normalise must be "exact" or "fold"/],
    [
      "one tool with two facts",
      { consequential: { write_file: "path" }, sources: { write_file: "text" } },
      /write_file.*a tool observes one fact/,
    ],
    ["a lone surrogate", { ...THETA, sources: { "\ud800": "path" } }, /AAP-6 θ/],
  ])("refuses %s", (_what, raw, message) => {
    expect(() => aap6Grounding.parseTheta(raw)).toThrow(ThetaError);
    expect(() => aap6Grounding.parseTheta(raw)).toThrow(message);
  });
});

const FILES: EncodingProfile = parseProfile({
  version: 1,
  tools: {
    read_file: { observe: { fact: "path", from: "args", path: "$.path" } },
    list_files: { observe: { fact: "path", from: "result", path: "$.files[*]" } },
    delete_file: { observe: { fact: "path", from: "args", path: "$.path" } },
  },
});

describe("AAP-6 checkProfile", () => {
  const theta = aap6Grounding.parseTheta(THETA);
  const withTool = (tool: string, spec: object) =>
    parseProfile({ ...FILES, tools: { ...FILES.tools, [tool]: spec } });

  it("accepts a profile whose named tools observe θ's facts", () => {
    expect(() => aap6Grounding.checkProfile(theta, FILES)).not.toThrow();
  });

  it.each([
    [
      "a tool the profile lacks",
      parseProfile({
        version: 1,
        tools: { read_file: FILES.tools.read_file, list_files: FILES.tools.list_files },
      }),
      /consequential tool "delete_file" is not in the encoding profile/,
    ],
    [
      "a tool that observes nothing",
      withTool("delete_file", { target: "path" }),
      /AAP-6: delete_file observes no fact; add observe: \{ fact: "path", from, path \} to its profile entry/,
    ],
    [
      "another fact",
      withTool("read_file", { observe: { fact: "file", from: "args", path: "$.path" } }),
      /names fact "path" for source tool read_file, but its profile observes "file"/,
    ],
    [
      "another normalisation",
      withTool("list_files", {
        observe: { fact: "path", from: "result", path: "$.files[*]", normalise: "fold" },
      }),
      /normalise "exact", but list_files.path is normalised "fold"/,
    ],
  ])("refuses %s", (_what, profile, message) => {
    expect(() => aap6Grounding.checkProfile(theta, profile)).toThrow(ThetaError);
    expect(() => aap6Grounding.checkProfile(theta, profile)).toThrow(message);
  });

  it("requires fold on every fact when θ folds", () => {
    const fold = aap6Grounding.parseTheta({ ...THETA, normalise: "fold" });
    expect(() => aap6Grounding.checkProfile(fold, FILES)).toThrow(/normalise "fold", but delete_file.path/);
  });
});

const source: SampleSource = {
  fixture(file) {
    const raw = JSON.parse(readFileSync(join(process.cwd(), "fixtures", file), "utf8"));
    return { theta: raw.theta, profile: parseProfile(raw.profile), records: raw.records.map(parseRecord) };
  },
  agentDojoRun: () => {
    throw new Error("AAP-6 samples read no AgentDojo run");
  },
  agentDojoPromise: () => {
    throw new Error("AAP-6 samples read no AgentDojo promise");
  },
};

describe("AAP-6 samples", () => {
  it.each([8, 16, 64])(
    "builds a satisfied and a violated trace of %i records from the fixtures",
    (capacity) => {
      const t = aap6Samples.fromFixtures(source, capacity);
      const theta = aap6Grounding.parseTheta(t.theta);
      aap6Grounding.checkProfile(theta, t.profile);
      expect(t.satisfied).toHaveLength(capacity);
      expect(t.violated).toHaveLength(capacity);
      expect(aap6Grounding.evaluate(t.satisfied, theta, t.profile).violated).toBe(false);
      const verdict = aap6Grounding.evaluate(t.violated, theta, t.profile);
      expect(verdict).toMatchObject({ violated: true, seq: capacity - 1 });
    },
  );

  it("streams a compliant run, and one whose bad record is the first violation", () => {
    const { stream } = aap6Samples;
    const theta = aap6Grounding.parseTheta(stream.theta);
    const profile = parseProfile(stream.profile);
    aap6Grounding.checkProfile(theta, profile);
    const run = (n: number, badAt: number) =>
      Array.from({ length: n }, (_, i) => parseRecord({ ...stream.record(i, i === badAt), seq: i, ts: i }));
    expect(aap6Grounding.evaluate(run(40, -1), theta, profile).violated).toBe(false);
    for (const badAt of [37, 38])
      expect(aap6Grounding.evaluate(run(40, badAt), theta, profile)).toMatchObject({
        violated: true,
        seq: badAt,
      });
  });
});

// ---- The differential: the oracle against a naive model on raw strings. ----

// Values with case and space variants, so that fold and exact disagree; no inner whitespace runs.
const VALUES = ["a.txt", "A.txt", " a.txt", "b.txt", "c.txt"];
const TOOLS = ["read_file", "list_files", "delete_file", "delete_files", "write_file"] as const;
type Tool = (typeof TOOLS)[number];
const CONSEQUENTIAL = new Set<string>(["delete_file", "delete_files", "write_file"]);
const SOURCES = new Set<string>(["read_file", "list_files", "write_file"]);

function randomProfile(how: "exact" | "fold"): EncodingProfile {
  const fact = (from: "args" | "result", path: string) => ({
    observe: { fact: "path", from, path, normalise: how },
  });
  return parseProfile({
    version: 1,
    tools: {
      read_file: fact("args", "$.path"),
      list_files: fact("result", "$.files[*]"),
      delete_file: fact("args", "$.path"),
      delete_files: fact("args", "$.paths[*]"),
      write_file: fact("args", "$.path"),
    },
  });
}

const arbValue = fc.constantFrom(...VALUES);
const arbStep = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({
      tool: fc.constantFrom(...TOOLS),
      one: fc.option(arbValue, { nil: undefined }),
      nullOne: fc.boolean(),
      many: fc.array(arbValue, { maxLength: 2 }),
      status: fc.constantFrom("ok", "ok", "error", "blocked"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ grant: arbValue }) },
);
type Step =
  { grant: string } | { tool: Tool; one?: string; nullOne: boolean; many: string[]; status: string };

function toRecords(steps: Step[]): TraceRecord[] {
  return steps.map((s, seq): TraceRecord => {
    if ("grant" in s) return { kind: "grant", seq, ts: seq, namespace: "recipient", value: s.grant };
    const one = s.one ?? (s.nullOne ? null : undefined);
    const args: CallRecord["args"] =
      s.tool === "list_files" ? { dir: "." } : s.tool === "delete_files" ? { paths: s.many } : {};
    if (s.tool !== "list_files" && s.tool !== "delete_files" && one !== undefined) args.path = one;
    const record: CallRecord = { kind: "call", seq, ts: seq, tool: s.tool, args };
    if (s.status === "blocked") record.blocked = true;
    else if (s.status === "error") record.error = "failed";
    else record.result = s.tool === "list_files" ? { files: s.many } : "ok";
    return record;
  });
}

/** The strings a call observes, read by hand from its shape: what the profile above says, in plain code. */
function naiveValues(r: CallRecord): string[] {
  if (r.blocked) return [];
  if (r.tool === "list_files") {
    if (r.error !== undefined) return [];
    return ((r.result as { files: string[] }).files ?? []).slice();
  }
  if (r.tool === "delete_files") return (r.args.paths as string[]).slice();
  return typeof r.args.path === "string" ? [r.args.path] : [];
}

function naiveVerdict(records: TraceRecord[], how: "exact" | "fold"): number | null {
  const norm = (s: string) => (how === "fold" ? s.trim().toLowerCase() : s);
  for (const [i, r] of records.entries()) {
    if (r.kind !== "call" || r.blocked || !CONSEQUENTIAL.has(r.tool)) continue;
    for (const v of naiveValues(r)) {
      const groundedBefore = records
        .slice(0, i)
        .some(
          (s) =>
            s.kind === "call" &&
            !s.blocked &&
            s.error === undefined &&
            SOURCES.has(s.tool) &&
            naiveValues(s).some((w) => norm(w) === norm(v)),
        );
      if (!groundedBefore) return r.seq;
    }
  }
  return null;
}

describe("AAP-6 oracle against a naive model", () => {
  it("agrees on random traces (exact and fold)", () => {
    let violated = 0;
    let satisfiedWithQueries = 0;
    fc.assert(
      fc.property(fc.array(arbStep, { maxLength: 8 }), fc.constantFrom("exact", "fold"), (steps, how) => {
        const records = toRecords(steps as Step[]);
        const theta = aap6Grounding.parseTheta({
          consequential: { delete_file: "path", delete_files: "path", write_file: "path" },
          sources: { read_file: "path", list_files: "path", write_file: "path" },
          normalise: how,
        });
        const profile = randomProfile(how as "exact" | "fold");
        aap6Grounding.checkProfile(theta, profile);
        const verdict = aap6Grounding.evaluate(records, theta, profile);
        const expected = naiveVerdict(records, how as "exact" | "fold");
        expect(verdict.seq).toBe(expected);
        expect(verdict.violated).toBe(expected !== null);
        if (verdict.violated) violated++;
        else if (records.some((r) => r.kind === "call" && !r.blocked && CONSEQUENTIAL.has(r.tool)))
          satisfiedWithQueries++;
      }),
      runsOf(2000, 500),
    );
    // Both outcomes are drawn often, so the agreement says something about each.
    expect(violated).toBeGreaterThan(50);
    expect(satisfiedWithQueries).toBeGreaterThan(20);
  });
});
