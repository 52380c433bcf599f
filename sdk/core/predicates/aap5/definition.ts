// AAP-5 limits: how often the agent calls, how much it moves, how often it repeats
// itself.
//
// Semantics, over the executed calls (a blocked record is not a call), in order:
// - count: calls to a tool in `countedTools`; violates once it exceeds `maxCount`;
// - sum: the amounts (profile's amount argument, integer minor units) of calls to a
//   tool in `summedTools`; violates once the running sum exceeds `maxSum`; a summed
//   call whose amount is missing or malformed violates at once (fail-closed);
// - repeats: calls with the same tool and the same args hash (the committed args
//   slot: keccak of the canonical args, or the imported VAI args_hash, >> 3), over
//   *every* executed call whatever its tool; violates once one (tool, args) occurs
//   more than `maxRepeat` times. Every tool, because a loop is a loop whichever
//   tool it calls, and VAI has no repeat limit to follow;
// - the verdict reports the first record at which a limit is exceeded.
// Each limit is optional; omitting one means no limit, and the θ vector writes it
// as 0 where a limit L is written as L + 1, so "no limit" never hashes like a limit.
// A tool list without its limit, or a count or sum limit without its tool list, is
// refused (it would say nothing), and so is a θ with no limit at all.
// θ: countedTools (≤ 2), maxCount, summedTools (≤ 2), maxSum, maxRepeat; limits are
// integers in [0, 2^64 - 1] (maxSum in minor units). Summed tools must be read with
// an amount, at one scale (checkProfile).
// VAI's names are accepted too (counted_tools, max_count, summed_tools, amount_key,
// max_sum, amount_decimals): ./vai.ts, with the profile entries they imply.
// Circuit: circuits/predicates/aap5_limits.circom, circuits/main/aap5_limits.circom.
import { callAmount, callArgsField, KIND, SLOT } from "../../encoding.js";
import { repeatHints } from "./repeats.js";
import type { EncodingProfile } from "../../profile.js";
import { paddedStrings, checkThetaJson } from "../theta-common.js";
import type { Aap5Theta } from "./theta.js";
import { aap5Samples } from "./samples.js";
import { aap5Segment } from "./segment.js";
import { ThetaError, type PredicateDefinition, type Verdict } from "../types.js";
import { onlyKeys, parseLimit, sharedAmountScale, stringSet } from "../theta-amounts.js";
import { aap5Vai, parseVaiKeys, parseVaiParams, VAI_PARAMS, type LimitNames } from "./vai.js";

const CAPS = { countedTools: 2, summedTools: 2 };
const NAMES = ["countedTools", "maxCount", "summedTools", "maxSum", "maxRepeat"] as const;

/** A limit in the θ vector: L + 1, or 0 for no limit. */
export function encodeLimit(limit: string | undefined): bigint {
  return limit === undefined ? 0n : BigInt(limit) + 1n;
}

function optionalLimit(x: unknown, what: string): string | undefined {
  return x === undefined || x === null ? undefined : String(parseLimit(x, what));
}

function validate(theta: Aap5Theta, names: LimitNames): Aap5Theta {
  const pair = (tools: string[], limit: string | undefined, toolsName: string, limitName: string) => {
    if (tools.length > 0 && limit === undefined) {
      throw new ThetaError(`AAP-5 θ: ${toolsName} is given without ${limitName}, so it limits nothing`);
    }
    if (tools.length === 0 && limit !== undefined) {
      throw new ThetaError(`AAP-5 θ: ${limitName} is given without ${toolsName}, so nothing is limited`);
    }
  };
  pair(theta.countedTools, theta.maxCount, names.counted, names.count);
  pair(theta.summedTools, theta.maxSum, names.summed, names.sum);
  if (theta.maxCount === undefined && theta.maxSum === undefined && theta.maxRepeat === undefined) {
    throw new ThetaError(
      "AAP-5 θ sets no limit (maxCount, maxSum or maxRepeat), so the promise says nothing",
    );
  }
  return theta;
}

/**
 * The encoding-profile entries that VAI's AAP-5 parameters imply: each summed tool
 * reads its amount from `amount_key` at `amount_decimals` (default 0); each counted
 * tool is listed, so that the profile admits it. Merge them into the session's profile.
 */
export function aap5ProfileFromVai(params: unknown): EncodingProfile["tools"] {
  const theta = aap5Limits.parseTheta(params);
  if (!theta.vai) throw new ThetaError("AAP-5: these are zkVAI θ names, which imply no profile entries");
  return aap5Vai.profileTools(theta);
}

