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
// VAI's names are accepted too (egress_tools, recipient_allowlist, recipient_key,
// grant_tool, revoke_tool, and allow_prefixes, which must be empty): ./vai.ts, with
// the profile entries and importer option they imply.
// Circuit: circuits/predicates/aap4_recipients.circom with the active-at gadget
// circuits/gadgets/active_set.circom.
import { MALFORMED_TARGET_PREFIX, callTargets } from "../../encoding.js";
import type { GrantToolSpec } from "../../import-vai.js";
import type { EncodingProfile } from "../../profile.js";
import { namespaceEvents, paddedStrings, pythonRepr, stringList, checkThetaJson } from "../theta-common.js";
import { onlyKeys } from "../theta-amounts.js";
import type { Aap4Theta } from "./theta.js";
import { aap4Samples } from "./samples.js";
import { aap4Segment } from "./segment.js";
import { ThetaError, type PredicateDefinition } from "../types.js";
import { aap4Vai, parseVaiKeys, parseVaiParams, VAI_PARAMS, type Aap4VaiKeys } from "./vai.js";

const CAPS = { tools: 2, allowlist: 24 };
const NAMES = ["outboundTools", "allowlist"] as const;

function fail(message: string): never {
  throw new ThetaError(message);
}

function recipientList(x: unknown, what: string, max: number): string[] {
  const unique = stringList(x, what, max, fail);
  // A marked malformed target must never be allowed: refuse it in θ.
  if (unique.some((s) => s.startsWith(MALFORMED_TARGET_PREFIX)))
    fail(`${what} holds a reserved (malformed-value) marker`);
  return unique;
}

function vaiTheta(params: unknown): Aap4Theta & { vai: Aap4VaiKeys } {
  const theta = aap4Recipients.parseTheta(params);
  if (!theta.vai) fail("AAP-4: these are zkVAI θ names, which imply no profile entries or grant tools");
  return theta as Aap4Theta & { vai: Aap4VaiKeys };
}

/** The encoding-profile entries VAI's AAP-4 params imply: each egress tool reads its recipients from `recipient_key`. */
export function aap4ProfileFromVai(params: unknown): EncodingProfile["tools"] {
  return aap4Vai.profileTools(vaiTheta(params));
}

/**
 * The importer option VAI's AAP-4 params imply (sdk/core/import-vai.ts): calls to
 * `grant_tool` / `revoke_tool` become recipient grant / revoke records of args[recipient_key].
 */
export function aap4GrantToolsFromVai(params: unknown): Record<string, GrantToolSpec> {
  return aap4Vai.grantTools!(vaiTheta(params));
}

export const aap4Recipients: PredicateDefinition<Aap4Theta, "AAP-4"> = {
  id: "AAP-4",
  code: 4,
  caps: CAPS,
  samples: aap4Samples,
  segment: aap4Segment,

  parseTheta(x) {
    checkThetaJson(x, "AAP-4");
    if (typeof x !== "object" || x === null || Array.isArray(x)) fail("AAP-4 θ must be an object");
    const t = x as Record<string, unknown>;
    if (VAI_PARAMS.some((k) => k in t)) {
      if (NAMES.some((k) => k in t))
        fail(`AAP-4 θ mixes zkVAI names (${NAMES.join(", ")}) with VAI's (${VAI_PARAMS.join(", ")})`);
      onlyKeys(t, VAI_PARAMS, "AAP-4 params");
      return parseVaiParams(t, { ...CAPS, recipients: recipientList });
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

  vai: aap4Vai,

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

export type { Aap4Theta } from "./theta.js";
