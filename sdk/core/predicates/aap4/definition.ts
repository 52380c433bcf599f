// AAP-4 recipients: every recipient of a call to an outbound tool is allowlisted
// or granted at that call.
//
// Semantics (as VAI's egress_within_allowlist, invocation mode):
// - only executed calls count: a blocked record is not a call;
// - only calls to a tool in `outboundTools`;
// - the recipients are the profile's target argument of that tool, a string or a
//   list; a missing or null target, or a null element, is skipped;
// - the allowed set starts as `allowlist`; a grant or revoke record of namespace
//   "recipient" adds or removes its value for every later record (a record at seq
//   j affects calls at seq > j); a revoke can remove an allowlisted recipient;
// - the call violates if any recipient is not in the allowed set at that call
//   (exact string match); a non-string recipient is never in it (fail-closed);
// - the verdict reports the first violating record.
// θ: outboundTools (1..2 tools), allowlist (≤ 24 strings), padded with 0 in-circuit.
// VAI's names are accepted too: egress_tools, recipient_allowlist, recipient_key
// (default "target"), grant_tool (default "recipient_grant"), revoke_tool (default
// "recipient_revoke"), and allow_prefixes, which must be empty: VAI's prefix rule
// has no sound circuit here (a recipient is committed as one hash, so no string
// prefix of it can be checked). recipient_key belongs to the encoding profile
// (aap4ProfileFromVai); the grant/revoke tools to the VAI importer
// (aap4GrantToolsFromVai), which reads the granted value from args[recipient_key].
// Circuit: circuits/predicates/aap4_recipients.circom with the active-at gadget
// circuits/gadgets/active_set.circom.
import { MALFORMED_TARGET_PREFIX, callTargets } from "../../encoding.js";
import type { GrantToolSpec } from "../../import-vai.js";
import type { EncodingProfile } from "../../profile.js";
import { namespaceEvents, paddedStrings, pythonRepr, stringList, checkThetaJson } from "../theta-common.js";
import { ThetaError, type PredicateDefinition } from "../types.js";

export interface Aap4Theta {
  outboundTools: string[];
  allowlist: string[];
  /** Set when θ came from VAI's names: the profile and importer keys they imply (not hashed). */
  vai?: { recipientKey: string; grantTool: string; revokeTool: string };
}

const CAPS = { tools: 2, allowlist: 24 };
const NAMES = ["outboundTools", "allowlist"] as const;
const VAI_NAMES = [
  "egress_tools",
  "recipient_allowlist",
  "allow_prefixes",
  "recipient_key",
  "grant_tool",
  "revoke_tool",
] as const;
const VAI_DEFAULTS = { recipientKey: "target", grantTool: "recipient_grant", revokeTool: "recipient_revoke" };

function fail(message: string): never {
  throw new ThetaError(message);
}

function onlyKeys(t: Record<string, unknown>, known: readonly string[], what: string): void {
  const extra = Object.keys(t).filter((k) => !known.includes(k));
  if (extra.length) fail(`${what}: unknown field(s) ${extra.join(", ")}; known: ${known.join(", ")}`);
}

function recipientList(x: unknown, what: string, max: number): string[] {
  const unique = stringList(x, what, max, fail);
  // A marked malformed target must never be allowed: refuse it in θ.
  if (unique.some((s) => s.startsWith(MALFORMED_TARGET_PREFIX)))
    fail(`${what} holds a reserved (malformed-value) marker`);
  return unique;
}

function key(x: unknown, fallback: string, what: string): string {
  if (x === undefined) return fallback;
  if (typeof x !== "string" || x.length === 0) fail(`${what} must be a non-empty string`);
  return x;
}

function parseVaiKeys(x: unknown): NonNullable<Aap4Theta["vai"]> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) fail("AAP-4 θ: vai must be an object");
  const v = x as Record<string, unknown>;
  onlyKeys(v, Object.keys(VAI_DEFAULTS), "AAP-4 θ: vai");
  return {
    recipientKey: key(v.recipientKey, VAI_DEFAULTS.recipientKey, "AAP-4 θ: vai.recipientKey"),
    grantTool: key(v.grantTool, VAI_DEFAULTS.grantTool, "AAP-4 θ: vai.grantTool"),
    revokeTool: key(v.revokeTool, VAI_DEFAULTS.revokeTool, "AAP-4 θ: vai.revokeTool"),
  };
}

function parseVai(t: Record<string, unknown>): Aap4Theta {
  const what = "AAP-4 params";
  const prefixes = t.allow_prefixes ?? [];
  if (!Array.isArray(prefixes)) fail(`${what}: allow_prefixes must be a list`);
  if (prefixes.length > 0) {
    fail(
      `${what}: allow_prefixes is not supported (unsupported: recipients are committed as hashes, so a string-prefix rule cannot be proven); list the recipients in recipient_allowlist instead`,
    );
  }
  const outboundTools = recipientList(t.egress_tools, `${what}: egress_tools`, CAPS.tools);
  if (outboundTools.length === 0) fail(`${what}: egress_tools is empty, so the promise says nothing`);
  const vai = {
    recipientKey: key(t.recipient_key, VAI_DEFAULTS.recipientKey, `${what}: recipient_key`),
    grantTool: key(t.grant_tool, VAI_DEFAULTS.grantTool, `${what}: grant_tool`),
    revokeTool: key(t.revoke_tool, VAI_DEFAULTS.revokeTool, `${what}: revoke_tool`),
  };
  if (vai.grantTool === vai.revokeTool)
    fail(`${what}: grant_tool and revoke_tool are both "${vai.grantTool}"`);
  if (outboundTools.includes(vai.grantTool) || outboundTools.includes(vai.revokeTool)) {
    fail(`${what}: a grant or revoke tool cannot also be an egress tool`);
  }
  return {
    outboundTools,
    allowlist: recipientList(t.recipient_allowlist ?? [], `${what}: recipient_allowlist`, CAPS.allowlist),
    vai,
  };
}

