// VAI compatibility of AAP-2 and AAP-4: VAI parameter names, the encoding-profile
// entries and importer options they imply, and VAI grant/revoke tool calls turned
// into grant and revoke records by the importer.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RecordError } from "../../sdk/core/records.js";
import { importVaiJsonl } from "../../sdk/core/import-vai.js";
import { paramsHashOf, ThetaError } from "../../sdk/core/predicates/index.js";
import {
  aap2GrantToolsFromVai,
  aap2ProfileFromVai,
  aap2Scope,
} from "../../sdk/core/predicates/aap2/definition.js";
import {
  aap4GrantToolsFromVai,
  aap4ProfileFromVai,
  aap4Recipients,
} from "../../sdk/core/predicates/aap4/definition.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";

const line = (seq: number, tool: string, args: unknown, result: unknown = "ok") =>
  JSON.stringify({ seq, session_id: "s1", tool, args, result, ts: seq * 1000 });

describe("AAP-2 VAI parameters", () => {
  const params = {
    scoped_tools: ["read_file"],
    allow_prefixes: ["/data/", "/home/u/../w"],
    match_key: "path",
  };

  it("parse to θ with normalised prefixes; the keys stay out of θ's hash", () => {
    const theta = aap2Scope.parseTheta(params);
    expect(theta).toEqual({
      scopedTools: ["read_file"],
      allowPrefixes: ["/data", "/home/w"],
      vai: { matchKey: "path", grantTool: "scope_grant", revokeTool: "scope_revoke", scopeKey: "prefix" },
    });
    expect(aap2Scope.parseTheta(theta)).toEqual(theta);
    const native = aap2Scope.parseTheta({ scopedTools: ["read_file"], allowPrefixes: ["/home/w", "/data"] });
    expect(paramsHashOf(aap2Scope, theta)).toBe(paramsHashOf(aap2Scope, native));
  });

  it("imply the profile entry {path: match_key} (default target) and the grant tools", () => {
    expect(aap2ProfileFromVai(params)).toEqual({ read_file: { path: "path" } });
    expect(aap2ProfileFromVai({ scoped_tools: ["a", "b"] })).toEqual({
      a: { path: "target" },
      b: { path: "target" },
    });
    expect(aap2Scope.vai!.profileTools(aap2Scope.parseTheta(params))).toEqual({
      read_file: { path: "path" },
    });
    expect(aap2GrantToolsFromVai(params)).toEqual({
      scope_grant: { namespace: "scope", kind: "grant", key: "prefix" },
      scope_revoke: { namespace: "scope", kind: "revoke", key: "prefix" },
    });
    expect(
      aap2GrantToolsFromVai({ ...params, grant_tool: "allow", revoke_tool: "deny", scope_key: "dir" }),
    ).toEqual({
      allow: { namespace: "scope", kind: "grant", key: "dir" },
      deny: { namespace: "scope", kind: "revoke", key: "dir" },
    });
    expect(() => aap2ProfileFromVai({ scopedTools: ["x"], allowPrefixes: [] })).toThrow(/zkVAI θ names/);
  });

  it("refuses what the circuits cannot serve, with the reason", () => {
    const bad: [unknown, RegExp][] = [
      [{ ...params, scopedTools: ["x"] }, /mixes/],
      [{ ...params, allow_prefix: [] }, /unknown field/],
      [{ scopedTools: ["x"], allowPrefixes: [], extra: 1 }, /unknown field/],
      [{ scoped_tools: [] }, /empty/],
      [{ scoped_tools: ["a", "b", "c"] }, /circuits hold 2/],
      [{ scoped_tools: ["a"], allow_prefixes: ["rel/dir"] }, /absolute/],
      [{ scoped_tools: ["a"], allow_prefixes: ["/1/2/3/4/5"] }, /5 segments/],
      [{ scoped_tools: ["a"], allow_prefixes: ["/1", "/2", "/3", "/4", "/5"] }, /circuits hold 4/],
      [{ scoped_tools: ["scope_grant"] }, /cannot also be a scoped tool/],
      [{ scoped_tools: ["a"], grant_tool: "g", revoke_tool: "g" }, /both/],
    ];
    for (const [x, message] of bad) expect(() => aap2Scope.parseTheta(x), JSON.stringify(x)).toThrow(message);
    // Duplicates after normalisation count once.
    expect(
      aap2Scope.parseTheta({
        scoped_tools: ["a"],
        allow_prefixes: ["/1", "/1/", "/2/../1", "/2", "/3", "/4"],
      }).allowPrefixes,
    ).toHaveLength(4);
  });

  it("checkProfile wants a path for every scoped tool, read from match_key", () => {
    const theta = aap2Scope.parseTheta(params);
    expect(() =>
      aap2Scope.checkProfile(theta, { version: 1, tools: { read_file: { path: "path" } } }),
    ).not.toThrow();
    expect(() =>
      aap2Scope.checkProfile(theta, { version: 1, tools: { read_file: { target: "path" } } }),
    ).toThrow(/does not read a path/);
    expect(() =>
      aap2Scope.checkProfile(theta, { version: 1, tools: { read_file: { path: "file" } } }),
    ).toThrow(/reads "file"/);
  });
});

