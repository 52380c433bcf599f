// VAI's dialect of AAP-3 (its payment promise): pay_tool (default "send_payment"), max_amount,
// merchant_allowlist, recipient_key (default "target"), amount_key (default "amount"), plus this
// project's amount_decimals (default 0). The two keys and the scale belong to the encoding profile,
// not to θ (θ keeps them in `vai`, unhashed): the pay tool reads its merchant from recipient_key and
// its amount from amount_key at amount_decimals. max_amount, which VAI compares as a float, must be a
// whole number of minor units at amount_decimals. AAP-3 has no grant tools.
import { vaiAmountLimit, vaiDecimals, vaiKey, onlyKeys } from "../theta-amounts.js";
import { ThetaError, type VaiDialect } from "../types.js";
import type { Aap3Theta } from "./theta.js";

export type Aap3VaiKeys = NonNullable<Aap3Theta["vai"]>;

/** VAI's parameter names: raw θ holding any of them is in VAI's form. */
export const VAI_PARAMS = [
  "pay_tool",
  "max_amount",
  "merchant_allowlist",
  "recipient_key",
  "amount_key",
] as const;

function fail(message: string): never {
  throw new ThetaError(message);
}

/** What both forms parse alike, from the definition: the merchant list (cap, reserved marker). */
export interface Aap3Fields {
  merchants(x: unknown, what: string): string[];
}

/** θ from VAI-form params. */
export function parseVaiParams(t: Record<string, unknown>, fields: Aap3Fields): Aap3Theta {
  const what = "AAP-3 params";
  const payTool = vaiKey(t.pay_tool, "send_payment", `${what}: pay_tool`);
  const decimals = vaiDecimals(t.amount_decimals, `${what}: amount_decimals`);
  if (t.max_amount === undefined) fail(`${what}: max_amount is required`);
  return {
    payTools: [payTool],
    merchants: fields.merchants(t.merchant_allowlist, `${what}: merchant_allowlist`),
    cap: String(vaiAmountLimit(t.max_amount, decimals, `${what}: max_amount`)),
    vai: {
      recipientKey: vaiKey(t.recipient_key, "target", `${what}: recipient_key`),
      amountKey: vaiKey(t.amount_key, "amount", `${what}: amount_key`),
      decimals,
    },
  };
}

/** θ's `vai` field, so a parsed θ parses to itself with the keys its VAI params implied. */
export function parseVaiKeys(x: unknown): Aap3VaiKeys {
  const v = (typeof x === "object" && x !== null ? x : {}) as Record<string, unknown>;
  onlyKeys(v, ["recipientKey", "amountKey", "decimals"], "AAP-3 θ: vai");
  return {
    recipientKey:
      vaiKey(v.recipientKey, "", "AAP-3 θ: vai.recipientKey") ||
      fail("AAP-3 θ: vai.recipientKey is required"),
    amountKey:
      vaiKey(v.amountKey, "", "AAP-3 θ: vai.amountKey") || fail("AAP-3 θ: vai.amountKey is required"),
    decimals: vaiDecimals(v.decimals, "AAP-3 θ: vai.decimals"),
  };
}

export const aap3Vai: VaiDialect<Aap3Theta> = {
  predicateNames: [],

  profileTools: ({ payTools, vai }) =>
    vai
      ? Object.fromEntries(
          payTools.map((tool) => [
            tool,
            { target: vai.recipientKey, amount: { key: vai.amountKey, decimals: vai.decimals } },
          ]),
        )
      : {},
};