function vaiTheta(params: unknown): NonNullable<Aap4Theta["vai"]> & Aap4Theta {
  const theta = aap4Recipients.parseTheta(params);
  if (!theta.vai) fail("AAP-4: these are zkVAI θ names, which imply no profile entries or grant tools");
  return { ...theta, ...theta.vai };
}

/** The encoding-profile entries VAI's AAP-4 params imply: each egress tool reads its recipients from `recipient_key`. */
export function aap4ProfileFromVai(params: unknown): EncodingProfile["tools"] {
  const { outboundTools, recipientKey } = vaiTheta(params);
  return Object.fromEntries(outboundTools.map((tool) => [tool, { target: recipientKey }]));
}

/**
 * The importer option VAI's AAP-4 params imply (sdk/core/import-vai.ts): calls to
 * `grant_tool` / `revoke_tool` become recipient grant / revoke records of args[recipient_key].
 */
export function aap4GrantToolsFromVai(params: unknown): Record<string, GrantToolSpec> {
  const { grantTool, revokeTool, recipientKey } = vaiTheta(params);
  return {
    [grantTool]: { namespace: "recipient", kind: "grant", key: recipientKey },
    [revokeTool]: { namespace: "recipient", kind: "revoke", key: recipientKey },
  };
}

export const aap4Recipients: PredicateDefinition<Aap4Theta> = {
  id: "AAP-4",
  code: 4,
  caps: CAPS,

  parseTheta(x) {
    checkThetaJson(x, "AAP-4");
    if (typeof x !== "object" || x === null || Array.isArray(x)) fail("AAP-4 θ must be an object");
    const t = x as Record<string, unknown>;
    if (VAI_NAMES.some((k) => k in t)) {
      if (NAMES.some((k) => k in t))
        fail(`AAP-4 θ mixes zkVAI names (${NAMES.join(", ")}) with VAI's (${VAI_NAMES.join(", ")})`);
      onlyKeys(t, VAI_NAMES, "AAP-4 params");
      return parseVai(t);
    }
    onlyKeys(t, [...NAMES, "vai"], "AAP-4 θ");
    const outboundTools = recipientList(t.outboundTools, "AAP-4 θ: outboundTools", CAPS.tools);
    if (outboundTools.length === 0) fail("AAP-4 θ: outboundTools is empty, so the promise says nothing");
    const theta: Aap4Theta = {
      outboundTools,
      allowlist: recipientList(t.allowlist, "AAP-4 θ: allowlist", CAPS.allowlist),
    };
    // A parsed θ parses to itself, with the keys its VAI params implied.
    if (t.vai !== undefined) theta.vai = parseVaiKeys(t.vai);
    return theta;
  },

  // zkVAI-named θ implies no grant tools; only VAI's names do.
  vaiGrantTools: (rawParams) =>
    aap4Recipients.parseTheta(rawParams).vai ? aap4GrantToolsFromVai(rawParams) : {},

  profileHints(rawParams, theta) {
    return theta.vai ? aap4ProfileFromVai(rawParams) : {};
  },

  checkProfile(theta, profile) {
    for (const tool of theta.outboundTools) {
      const target = profile.tools[tool]?.target;
      if (target === undefined)
        fail(`AAP-4 θ: the encoding profile does not read a target for outbound tool "${tool}"`);
      if (theta.vai && target !== theta.vai.recipientKey) {
        fail(
          `AAP-4 θ: the params read outbound tool "${tool}"'s recipient as "${theta.vai.recipientKey}", but the encoding profile reads "${target}"`,
        );
      }
    }
  },

  thetaVector(theta) {
    return [
      BigInt(this.code),
      BigInt(CAPS.tools),
      BigInt(CAPS.allowlist),
      ...paddedStrings(theta.outboundTools, CAPS.tools),
      ...paddedStrings(theta.allowlist, CAPS.allowlist),
    ];
  },

  eventCount: namespaceEvents("recipient"),

  evaluate(records, theta, profile) {
    const outbound = new Set(theta.outboundTools);
    const allowed = new Set(theta.allowlist);
    for (const r of records) {
      if (r.kind === "grant" || r.kind === "revoke") {
        if (r.namespace !== "recipient") continue;
        if (r.kind === "grant") allowed.add(r.value);
        else allowed.delete(r.value);
        continue;
      }
      if (r.kind !== "call" || r.blocked || !outbound.has(r.tool)) continue;
      const off = callTargets(r, profile).find((t) => !allowed.has(t));
      if (off !== undefined) {
        return {
          violated: true,
          seq: r.seq,
          reason: `egress ${r.tool} to non-allowlisted recipient ${pythonRepr(off)}`,
        };
      }
    }
    return { violated: false, seq: null, reason: "" };
  },

  circuitInputs(theta) {
    return {
      tools: paddedStrings(theta.outboundTools, CAPS.tools).map(String),
      allow: paddedStrings(theta.allowlist, CAPS.allowlist).map(String),
    };
  },
};
