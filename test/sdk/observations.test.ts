// Record encoding v3's observations (sdk/core/observations.ts): the fact path syntax, what a record
// observes under each status, normalisation, amounts, bounds, the profile's `observe` / `results` /
// `bounds` parsing, and how the digest binds the observations. The Session's handling of a fact that
// breaks a bound (a marker for a result, a refusal for args or an appended result) is in
// observations-session.test.ts.
import { describe, expect, it } from "vitest";
import { canonicalJson, type Json } from "../../sdk/core/canonical.js";
import { encodeRecord, recordContent, recordDigest, recordSalt } from "../../sdk/core/encoding.js";
import { poseidon, stringToField } from "../../sdk/core/hash.js";
import {
  OBS_SLOTS,
  ObservationError,
  STATUS,
  parseFactPath,
  recordObservations,
  valuesAtPath,
  type ObservedFact,
} from "../../sdk/core/observations.js";
import { ProfileError, parseProfile, type EncodingProfile } from "../../sdk/core/profile.js";
import type { CallRecord, TraceRecord } from "../../sdk/core/records.js";

/** A call record of `tool` at seq 4 (a nonzero seq, so messages that name it are told apart from defaults). */
const call = (tool: string, args: { [k: string]: Json }, more: Partial<CallRecord> = {}): CallRecord => ({
  kind: "call",
  seq: 4,
  ts: 0,
  tool,
  args,
  ...more,
});

/** A profile whose one tool, "t", observes `fact`. */
const observing = (
  fact: Omit<ObservedFact, "fact">,
  extra: Partial<EncodingProfile> = {},
): EncodingProfile => ({
  version: 1,
  tools: { t: { observe: { fact: "f", ...fact } }, plain: {} },
  ...extra,
});

const H = stringToField;
const padded = (...values: bigint[]) => [...values, ...Array<bigint>(OBS_SLOTS - values.length).fill(0n)];

describe("parseFactPath", () => {
  it.each([
    ["$", []],
    ["$.a.b", [{ key: "a" }, { key: "b" }]],
    ["$.a[*].name", [{ key: "a" }, { every: true }, { key: "name" }]],
    ["$[0]", [{ index: 0 }]],
    ['$["odd key"]', [{ key: "odd key" }]],
    ['$["say \\"hi\\""][12]', [{ key: 'say "hi"' }, { index: 12 }]],
  ])("%s", (path, steps) => {
    expect(parseFactPath(path)).toEqual(steps);
  });

  it.each([
    ["a.b", /path "a.b" must start with "\$"/],
    ["", /must start with "\$"/],
    ["$.", /cannot read from position 1 \("\."\)/],
    ["$.a..b", /cannot read from position 3 \("\.\.b"\)/],
    ["$[x]", /cannot read from position 1 \("\[x\]"\)/],
    ["$.a b", /cannot read from position 3 \(" b"\)/],
    ["$[-1]", /cannot read from position 1/],
  ])("refuses %j, saying where", (path, message) => {
    expect(() => parseFactPath(path)).toThrow(ObservationError);
    expect(() => parseFactPath(path)).toThrow(message);
  });
});

describe("valuesAtPath", () => {
  const doc: Json = { a: { b: [{ name: "x" }, { name: "y" }, { other: 1 }], n: 5 }, list: [10, 20] };
  const at = (root: Json | undefined, path: string) => valuesAtPath(root, parseFactPath(path));

  it("reads nested keys, indices and every element", () => {
    expect(at(doc, "$")).toEqual([doc]);
    expect(at(doc, "$.a.n")).toEqual([5]);
    expect(at(doc, "$.a.b[*].name")).toEqual(["x", "y"]); // the element without `name` yields nothing
    expect(at(doc, "$.list[1]")).toEqual([20]);
    expect(at(doc, "$.list[*]")).toEqual([10, 20]);
  });

  it("yields nothing for what is missing or of another kind", () => {
    expect(at(undefined, "$")).toEqual([]);
    expect(at(doc, "$.missing.deeper")).toEqual([]);
    expect(at(doc, "$.list[2]")).toEqual([]);
    expect(at(doc, "$.a.n[*]")).toEqual([]); // [*] over a number
    expect(at(doc, "$.a[*]")).toEqual([]); // [*] over an object
    expect(at(doc, "$.a[0]")).toEqual([]); // an index into an object
    expect(at(doc, "$.list.length")).toEqual([]); // a key of an array
    expect(at({ a: null }, "$.a.b")).toEqual([]);
  });

  it("does not read inherited members", () => {
    expect(at({}, "$.constructor")).toEqual([]);
    expect(at({}, '$["__proto__"]')).toEqual([]);
  });
});