describe("AAP-4 VAI parameters", () => {
  const params = {
    egress_tools: ["send_email"],
    recipient_allowlist: ["b@x", "a@x"],
    recipient_key: "to",
    allow_prefixes: [],
  };

  it("parse to θ; the keys stay out of θ's hash", () => {
    const theta = aap4Recipients.parseTheta(params);
    expect(theta).toEqual({
      outboundTools: ["send_email"],
      allowlist: ["a@x", "b@x"],
      vai: { recipientKey: "to", grantTool: "recipient_grant", revokeTool: "recipient_revoke" },
    });
    expect(aap4Recipients.parseTheta(theta)).toEqual(theta);
    expect(paramsHashOf(aap4Recipients, theta)).toBe(
      paramsHashOf(
        aap4Recipients,
        aap4Recipients.parseTheta({ outboundTools: ["send_email"], allowlist: ["a@x", "b@x"] }),
      ),
    );
  });

  it("refuse a non-empty allow_prefixes as unsupported, and other malformed params", () => {
    expect(() => aap4Recipients.parseTheta({ ...params, allow_prefixes: ["@corp.example"] })).toThrow(
      ThetaError,
    );
    expect(() => aap4Recipients.parseTheta({ ...params, allow_prefixes: ["@corp.example"] })).toThrow(
      /allow_prefixes is not supported/,
    );
    expect(() => aap4Recipients.parseTheta({ ...params, allowlist: [] })).toThrow(/mixes/);
    expect(() => aap4Recipients.parseTheta({ ...params, recipient_allow_list: [] })).toThrow(/unknown field/);
    expect(() => aap4Recipients.parseTheta({ egress_tools: ["recipient_grant"] })).toThrow(
      /cannot also be an egress tool/,
    );
    expect(() =>
      aap4Recipients.parseTheta({ outboundTools: ["t"], allowlist: ["\u0000malformed:42"] }),
    ).toThrow(/reserved/);
  });

  it("imply the profile entry {target: recipient_key} (default target) and the grant tools", () => {
    expect(aap4ProfileFromVai(params)).toEqual({ send_email: { target: "to" } });
    expect(aap4ProfileFromVai({ egress_tools: ["post"] })).toEqual({ post: { target: "target" } });
    expect(aap4GrantToolsFromVai(params)).toEqual({
      recipient_grant: { namespace: "recipient", kind: "grant", key: "to" },
      recipient_revoke: { namespace: "recipient", kind: "revoke", key: "to" },
    });
    const theta = aap4Recipients.parseTheta(params);
    expect(() =>
      aap4Recipients.checkProfile(theta, { version: 1, tools: { send_email: { target: "cc" } } }),
    ).toThrow(/reads "cc"/);
  });

  it("give each AgentDojo promise the θ and profile entry the AgentDojo tests use", () => {
    const promises = JSON.parse(readFileSync("fixtures/vai-agentdojo/promises.json", "utf8")) as Record<
      string,
      unknown
    >[];
    expect(promises).toHaveLength(10);
    for (const p of promises) {
      const vai = {
        egress_tools: p.egress_tools,
        recipient_allowlist: p.recipient_allowlist,
        recipient_key: p.recipient_key,
        allow_prefixes: p.allow_prefixes,
      };
      const theta = aap4Recipients.parseTheta(vai);
      const native = aap4Recipients.parseTheta({
        outboundTools: p.egress_tools,
        allowlist: p.recipient_allowlist,
      });
      expect(paramsHashOf(aap4Recipients, theta), String(p.promise_id)).toBe(
        paramsHashOf(aap4Recipients, native),
      );
      expect(aap4ProfileFromVai(vai)).toEqual({
        [(p.egress_tools as string[])[0]]: { target: p.recipient_key },
      });
    }
  });
});