export const aap5Limits: PredicateDefinition<Aap5Theta, "AAP-5"> = {
  id: "AAP-5",
  code: 5,
  caps: CAPS,
  samples: aap5Samples,
  segment: aap5Segment,

  parseTheta(x) {
    checkThetaJson(x, "AAP-5");
    if (typeof x !== "object" || x === null || Array.isArray(x))
      throw new ThetaError("AAP-5 θ must be an object");
    const t = x as Record<string, unknown>;
    if (VAI_PARAMS.some((k) => k in t)) {
      if (NAMES.some((k) => k in t)) {
        throw new ThetaError(
          `AAP-5 θ mixes zkVAI names (${NAMES.join(", ")}) with VAI's (${VAI_PARAMS.join(", ")})`,
        );
      }
      return parseVaiParams(t, { ...CAPS, limit: optionalLimit, validate });
    }
    onlyKeys(t, [...NAMES, "vai"], "AAP-5 θ");
    const list = (v: unknown, name: string, max: number) =>
      v === undefined ? [] : stringSet(v, `AAP-5 θ: ${name}`, max);
    const theta: Aap5Theta = {
      countedTools: list(t.countedTools, "countedTools", CAPS.countedTools),
      summedTools: list(t.summedTools, "summedTools", CAPS.summedTools),
    };
    for (const name of ["maxCount", "maxSum", "maxRepeat"] as const) {
      const limit = optionalLimit(t[name], `AAP-5 θ: ${name}`);
      if (limit !== undefined) theta[name] = limit;
    }
    // A parsed θ parses to itself, with the amount key its VAI params implied.
    if (t.vai !== undefined) theta.vai = parseVaiKeys(t.vai);
    return validate(theta, {
      counted: "countedTools",
      count: "maxCount",
      summed: "summedTools",
      sum: "maxSum",
    });
  },

  vai: aap5Vai,

  checkProfile(theta, profile) {
    sharedAmountScale(theta.summedTools, profile, "AAP-5 θ: summed tools", theta.vai);
  },

  thetaVector(theta) {
    return [
      BigInt(this.code),
      BigInt(CAPS.countedTools),
      BigInt(CAPS.summedTools),
      ...paddedStrings(theta.countedTools, CAPS.countedTools),
      ...paddedStrings(theta.summedTools, CAPS.summedTools),
      encodeLimit(theta.maxCount),
      encodeLimit(theta.maxSum),
      encodeLimit(theta.maxRepeat),
    ];
  },

  evaluate(records, theta, profile): Verdict {
    const counted = new Set(theta.countedTools);
    const summed = new Set(theta.summedTools);
    const maxCount = theta.maxCount === undefined ? undefined : BigInt(theta.maxCount);
    const maxSum = theta.maxSum === undefined ? undefined : BigInt(theta.maxSum);
    const maxRepeat = theta.maxRepeat === undefined ? undefined : BigInt(theta.maxRepeat);
    const seen = new Map<string, bigint>();
    let count = 0n;
    let sum = 0n;
    const violation = (seq: number, reason: string): Verdict => ({ violated: true, seq, reason });
    for (const r of records) {
      if (r.kind !== "call" || r.blocked) continue;
      if (maxRepeat !== undefined) {
        const key = `${r.tool}\u0000${callArgsField(r)}`;
        const times = (seen.get(key) ?? 0n) + 1n;
        seen.set(key, times);
        if (times > maxRepeat) {
          return violation(
            r.seq,
            `call ${r.tool} repeated ${times} times with identical args (maxRepeat ${maxRepeat})`,
          );
        }
      }
      if (counted.has(r.tool)) {
        count += 1n;
        if (maxCount !== undefined && count > maxCount) {
          return violation(r.seq, `call ${count} to counted tools exceeds maxCount ${maxCount}`);
        }
      }
      if (summed.has(r.tool)) {
        const amount = callAmount(r, profile);
        if (amount === undefined) return violation(r.seq, `summed call ${r.tool} has no amount`);
        if (amount === "malformed") {
          const spec = profile.tools[r.tool].amount!;
          return violation(
            r.seq,
            `summed call ${r.tool} amount ${JSON.stringify(r.args[spec.key])} is not a whole number of minor units at ${spec.decimals} decimals in [0, 2^64 - 2]`,
          );
        }
        sum += amount;
        if (maxSum !== undefined && sum > maxSum) {
          return violation(r.seq, `running sum ${sum} exceeds maxSum ${maxSum} (minor units)`);
        }
      }
    }
    return { violated: false, seq: null, reason: "" };
  },

  circuitInputs(theta) {
    return {
      countedTools: paddedStrings(theta.countedTools, CAPS.countedTools).map(String),
      summedTools: paddedStrings(theta.summedTools, CAPS.summedTools).map(String),
      limits: [theta.maxCount, theta.maxSum, theta.maxRepeat].map((l) => String(encodeLimit(l))),
    };
  },

  witnessHints({ slots, n, finalRoot }) {
    // The circuit's executed calls: active records of kind CALL.
    const records = slots.map((s, i) => ({
      live: i < n && s[SLOT.kind] === KIND.call,
      tool: s[SLOT.tool]!,
      args: s[SLOT.args]!,
    }));
    const hints = repeatHints(records, finalRoot);
    return {
      repeatCount: hints.count.map(String),
      repeatLast: hints.last.map(String),
      repeatWeight: hints.weight.map(String),
    };
  },
};

export type { Aap5Theta } from "./theta.js";
