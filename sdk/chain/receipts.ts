// Receipts with keys: the provider signs one (signReceipt) for the session's user, and anyone checks one
// (verifyReceipt) exactly as the escrow's postReceipt will, before relying on it or posting it. The type, the
// domain and the digest are sdk/core/receipt.ts, shared with the contract.
import { isAddressEqual, recoverTypedDataAddress, type Address, type Hex } from "viem";
import {
  checkReceipt,
  RECEIPT_PRIMARY_TYPE,
  RECEIPT_TYPES,
  receiptDomain,
  splitSignature,
  type Receipt,
} from "../core/receipt.js";
import { sessionIdProvider } from "./escrow-deploy.js";
import { InputError } from "../core/errors.js";
import type { Wallet } from "./network.js";

/** Which escrow a receipt is for: its chain and address, the EIP-712 domain's chainId and verifyingContract. */
export interface ReceiptTarget {
  chainId: number;
  escrow: Address;
}

/** A receipt as the provider hands it to the user: what it attests, where it is valid, and the signature. */
export interface SignedReceipt extends Receipt, ReceiptTarget {
  signature: Hex;
}

/**
 * The provider's signature over `receipt` (EIP-712, eth_signTypedData_v4): 65 bytes, low s, v 27 or 28, as
 * postReceipt takes it. Refuses (InputError) a receipt the escrow could never fold, so nothing unpostable is
 * handed out. The provider must sign only chain heads it will commit to: closing on fewer records than a
 * receipt it gave makes every claim on the session unprovable (it defaults and pays).
 */
export async function signReceipt(wallet: Wallet, target: ReceiptTarget, receipt: Receipt): Promise<Hex> {
  const message = checkReceipt(receipt);
  return wallet.signTypedData({
    account: wallet.account,
    domain: receiptDomain(target.chainId, target.escrow),
    types: RECEIPT_TYPES,
    primaryType: RECEIPT_PRIMARY_TYPE,
    message,
  });
}

/** Why verifyReceipt refused: the escrow would revert postReceipt with NotFieldElement, EmptyReceipt or BadReceiptSignature. */
export type ReceiptRefusal =
  /** The receipt itself (session id, n, root) or the signature's encoding (length, v). */
  | "malformed"
  /** A signature no key made (ecrecover finds no signer): the escrow refuses it whoever signed. A high-s twin is
   * not refused: splitSignature normalises it to the low one, which is what postReceipt sends. */
  | "non-canonical"
  /** A valid signature, by another key: a forgery, or a receipt for another session, chain or escrow. */
  | "wrong-signer";

export type ReceiptCheck =
  { ok: true; signer: Address } | { ok: false; reason: ReceiptRefusal; message: string; signer?: Address };

/**
 * Whether the escrow's postReceipt would accept `signature` for `receipt`, as far as the signature goes: the same
 * checks (root a field element, n ≥ 1, v 27 or 28, a recoverable signer) on the signature EscrowClient.postReceipt
 * sends, splitSignature's (a high s normalised to its low twin, which the escrow takes), and then the signer against
 * `provider`. The provider defaults to the session id's top 20 bytes, which openSession binds to the account that
 * opened the session (the escrow's `provider`), so no address needs to be trusted from whoever hands the receipt
 * over. Session state is not checked here: posted as no spare, a receipt folds as a checkpoint before close when
 * above the last entry and within the budget (and reverts with the rule's error otherwise); posted as the spare
 * (postReceipt's `{ spare: true }`), any receipt folds, before close or after, while the session's one spare
 * entry is unspent (EscrowClient.session's spareReceiptUsed tells).
 */
export async function verifyReceipt(
  target: ReceiptTarget,
  receipt: Receipt,
  signature: Hex,
  provider: Address = sessionIdProvider(receipt.sessionId),
): Promise<ReceiptCheck> {
  let message: Receipt;
  let split: ReturnType<typeof splitSignature>;
  try {
    message = checkReceipt(receipt);
    split = splitSignature(signature);
  } catch (e) {
    return { ok: false, reason: "malformed", message: (e as Error).message };
  }
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({
      domain: receiptDomain(target.chainId, target.escrow),
      types: RECEIPT_TYPES,
      primaryType: RECEIPT_PRIMARY_TYPE,
      message,
      // Re-encoded with the normalised v and s, so what is recovered is what postReceipt will send.
      signature: `${split.r}${split.s.slice(2)}${split.v.toString(16)}` as Hex,
    });
  } catch (e) {
    return { ok: false, reason: "non-canonical", message: `no signer recovers: ${(e as Error).message}` };
  }
  if (!isAddressEqual(signer, provider))
    return {
      ok: false,
      reason: "wrong-signer",
      signer,
      message: `signed by ${signer}, not by the session's provider ${provider}`,
    };
  return { ok: true, signer };
}

/** A signed receipt as JSON text: what a provider hands over and `vai receipt` reads (root as 0x-hex). */
export function receiptToJson(r: SignedReceipt): string {
  const { sessionId, n, root, chainId, escrow, signature } = r;
  return JSON.stringify({ sessionId, n, root: `0x${root.toString(16)}`, chainId, escrow, signature });
}

/** The receipt in `text` (receiptToJson's form), or an InputError naming what is wrong. */
export function parseReceiptJson(text: string): SignedReceipt {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new InputError(`a receipt must be JSON: ${(e as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null) throw new InputError("a receipt must be a JSON object");
  const field = <T>(k: string, ok: (v: unknown) => v is T, what: string): T => {
    if (!ok(raw[k])) throw new InputError(`receipt.${k} must be ${what}`);
    return raw[k];
  };
  const isHexString = (v: unknown): v is Hex => typeof v === "string" && /^0x[0-9a-fA-F]*$/.test(v);
  const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
  const root = field(
    "root",
    (v): v is string => typeof v === "string" && /^(0x[0-9a-fA-F]+|\d+)$/.test(v),
    "a 0x-hex or decimal string",
  );
  const receipt = {
    sessionId: field("sessionId", isHexString, "0x-hex"),
    n: field("n", isInt, "an integer"),
    root: BigInt(root),
    chainId: field("chainId", isInt, "an integer"),
    escrow: field("escrow", (v): v is Address => isHexString(v) && v.length === 42, "an address"),
    signature: field("signature", isHexString, "0x-hex"),
  };
  checkReceipt(receipt);
  return receipt;
}