describe("importing VAI grant and revoke tool calls", () => {
  const params = { scoped_tools: ["read_file"], allow_prefixes: ["/home"], match_key: "path" };
  const text = [
    line(1, "read_file", { path: "/home/a" }),
    line(2, "scope_grant", { prefix: "/tmp" }),
    line(4, "read_file", { path: "/tmp/x" }),
    line(5, "scope_revoke", { prefix: "/tmp/" }),
    line(6, "scope_grant", { prefix: "/etc" }, { blocked: "policy" }),
    line(7, "read_file", { path: "/tmp/y" }),
  ].join("\n");

  it("turns executed grant/revoke calls into records, keeps a blocked one a blocked call", () => {
    const { records, vaiSeq } = importVaiJsonl(text, { grantTools: aap2GrantToolsFromVai(params) });
    expect(vaiSeq).toEqual([1, 2, 4, 5, 6, 7]);
    expect(records[1]).toEqual({ kind: "grant", seq: 1, ts: 2000, namespace: "scope", value: "/tmp" });
    expect(records[3]).toEqual({ kind: "revoke", seq: 3, ts: 5000, namespace: "scope", value: "/tmp/" });
    expect(records[4]).toMatchObject({ kind: "call", tool: "scope_grant", blocked: true });
    // Without the option they stay ordinary calls.
    expect(importVaiJsonl(text).records[1]).toMatchObject({ kind: "call", tool: "scope_grant" });
  });

  it("the imported trace gives the expected AAP-2 verdict under the VAI-implied profile", () => {
    const { records, vaiSeq } = importVaiJsonl(text, { grantTools: aap2GrantToolsFromVai(params) });
    const theta = aap2Scope.parseTheta(params);
    const profile: EncodingProfile = {
      version: 1,
      tools: { scope_grant: {}, ...aap2ProfileFromVai(params) },
    };
    aap2Scope.checkProfile(theta, profile);
    const verdict = aap2Scope.evaluate(records, theta, profile);
    expect(verdict.violated).toBe(true);
    expect(vaiSeq[verdict.seq!]).toBe(7);
    expect(verdict.reason).toMatch(/"\/tmp\/y"/);
    // Before the revoke the granted read was fine.
    expect(aap2Scope.evaluate(records.slice(0, 3), theta, profile).violated).toBe(false);
  });

  it("recipient grants: the granted value is args[recipient_key]", () => {
    const p = { egress_tools: ["send_email"], recipient_allowlist: ["a@x"], recipient_key: "to" };
    const trace = [
      line(1, "recipient_grant", { to: "b@x" }),
      line(2, "send_email", { to: ["a@x", "b@x"] }),
      line(3, "recipient_revoke", { to: "a@x" }),
      line(4, "send_email", { to: "a@x" }),
    ].join("\n");
    const { records, vaiSeq } = importVaiJsonl(trace, { grantTools: aap4GrantToolsFromVai(p) });
    expect(records.map((r) => r.kind)).toEqual(["grant", "call", "revoke", "call"]);
    const verdict = aap4Recipients.evaluate(records, aap4Recipients.parseTheta(p), {
      version: 1,
      tools: aap4ProfileFromVai(p),
    });
    expect(verdict).toEqual({
      violated: true,
      seq: 3,
      reason: "egress send_email to non-allowlisted recipient 'a@x'",
    });
    expect(vaiSeq[verdict.seq!]).toBe(4);
  });

  it("refuses a grant call without a string value", () => {
    const grantTools = aap2GrantToolsFromVai(params);
    for (const args of [{}, { prefix: null }, { prefix: 7 }, { prefix: "" }]) {
      expect(
        () => importVaiJsonl(line(1, "scope_grant", args), { grantTools }),
        JSON.stringify(args),
      ).toThrow(RecordError);
    }
    expect(() => importVaiJsonl(line(3, "scope_revoke", { dir: "/x" }), { grantTools })).toThrow(
      /VAI seq 3: scope_revoke .*"prefix"/,
    );
  });
});