describe("recordObservations: status and what each status observes", () => {
  const args = observing({ from: "args", path: "$.to" });
  const result = observing({ from: "result", path: "$.id" });

  it("a record that is not a call has status 0 and nothing observed", () => {
    const grant: TraceRecord = { kind: "grant", seq: 0, ts: 0, namespace: "recipient", value: "a" };
    expect(recordObservations(grant, args)).toEqual({ status: STATUS.none, values: padded() });
  });

  it("ok (1) observes args and result facts", () => {
    expect(recordObservations(call("t", { to: "a" }), args)).toEqual({ status: 1n, values: padded(H("a")) });
    expect(recordObservations(call("t", {}, { result: { id: "r" } }), result)).toEqual({
      status: 1n,
      values: padded(H("r")),
    });
  });

  it("error (2) observes its args fact, never a result fact", () => {
    expect(recordObservations(call("t", { to: "a" }, { error: "boom" }), args)).toEqual({
      status: 2n,
      values: padded(H("a")),
    });
    // Even with a result beside the error (a harness that reports both), the result is not read.
    const failed = call("t", {}, { error: "boom", result: { id: "r" } });
    expect(recordObservations(failed, result)).toEqual({ status: 2n, values: padded() });
  });

  it("blocked (3) observes nothing, args included", () => {
    const blocked = call("t", { to: "a" }, { blocked: true, error: "refused" });
    expect(recordObservations(blocked, args)).toEqual({ status: 3n, values: padded() });
  });

  it("a tool without observe, or outside the profile, has its status and no values", () => {
    expect(recordObservations(call("plain", { to: "a" }), args)).toEqual({ status: 1n, values: padded() });
    expect(recordObservations(call("constructor", {}), args)).toEqual({ status: 1n, values: padded() });
  });
});

