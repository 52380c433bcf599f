// AAP-4 recipients: every recipient of a call to an outbound tool is allowlisted.
//
// Semantics (as VAI's egress_within_allowlist, invocation mode):
// - only executed calls count: a blocked record is not a call;
// - only calls to a tool in `outboundTools`;
// - the recipients are the profile's target argument of that tool, a string or a
//   list; a missing or null target, or a null element, is skipped;
// - the call violates if any recipient is not on `allowlist` (exact string match);
//   a non-string recipient is never on it (fail-closed);
// - the verdict reports the first violating record.
// θ: outboundTools (≤ 2 tools), allowlist (≤ 24 strings), padded with 0 in-circuit.
// Circuit: circuits/predicates/aap4_recipients.circom.
import { stringToField } from "../hash.js";
import { callTargets } from "../encoding.js";
import type { EncodingProfile } from "../profile.js";
import type { TraceRecord } from "../records.js";
import { ThetaError, type PredicateDefinition } from "./types.js";

export interface Aap4Theta {
  outboundTools: string[];
  allowlist: string[];
}

const CAPS = { tools: 2, allowlist: 24 };

function stringList(x: unknown, what: string, max: number): string[] {
  if (!Array.isArray(x) || !x.every((s) => typeof s === "string" && s.length > 0)) {
    throw new ThetaError(`AAP-4 θ: ${what} must be a list of non-empty strings`);
  }
  const unique = [...new Set(x as string[])].sort();
  if (unique.length > max) throw new ThetaError(`AAP-4 θ: ${what} has ${unique.length} entries; circuits hold ${max}`);
  return unique;
}

/** Python's repr of a string, so reasons read exactly as VAI's. */
function pythonRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

function padded(list: readonly string[], size: number): bigint[] {
  return [...list.map(stringToField), ...Array<bigint>(size - list.length).fill(0n)];
}

export const aap4Recipients: PredicateDefinition<Aap4Theta> = {
  id: "AAP-4",
  code: 4,
  caps: CAPS,

  parseTheta(x) {
    if (typeof x !== "object" || x === null) throw new ThetaError("AAP-4 θ must be an object");
    const t = x as Record<string, unknown>;
    const outboundTools = stringList(t.outboundTools, "outboundTools", CAPS.tools);
    if (outboundTools.length === 0) throw new ThetaError("AAP-4 θ: outboundTools is empty, so the promise says nothing");
    return { outboundTools, allowlist: stringList(t.allowlist, "allowlist", CAPS.allowlist) };
  },

  checkProfile(theta, profile) {
    for (const tool of theta.outboundTools) {
      if (profile.tools[tool]?.target === undefined) {
        throw new ThetaError(`AAP-4 θ: the encoding profile does not read a target for outbound tool "${tool}"`);
      }
    }
  },

  thetaVector(theta) {
    return [
      BigInt(this.code),
      BigInt(CAPS.tools),
      BigInt(CAPS.allowlist),
      ...padded(theta.outboundTools, CAPS.tools),
      ...padded(theta.allowlist, CAPS.allowlist),
    ];
  },

  evaluate(records, theta, profile) {
    const outbound = new Set(theta.outboundTools);
    const allowed = new Set(theta.allowlist);
    for (const r of records) {
      if (r.kind !== "call" || r.blocked || !outbound.has(r.tool)) continue;
      const off = callTargets(r, profile).find((t) => !allowed.has(t));
      if (off !== undefined) {
        return { violated: true, seq: r.seq, reason: `egress ${r.tool} to non-allowlisted recipient ${pythonRepr(off)}` };
      }
    }
    return { violated: false, seq: null, reason: "" };
  },

  circuitInputs(theta) {
    return {
      tools: padded(theta.outboundTools, CAPS.tools).map(String),
      allow: padded(theta.allowlist, CAPS.allowlist).map(String),
    };
  },
};
