// VAI's dialect of AAP-4 (its egress_within_allowlist promise, invocation mode): egress_tools,
// recipient_allowlist, recipient_key (default "target"), grant_tool (default "recipient_grant"),
// revoke_tool (default "recipient_revoke"), and allow_prefixes, which must be empty: VAI's prefix
// rule has no sound circuit here (a recipient is committed as one hash, so no string prefix of it
// can be checked). None of the keys enters θ's hash: θ keeps them in `vai`. recipient_key belongs
// to the encoding profile; the grant/revoke tools to the VAI importer (sdk/core/import-vai.ts),
// which reads the granted value from args[recipient_key].
import type { GrantToolSpec } from "../../import-vai.js";
import { onlyKeys, vaiKey } from "../theta-amounts.js";
import { ThetaError, type VaiDialect } from "../types.js";
import type { Aap4Theta } from "./theta.js";

export type Aap4VaiKeys = NonNullable<Aap4Theta["vai"]>;

/** VAI's parameter names: raw θ holding any of them is in VAI's form. */
export const VAI_PARAMS = [
  "egress_tools",
  "recipient_allowlist",
  "allow_prefixes",
  "recipient_key",
  "grant_tool",
  "revoke_tool",
] as const;

const DEFAULTS: Aap4VaiKeys = {
  recipientKey: "target",
  grantTool: "recipient_grant",
  revokeTool: "recipient_revoke",
};

function fail(message: string): never {
  throw new ThetaError(message);
}

/** What both forms parse alike, from the definition: the caps and the recipient list (reserved marker). */
export interface Aap4Fields {
  tools: number;
  allowlist: number;
  recipients(x: unknown, what: string, max: number): string[];
}

/** θ from VAI-form params (only VAI_PARAMS keys, checked by parseTheta). */
export function parseVaiParams(t: Record<string, unknown>, fields: Aap4Fields): Aap4Theta {
  const what = "AAP-4 params";
  const prefixes = t.allow_prefixes ?? [];
  if (!Array.isArray(prefixes)) fail(`${what}: allow_prefixes must be a list`);
  if (prefixes.length > 0) {
    fail(
      `${what}: allow_prefixes is not supported (unsupported: recipients are committed as hashes, so a string-prefix rule cannot be proven); list the recipients in recipient_allowlist instead`,
    );
  }
  const outboundTools = fields.recipients(t.egress_tools, `${what}: egress_tools`, fields.tools);
  if (outboundTools.length === 0) fail(`${what}: egress_tools is empty, so the promise says nothing`);
  const vai = {
    recipientKey: vaiKey(t.recipient_key, DEFAULTS.recipientKey, `${what}: recipient_key`),
    grantTool: vaiKey(t.grant_tool, DEFAULTS.grantTool, `${what}: grant_tool`),
    revokeTool: vaiKey(t.revoke_tool, DEFAULTS.revokeTool, `${what}: revoke_tool`),
  };
  if (vai.grantTool === vai.revokeTool)
    fail(`${what}: grant_tool and revoke_tool are both "${vai.grantTool}"`);
  if (outboundTools.includes(vai.grantTool) || outboundTools.includes(vai.revokeTool)) {
    fail(`${what}: a grant or revoke tool cannot also be an egress tool`);
  }
  return {
    outboundTools,
    allowlist: fields.recipients(
      t.recipient_allowlist ?? [],
      `${what}: recipient_allowlist`,
      fields.allowlist,
    ),
    vai,
  };
}

/** θ's `vai` field, so a parsed θ parses to itself with the keys its VAI params implied. */
export function parseVaiKeys(x: unknown): Aap4VaiKeys {
  if (typeof x !== "object" || x === null || Array.isArray(x)) fail("AAP-4 θ: vai must be an object");
  const v = x as Record<string, unknown>;
  onlyKeys(v, Object.keys(DEFAULTS), "AAP-4 θ: vai");
  return {
    recipientKey: vaiKey(v.recipientKey, DEFAULTS.recipientKey, "AAP-4 θ: vai.recipientKey"),
    grantTool: vaiKey(v.grantTool, DEFAULTS.grantTool, "AAP-4 θ: vai.grantTool"),
    revokeTool: vaiKey(v.revokeTool, DEFAULTS.revokeTool, "AAP-4 θ: vai.revokeTool"),
  };
}

export const aap4Vai: VaiDialect<Aap4Theta> = {
  // VAI's own name for this promise, accepted wherever a predicate id is (vai check, promise files).
  predicateNames: ["egress_within_allowlist"],

  // Each egress tool reads its recipients from recipient_key.
  profileTools: ({ outboundTools, vai }) =>
    vai ? Object.fromEntries(outboundTools.map((tool) => [tool, { target: vai.recipientKey }])) : {},

  // Calls to grant_tool / revoke_tool are recipient grants / revokes of args[recipient_key].
  grantTools({ vai }): Record<string, GrantToolSpec> {
    if (!vai) return {};
    return {
      [vai.grantTool]: { namespace: "recipient", kind: "grant", key: vai.recipientKey },
      [vai.revokeTool]: { namespace: "recipient", kind: "revoke", key: vai.recipientKey },
    };
  },
};