describe("recordObservations: values", () => {
  const of = (
    fact: Omit<ObservedFact, "fact">,
    args: { [k: string]: Json },
    extra?: Partial<EncodingProfile>,
  ) => recordObservations(call("t", args), observing(fact, extra)).values;

  it("a pattern takes group 1 when it has one, else the whole match, and every match", () => {
    const text = "ask INV-12 and INV-7";
    expect(of({ from: "args", path: "$.text", pattern: "INV-(\\d+)" }, { text })).toEqual(
      padded(H("12"), H("7")),
    );
    expect(of({ from: "args", path: "$.text", pattern: "INV-\\d+" }, { text })).toEqual(
      padded(H("INV-12"), H("INV-7")),
    );
    expect(of({ from: "args", path: "$.text", pattern: "INV-\\d+" }, { text: "none here" })).toEqual(
      padded(),
    );
  });

  it("a pattern skips values that are not text", () => {
    const fact = { from: "args" as const, path: "$.items[*]", pattern: "[a-z]+" };
    expect(of(fact, { items: [5, { k: "abc" }, ["abc"], true, "xy"] })).toEqual(padded(H("xy")));
  });

  it("fold trims, collapses whitespace and lower-cases; exact keeps the text", () => {
    const fold = { from: "args" as const, path: "$.to", normalise: "fold" as const };
    expect(of(fold, { to: "  Alice@ACME.example \t\n Team " })).toEqual(padded(H("alice@acme.example team")));
    expect(of({ from: "args", path: "$.to" }, { to: " Alice " })).toEqual(padded(H(" Alice ")));
    expect(of({ from: "args", path: "$.to", normalise: "exact" }, { to: "Alice" })).toEqual(
      padded(H("Alice")),
    );
    // A pattern's match is normalised too.
    expect(of({ ...fold, pattern: "ID-\\w+" }, { to: "see ID-Ab" })).toEqual(padded(H("id-ab")));
  });

  it("decimals: the amount in minor units plus one, so 0 stays absent", () => {
    const fact = { from: "args" as const, path: "$.amount", decimals: 2 };
    expect(of(fact, { amount: 12.5 })).toEqual(padded(1251n));
    expect(of(fact, { amount: "0" })).toEqual(padded(1n));
    expect(of(fact, { amount: null })).toEqual(padded());
  });

  it.each([
    [1.234, /more than 2 decimal places/],
    ["12,50", /expected a number or a decimal string/],
    [-5, /negative/],
    [{ v: 1 }, /expected a number or a decimal string/],
  ])("decimals: a malformed amount %j is an ObservationError", (amount, message) => {
    const read = () => of({ from: "args", path: "$.amount", decimals: 2 }, { amount: amount as Json });
    expect(read).toThrow(ObservationError);
    expect(read).toThrow(message);
  });

  // As a slot amount (MAX_AMOUNT): a value past it, near r not even a field element, is refused before the
  // tool runs (checkCall), so a stored record always encodes.
  it("decimals: an amount past 2^64 − 2 is refused up front (ObservationError)", () => {
    const read = () => of({ from: "args", path: "$.amount", decimals: 0 }, { amount: "9".repeat(80) });
    expect(read).toThrow(ObservationError);
  });

  it("null is skipped; objects and arrays are hashed as canonical JSON; numbers and booleans as their JSON", () => {
    const fact = { from: "args" as const, path: "$.v[*]" };
    expect(of(fact, { v: [null, { b: 1, a: [2, "x"] }] })).toEqual(
      padded(H(canonicalJson({ a: [2, "x"], b: 1 }))),
    );
    expect(H(canonicalJson({ a: [2, "x"], b: 1 }))).toBe(H('{"a":[2,"x"],"b":1}'));
    expect(of(fact, { v: [7, false] })).toEqual(padded(H("7"), H("false")));
    expect(of({ from: "args", path: "$.v" }, { v: null })).toEqual(padded());
  });

  it("values are 0-padded to OBS_SLOTS", () => {
    expect(OBS_SLOTS).toBe(2);
    expect(of({ from: "args", path: "$.v" }, {})).toEqual([0n, 0n]);
    expect(of({ from: "args", path: "$.v" }, { v: "a" })).toEqual([H("a"), 0n]);
  });

  it("more values than max is an ObservationError naming the record's seq, the tool and the fact", () => {
    const read = () => of({ from: "args", path: "$.v[*]", max: 1 }, { v: ["a", "b"] });
    expect(read).toThrow(ObservationError);
    expect(read).toThrow(/^record 4: t\.f yields 2 values; the profile allows at most 1 \(observe\.max/);
    // The default max is OBS_SLOTS; nulls do not count.
    expect(() => of({ from: "args", path: "$.v[*]" }, { v: ["a", "b", "c"] })).toThrow(
      /yields 3 values.*at most 2/,
    );
    expect(of({ from: "args", path: "$.v[*]" }, { v: ["a", null, "b"] })).toEqual([H("a"), H("b")]);
  });

  it("a text over bounds.text is an ObservationError, whether hashed or scanned by a pattern", () => {
    const bounds = { bounds: { text: 5 } };
    expect(of({ from: "args", path: "$.v" }, { v: "12345" }, bounds)).toEqual(padded(H("12345")));
    const hashed = () => of({ from: "args", path: "$.v" }, { v: "123456" }, bounds);
    expect(hashed).toThrow(ObservationError);
    expect(hashed).toThrow(
      /record 4: t\.f: a text of 6 characters is over the profile's bound of 5 \(bounds\.text\)/,
    );
    expect(() => of({ from: "args", path: "$.v", pattern: "1" }, { v: "123456" }, bounds)).toThrow(
      /over the profile's bound/,
    );
    // An object's canonical JSON is a text too.
    expect(() => of({ from: "args", path: "$.v" }, { v: { a: 1 } }, bounds)).toThrow(
      /a text of 7 characters/,
    );
  });
});

describe("profile parsing: observe, results, bounds", () => {
  const withObserve = (observe: unknown, extra: object = {}) =>
    parseProfile({ version: 1, tools: { t: { observe } }, ...extra });
  const good = { fact: "recipient", from: "args", path: "$.to" };

  it("keeps a good observe, results and bounds", () => {
    const fact = { ...good, pattern: "([a-z]+)@", normalise: "fold", max: 1 };
    expect(withObserve(fact, { results: "mcp", bounds: { text: 100 } })).toEqual({
      version: 1,
      tools: { t: { observe: fact } },
      results: "mcp",
      bounds: { text: 100 },
    });
    expect(withObserve({ ...good, from: "result", decimals: 2 }).tools.t!.observe).toEqual({
      ...good,
      from: "result",
      decimals: 2,
    });
  });

  it.each([
    ["an unknown key", { ...good, weight: 1 }, /tool t: observe: unknown field\(s\) weight/],
    ["no fact name", { ...good, fact: "" }, /observe\.fact must be a name/],
    ["a bad from", { ...good, from: "both" }, /observe\.from must be "args" or "result"/],
    ["a path that is not text", { ...good, path: 3 }, /observe\.path must be a path/],
    ["a bad path", { ...good, path: "to" }, /observe: path "to" must start with "\$"/],
    [
      "a path it cannot read",
      { ...good, path: "$..to" },
      /observe: path "\$\.\.to": cannot read from position 1/,
    ],
    ["a bad regex", { ...good, pattern: "(" }, /observe\.pattern: Invalid regular expression/],
    ["an empty pattern", { ...good, pattern: "" }, /observe\.pattern must be a regular expression/],
    ["a bad normalise", { ...good, normalise: "lower" }, /observe\.normalise must be "exact" or "fold"/],
    ["negative decimals", { ...good, decimals: -1 }, /observe\.decimals must be an integer >= 0/],
    [
      "pattern and decimals",
      { ...good, pattern: "x", decimals: 2 },
      /reads a pattern or an amount, not both/,
    ],
    ["max 0", { ...good, max: 0 }, /observe\.max must be an integer in 1\.\.2/],
    ["max 3", { ...good, max: 3 }, /observe\.max must be an integer in 1\.\.2/],
    ["max 1.5", { ...good, max: 1.5 }, /observe\.max must be an integer in 1\.\.2/],
    ["an observe that is not an object", [good], /observe must be an object/],
  ])("refuses %s", (_what, observe, message) => {
    expect(() => withObserve(observe)).toThrow(ProfileError);
    expect(() => withObserve(observe)).toThrow(message);
  });

  it.each([
    [
      "results not among the shapes",
      { results: "openai" },
      /results must be one of json, mcp, ai-sdk, langchain; got "openai"/,
    ],
    [
      "bounds with an unknown key",
      { bounds: { text: 5, bytes: 9 } },
      /bounds must be an object with only `text`/,
    ],
    ["bounds that are not an object", { bounds: 5 }, /bounds must be an object with only `text`/],
    ["bounds.text of 0", { bounds: { text: 0 } }, /bounds\.text must be an integer >= 1/],
    ["bounds.text not an integer", { bounds: { text: 2.5 } }, /bounds\.text must be an integer >= 1/],
  ])("refuses %s", (_what, extra, message) => {
    expect(() => withObserve(good, extra)).toThrow(ProfileError);
    expect(() => withObserve(good, extra)).toThrow(message);
  });
});

describe("the digest binds the observations", () => {
  const profile = observing({ from: "result", path: "$.files[*]" });
  const listed = (files: string[]) => call("t", { dir: "/w" }, { seq: 0, result: { files } });
  const secret = 77n;

  it("an observed record's digest is Poseidon(status, obs..., content); its leaf binds it", () => {
    const record = listed(["a.txt", "b.txt"]);
    const enc = encodeRecord(record, profile, secret, 0n);
    const content = recordContent(record, recordSalt(secret, 0));
    expect(enc).toMatchObject({ status: 1n, obs: [H("a.txt"), H("b.txt")], content, observed: true });
    expect(enc.digest).toBe(poseidon([1n, H("a.txt"), H("b.txt"), content]));
    expect(enc.leaf).toBe(poseidon([...enc.slots, enc.digest, 0n]));
  });

  it("a record that observes nothing keeps v2's digest, the content", () => {
    const enc = encodeRecord(call("plain", {}, { seq: 0, result: { files: ["a"] } }), profile, secret, 0n);
    expect(enc.observed).toBe(false);
    expect(enc.digest).toBe(enc.content);
  });

  it("a result edit that changes a listed file changes the leaf while every slot stays the same", () => {
    const before = encodeRecord(listed(["a.txt", "b.txt"]), profile, secret, 0n);
    const after = encodeRecord(listed(["a.txt", "evil.txt"]), profile, secret, 0n);
    expect(after.slots).toEqual(before.slots);
    expect(after.obs).not.toEqual(before.obs);
    expect(after.leaf).not.toBe(before.leaf);
    // The observations alone move the digest: the same content with other values is another digest.
    expect(recordDigest(true, 1n, after.obs, before.content)).not.toBe(before.digest);
    expect(recordDigest(true, 2n, before.obs, before.content)).not.toBe(before.digest);
  });
});
