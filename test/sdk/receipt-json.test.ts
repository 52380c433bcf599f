// The receipt's JSON form (what a provider hands its user and `vai receipt` reads): round trip, and a clear
// InputError for each malformed field, before anything is checked on-chain.
import { describe, expect, it } from "vitest";
import { parseReceiptJson, receiptToJson, type SignedReceipt } from "../../sdk/chain/receipts.js";
import { InputError } from "../../sdk/core/errors.js";

const RECEIPT: SignedReceipt = {
  sessionId: `0x${"ab".repeat(32)}`,
  n: 25,
  root: 0x1234n,
  chainId: 31337,
  escrow: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  signature: `0x${"11".repeat(65)}`,
};

describe("receipt JSON", () => {
  it("round-trips, the root as 0x-hex (decimal also read)", () => {
    expect(parseReceiptJson(receiptToJson(RECEIPT))).toEqual(RECEIPT);
    const decimal = JSON.stringify({ ...JSON.parse(receiptToJson(RECEIPT)), root: "4660" });
    expect(parseReceiptJson(decimal).root).toBe(0x1234n);
  });

  it("refuses what the escrow could never take, naming the field", () => {
    const bad = (patch: Record<string, unknown>) =>
      JSON.stringify({ ...JSON.parse(receiptToJson(RECEIPT)), ...patch });
    expect(() => parseReceiptJson("{")).toThrow(InputError);
    expect(() => parseReceiptJson(bad({ n: "25" }))).toThrow(/receipt\.n/);
    expect(() => parseReceiptJson(bad({ n: 0 }))).toThrow(InputError);
    expect(() => parseReceiptJson(bad({ root: 12 }))).toThrow(/receipt\.root/);
    expect(() => parseReceiptJson(bad({ escrow: "0x12" }))).toThrow(/receipt\.escrow/);
    expect(() => parseReceiptJson(bad({ sessionId: "0x12" }))).toThrow(/session id/);
    expect(() => parseReceiptJson(bad({ signature: "zz" }))).toThrow(/receipt\.signature/);
  });
});
