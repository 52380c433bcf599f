// AAP-3 payment: every executed payment goes to allowlisted merchants, with an
// amount of at most `cap`.
//
// Semantics (as VAI's payment promise, fail-closed where VAI would raise):
// - only executed calls count: a blocked record is not a call;
// - only calls to a tool in `payTools`;
// - the merchants are the profile's target argument of that tool (a string, or a
//   list of at most 2); a payment naming no merchant (argument missing, null, [] or
//   only nulls) violates; every merchant named must be on `merchants` (exact string
//   match; a non-string merchant is never on it);
// - the amount is the profile's amount argument in integer minor units (the tool's
//   `decimals`): a missing amount violates, so does a malformed one (not a whole
//   number of minor units, negative, not a number, or over 2^64 - 2), and so does
//   an amount > cap;
// - the verdict reports the first violating record.
// θ: payTools (1..2 tools), merchants (≤ 8 strings), cap (integer in [0, 2^64 - 1],
// in minor units). Every pay tool must be read with a target and an amount, at one
// scale (checkProfile).
// VAI's names are accepted too (pay_tool, max_amount, merchant_allowlist, recipient_key,
// amount_key, amount_decimals): ./vai.ts, with the profile entry they imply;
// checkProfile refuses a profile that reads otherwise.
// Circuit: circuits/predicates/aap3_payment.circom.
import { callAmount, callTargets, MALFORMED_TARGET_PREFIX } from "../../encoding.js";
import type { EncodingProfile } from "../../profile.js";
import { paddedStrings, checkThetaJson } from "../theta-common.js";
import type { Aap3Theta } from "./theta.js";
import { aap3Samples } from "./samples.js";
import { aap3Segment } from "./segment.js";
import { ThetaError, type PredicateDefinition } from "../types.js";
import { onlyKeys, parseLimit, sharedAmountScale, stringSet } from "../theta-amounts.js";
import { aap3Vai, parseVaiKeys, parseVaiParams, VAI_PARAMS } from "./vai.js";

const CAPS = { tools: 2, merchants: 8 };
const NAMES = ["payTools", "merchants", "cap"] as const;

/** A marked malformed target (a non-string merchant) must never be allowlisted: θ refuses the marker, as AAP-4's does. */
function merchantList(x: unknown, what: string): string[] {
  const list = stringSet(x, what, CAPS.merchants);
  if (list.some((s) => s.startsWith(MALFORMED_TARGET_PREFIX)))
    throw new ThetaError(`${what} holds a reserved (malformed-value) marker`);
  return list;
}

/**
 * The encoding-profile entry that VAI's AAP-3 parameters imply: the pay tool reads
 * its merchant from `recipient_key` and its amount from `amount_key` at
 * `amount_decimals` (default 0). Merge it into the session's profile.
 */
export function aap3ProfileFromVai(params: unknown): EncodingProfile["tools"] {
  const theta = aap3Payment.parseTheta(params);
  if (!theta.vai) throw new ThetaError("AAP-3: these are zkVAI θ names, which imply no profile entries");
  return aap3Vai.profileTools(theta);
}

export const aap3Payment: PredicateDefinition<Aap3Theta, "AAP-3"> = {
  id: "AAP-3",
  code: 3,
  caps: CAPS,
  samples: aap3Samples,
  segment: aap3Segment,

  parseTheta(x) {
    checkThetaJson(x, "AAP-3");
    if (typeof x !== "object" || x === null || Array.isArray(x))
      throw new ThetaError("AAP-3 θ must be an object");
    const t = x as Record<string, unknown>;
    if (VAI_PARAMS.some((k) => k in t)) {
      if (NAMES.some((k) => k in t)) {
        throw new ThetaError(
          `AAP-3 θ mixes zkVAI names (${NAMES.join(", ")}) with VAI's (${VAI_PARAMS.join(", ")})`,
        );
      }
      return parseVaiParams(t, { merchants: merchantList });
    }
    onlyKeys(t, [...NAMES, "vai"], "AAP-3 θ");
    const payTools = stringSet(t.payTools, "AAP-3 θ: payTools", CAPS.tools);
    if (payTools.length === 0)
      throw new ThetaError("AAP-3 θ: payTools is empty, so the promise says nothing");
    const theta: Aap3Theta = {
      payTools,
      merchants: merchantList(t.merchants, "AAP-3 θ: merchants"),
      cap: String(parseLimit(t.cap, "AAP-3 θ: cap")),
    };
    // A parsed θ parses to itself, with the keys its VAI params implied.
    if (t.vai !== undefined) theta.vai = parseVaiKeys(t.vai);
    return theta;
  },

  vai: aap3Vai,

  checkProfile(theta, profile) {
    for (const tool of theta.payTools) {
      const target = profile.tools[tool]?.target;
      if (target === undefined) {
        throw new ThetaError(
          `AAP-3 θ: the encoding profile does not read a merchant (target) for pay tool "${tool}"`,
        );
      }
      if (theta.vai && target !== theta.vai.recipientKey) {
        throw new ThetaError(
          `AAP-3 θ: the params read pay tool "${tool}"'s merchant as "${theta.vai.recipientKey}", but the encoding profile reads "${target}"`,
        );
      }
    }
    sharedAmountScale(theta.payTools, profile, "AAP-3 θ: pay tools", theta.vai);
  },

  thetaVector(theta) {
    return [
      BigInt(this.code),
      BigInt(CAPS.tools),
      BigInt(CAPS.merchants),
      ...paddedStrings(theta.payTools, CAPS.tools),
      ...paddedStrings(theta.merchants, CAPS.merchants),
      BigInt(theta.cap),
    ];
  },

  evaluate(records, theta, profile) {
    const pay = new Set(theta.payTools);
    const allowed = new Set(theta.merchants);
    const violation = (seq: number, reason: string) => ({ violated: true, seq, reason });
    for (const r of records) {
      if (r.kind !== "call" || r.blocked || !pay.has(r.tool)) continue;
      const targets = callTargets(r, profile);
      if (targets.length === 0) return violation(r.seq, `payment ${r.tool} names no merchant`);
      const off = targets.find((t) => !allowed.has(t));
      if (off !== undefined) {
        return violation(r.seq, `payment ${r.tool} to non-allowlisted merchant ${JSON.stringify(off)}`);
      }
      const amount = callAmount(r, profile);
      if (amount === undefined) return violation(r.seq, `payment ${r.tool} has no amount`);
      if (amount === "malformed") {
        const spec = profile.tools[r.tool].amount!;
        return violation(
          r.seq,
          `payment ${r.tool} amount ${JSON.stringify(r.args[spec.key])} is not a whole number of minor units at ${spec.decimals} decimals in [0, 2^64 - 2]`,
        );
      }
      if (amount > BigInt(theta.cap)) {
        return violation(
          r.seq,
          `payment ${r.tool} amount ${amount} exceeds the cap of ${theta.cap} (minor units)`,
        );
      }
    }
    return { violated: false, seq: null, reason: "" };
  },

  circuitInputs(theta) {
    return {
      tools: paddedStrings(theta.payTools, CAPS.tools).map(String),
      merchants: paddedStrings(theta.merchants, CAPS.merchants).map(String),
      cap: [String(theta.cap)],
    };
  },
};

export type { Aap3Theta } from "./theta.js";
