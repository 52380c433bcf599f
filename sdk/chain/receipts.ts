// Receipts with keys: the provider signs one (signReceipt) for the session's user, and anyone checks one
// (verifyReceipt) exactly as the escrow's postReceipt will, before relying on it or posting it. The type, the
// domain and the digest are sdk/core/receipt.ts, shared with the contract.
import { isAddressEqual, recoverTypedDataAddress, type Address, type Hex } from "viem";
import {
  checkReceipt,
  RECEIPT_PRIMARY_TYPE,
  RECEIPT_TYPES,
  receiptDomain,
  SECP256K1_HALF_N,
  splitSignature,
  type Receipt,
} from "../core/receipt.js";
import { sessionIdProvider } from "./escrow-deploy.js";
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
  /** s above n/2 (the malleable twin), or a signature no key made: the escrow refuses it whoever signed. */
  | "non-canonical"
  /** A valid signature, by another key: a forgery, or a receipt for another session, chain or escrow. */
  | "wrong-signer";

export type ReceiptCheck =
  { ok: true; signer: Address } | { ok: false; reason: ReceiptRefusal; message: string; signer?: Address };

/**
 * Whether the escrow's postReceipt would accept `signature` for `receipt`, as far as the signature goes: the same
 * checks (root a field element, n ≥ 1, v 27 or 28, low s, a recoverable signer) and then the signer against
 * `provider`. The provider defaults to the session id's top 20 bytes, which openSession binds to the account that
 * opened the session (the escrow's `provider`), so no address needs to be trusted from whoever hands the receipt
 * over. Session state is not checked here: before close a receipt above the last entry and within the budget
 * folds as a checkpoint, and any other needs the session's one spare entry unspent, as after close
 * (EscrowClient.session's spareReceiptUsed tells).
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
  if (BigInt(split.s) > SECP256K1_HALF_N)
    return { ok: false, reason: "non-canonical", message: "signature s is in the upper half (malleable)" };
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({
      domain: receiptDomain(target.chainId, target.escrow),
      types: RECEIPT_TYPES,
      primaryType: RECEIPT_PRIMARY_TYPE,
      message,
      // Re-encoded with the normalised v, so what is recovered is what postReceipt will send.
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
