// VAI's dialect of AAP-5: counted_tools, max_count, summed_tools, amount_key (default "amount"),
// max_sum, plus this project's amount_decimals (default 0). amount_key and the scale belong to the
// encoding profile, not to θ (θ keeps them in `vai`, unhashed): each summed tool reads its amount
// from amount_key at amount_decimals, and each counted tool is listed so that the profile admits it.
// max_sum must be a whole number of minor units. VAI has no repeat limit, and AAP-5 no grant tools.
import type { EncodingProfile } from "../../profile.js";
import { onlyKeys, stringSet, vaiAmountLimit, vaiDecimals, vaiKey } from "../theta-amounts.js";
import { ThetaError, type VaiDialect } from "../types.js";
import type { Aap5Theta } from "./theta.js";

export type Aap5VaiKeys = NonNullable<Aap5Theta["vai"]>;

/** VAI's parameter names: raw θ holding any of them is in VAI's form. */
export const VAI_PARAMS = ["counted_tools", "max_count", "summed_tools", "amount_key", "max_sum"] as const;

/** The names a limit's errors use, per form. */
export interface LimitNames {
  counted: string;
  count: string;
  summed: string;
  sum: string;
}

/** What both forms parse alike, from the definition: the caps, one limit, and θ's consistency checks. */
export interface Aap5Fields {
  countedTools: number;
  summedTools: number;
  limit(x: unknown, what: string): string | undefined;
  validate(theta: Aap5Theta, names: LimitNames): Aap5Theta;
}

/** θ from VAI-form params. */
export function parseVaiParams(t: Record<string, unknown>, fields: Aap5Fields): Aap5Theta {
  const what = "AAP-5 params";
  const decimals = vaiDecimals(t.amount_decimals, `${what}: amount_decimals`);
  const list = (x: unknown, name: string, max: number) =>
    x === undefined ? [] : stringSet(x, `${what}: ${name}`, max);
  const theta: Aap5Theta = {
    countedTools: list(t.counted_tools, "counted_tools", fields.countedTools),
    summedTools: list(t.summed_tools, "summed_tools", fields.summedTools),
    vai: { amountKey: vaiKey(t.amount_key, "amount", `${what}: amount_key`), decimals },
  };
  const maxCount = fields.limit(t.max_count, `${what}: max_count`);
  if (maxCount !== undefined) theta.maxCount = maxCount;
  if (t.max_sum !== undefined && t.max_sum !== null) {
    theta.maxSum = String(vaiAmountLimit(t.max_sum, decimals, `${what}: max_sum`));
  }
  return fields.validate(theta, {
    counted: "counted_tools",
    count: "max_count",
    summed: "summed_tools",
    sum: "max_sum",
  });
}

/** θ's `vai` field, so a parsed θ parses to itself with the amount key its VAI params implied. */
export function parseVaiKeys(x: unknown): Aap5VaiKeys {
  const v = (typeof x === "object" && x !== null ? x : {}) as Record<string, unknown>;
  onlyKeys(v, ["amountKey", "decimals"], "AAP-5 θ: vai");
  if (typeof v.amountKey !== "string" || !v.amountKey)
    throw new ThetaError("AAP-5 θ: vai.amountKey is required");
  return { amountKey: v.amountKey, decimals: vaiDecimals(v.decimals, "AAP-5 θ: vai.decimals") };
}

export const aap5Vai: VaiDialect<Aap5Theta> = {
  predicateNames: [],

  profileTools({ countedTools, summedTools, vai }) {
    const tools: EncodingProfile["tools"] = {};
    if (!vai) return tools;
    for (const tool of countedTools) tools[tool] = {};
    for (const tool of summedTools) tools[tool] = { amount: { key: vai.amountKey, decimals: vai.decimals } };
    return tools;
  },
};
