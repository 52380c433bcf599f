// VAI's dialect of AAP-2 (its scope promise): scoped_tools, allow_prefixes, match_key (default
// "target"), grant_tool (default "scope_grant"), revoke_tool (default "scope_revoke") and scope_key
// (default "prefix"). None of the keys enters θ's hash: θ keeps them in `vai`. match_key belongs to
// the encoding profile (each scoped tool reads its path from it); the grant/revoke tools and
// scope_key to the VAI importer (sdk/core/import-vai.ts), which turns those calls into scope grant
// and revoke records of args[scope_key].
import type { GrantToolSpec } from "../../import-vai.js";
import { onlyKeys, stringSet, vaiKey } from "../theta-amounts.js";
import { ThetaError, type VaiDialect } from "../types.js";
import type { Aap2Theta } from "./theta.js";

export type Aap2VaiKeys = NonNullable<Aap2Theta["vai"]>;

/** VAI's parameter names: raw θ holding any of them is in VAI's form. */
export const VAI_PARAMS = [
  "scoped_tools",
  "allow_prefixes",
  "match_key",
  "grant_tool",
  "revoke_tool",
  "scope_key",
] as const;

const DEFAULTS: Aap2VaiKeys = {
  matchKey: "target",
  grantTool: "scope_grant",
  revokeTool: "scope_revoke",
  scopeKey: "prefix",
};

function fail(message: string): never {
  throw new ThetaError(message);
}

/** What both forms parse alike, from the definition: its tool cap and the prefix normal form. */
export interface Aap2Fields {
  tools: number;
  prefixes(x: unknown, what: string): string[];
}

/** θ from VAI-form params (only VAI_PARAMS keys, checked by parseTheta). */
export function parseVaiParams(t: Record<string, unknown>, fields: Aap2Fields): Aap2Theta {
  const what = "AAP-2 params";
  const scopedTools = stringSet(t.scoped_tools, `${what}: scoped_tools`, fields.tools);
  if (scopedTools.length === 0) fail(`${what}: scoped_tools is empty, so the promise says nothing`);
  const vai = {
    matchKey: vaiKey(t.match_key, DEFAULTS.matchKey, `${what}: match_key`),
    grantTool: vaiKey(t.grant_tool, DEFAULTS.grantTool, `${what}: grant_tool`),
    revokeTool: vaiKey(t.revoke_tool, DEFAULTS.revokeTool, `${what}: revoke_tool`),
    scopeKey: vaiKey(t.scope_key, DEFAULTS.scopeKey, `${what}: scope_key`),
  };
  if (vai.grantTool === vai.revokeTool)
    fail(`${what}: grant_tool and revoke_tool are both "${vai.grantTool}"`);
  if (scopedTools.includes(vai.grantTool) || scopedTools.includes(vai.revokeTool)) {
    fail(`${what}: a grant or revoke tool cannot also be a scoped tool`);
  }
  return {
    scopedTools,
    allowPrefixes: fields.prefixes(t.allow_prefixes ?? [], `${what}: allow_prefixes`),
    vai,
  };
}

/** θ's `vai` field, so a parsed θ parses to itself with the keys its VAI params implied. */
export function parseVaiKeys(x: unknown): Aap2VaiKeys {
  if (typeof x !== "object" || x === null || Array.isArray(x)) fail("AAP-2 θ: vai must be an object");
  const v = x as Record<string, unknown>;
  onlyKeys(v, Object.keys(DEFAULTS), "AAP-2 θ: vai");
  return {
    matchKey: vaiKey(v.matchKey, DEFAULTS.matchKey, "AAP-2 θ: vai.matchKey"),
    grantTool: vaiKey(v.grantTool, DEFAULTS.grantTool, "AAP-2 θ: vai.grantTool"),
    revokeTool: vaiKey(v.revokeTool, DEFAULTS.revokeTool, "AAP-2 θ: vai.revokeTool"),
    scopeKey: vaiKey(v.scopeKey, DEFAULTS.scopeKey, "AAP-2 θ: vai.scopeKey"),
  };
}

export const aap2Vai: VaiDialect<Aap2Theta> = {
  predicateNames: [],

  // Each scoped tool reads its path from match_key.
  profileTools: ({ scopedTools, vai }) =>
    vai ? Object.fromEntries(scopedTools.map((tool) => [tool, { path: vai.matchKey }])) : {},

  // Calls to grant_tool / revoke_tool are scope grants / revokes of args[scope_key].
  grantTools({ vai }): Record<string, GrantToolSpec> {
    if (!vai) return {};
    return {
      [vai.grantTool]: { namespace: "scope", kind: "grant", key: vai.scopeKey },
      [vai.revokeTool]: { namespace: "scope", kind: "revoke", key: vai.scopeKey },
    };
  },
};
