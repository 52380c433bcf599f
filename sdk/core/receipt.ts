// The receipt (protocol v2): the provider's EIP-712 signature over (sessionId, n, root), root being its
// chain head after the session's first n records. The provider hands receipts to the session's user as the
// session runs; the user may post one to the escrow (EscrowClient.postReceipt), which folds it into the
// session's accumulator like a checkpoint, so a provider that signed n records cannot commit to fewer and
// still prove the claim. One definition for TypeScript and Solidity: contracts/EscrowBase.sol
// (RECEIPT_TYPEHASH, DOMAIN_SEPARATOR, receiptDigest) encodes the same domain and type, and
// test/contracts/receipts.test.ts holds the two digests equal. Pure: hashing only, no I/O, no keys.
import { hashTypedData, isAddress, isHex, size, type Address, type Hex } from "viem";
import { InputError } from "./errors.js";
import { FIELD_MODULUS } from "./hash.js";

/** The EIP-712 domain's name and version; chainId and verifyingContract are the escrow's chain and address. */
export const RECEIPT_DOMAIN_NAME = "zkVAI Escrow";
export const RECEIPT_DOMAIN_VERSION = "2";

/** EIP-712 types: `Receipt(bytes32 sessionId,uint32 n,uint256 root)`, the escrow's RECEIPT_TYPEHASH. */
export const RECEIPT_TYPES = {
  Receipt: [
    { name: "sessionId", type: "bytes32" },
    { name: "n", type: "uint32" },
    { name: "root", type: "uint256" },
  ],
} as const;

export const RECEIPT_PRIMARY_TYPE = "Receipt";

/** What a receipt attests: the session's chain head over its first `n` records is `root`. */
export interface Receipt {
  sessionId: Hex;
  n: number;
  root: bigint;
}

/** The receipt's EIP-712 domain: a signature for one escrow on one chain is worthless on any other. */
export interface ReceiptDomain {
  name: typeof RECEIPT_DOMAIN_NAME;
  version: typeof RECEIPT_DOMAIN_VERSION;
  chainId: number;
  verifyingContract: Address;
}

/** secp256k1's order n / 2: the escrow accepts only signatures with s at most this (no malleable twin). */
export const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
/** secp256k1's group order n. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const UINT32_MAX = 2 ** 32 - 1;

export function receiptDomain(chainId: number, escrow: Address): ReceiptDomain {
  if (!Number.isSafeInteger(chainId) || chainId < 1) throw new InputError(`chain id ${chainId} is not valid`);
  if (!isAddress(escrow, { strict: false })) throw new InputError(`escrow ${escrow} is not an address`);
  return {
    name: RECEIPT_DOMAIN_NAME,
    version: RECEIPT_DOMAIN_VERSION,
    chainId,
    verifyingContract: escrow,
  };
}

/**
 * The receipt as the escrow can take it, or an InputError saying why not: a 32-byte session id, n a uint32 of
 * at least 1 (an entry covering no records is never foldable), root a field element (the escrow refuses r and
 * above with NotFieldElement). A receipt that fails here must not be signed: it could never be posted.
 */
export function checkReceipt(receipt: Receipt): Receipt {
  const { sessionId, n, root } = receipt;
  if (typeof sessionId !== "string" || !isHex(sessionId, { strict: true }) || size(sessionId) !== 32)
    throw new InputError(`receipt session id ${String(sessionId)} is not 32 bytes of hex`);
  if (!Number.isInteger(n) || n < 1 || n > UINT32_MAX)
    throw new InputError(`receipt n ${n} is not an integer in [1, 2^32 - 1]`);
  if (typeof root !== "bigint" || root < 0n || root >= FIELD_MODULUS)
    throw new InputError(`receipt root ${String(root)} is not a field element`);
  return { sessionId, n, root };
}

/** The EIP-712 digest the provider signs, equal to the escrow's receiptDigest(sessionId, n, root) view. */
export function receiptDigest(domain: ReceiptDomain, receipt: Receipt): Hex {
  return hashTypedData({
    domain,
    types: RECEIPT_TYPES,
    primaryType: RECEIPT_PRIMARY_TYPE,
    message: receipt,
  });
}

/** A 65-byte signature as postReceipt takes it: v (27 or 28), r, s. */
export interface SplitSignature {
  v: number;
  r: Hex;
  s: Hex;
}

/**
 * Splits r ‖ s ‖ v: a v of 0 or 1 (a y parity, as some signers write it) becomes 27 or 28; any other v, or a
 * length other than 65 bytes, is an InputError. A high s is normalised to its low twin (n − s, the other v),
 * the same key's signature of the same message: the escrow takes only low s, and a provider must not be able
 * to hand out a receipt the escrow would refuse.
 */
export function splitSignature(signature: Hex): SplitSignature {
  if (typeof signature !== "string" || !isHex(signature, { strict: true }) || size(signature) !== 65)
    throw new InputError(
      `a receipt signature is 65 bytes of hex (r, s, v), got ${String(signature).slice(0, 140)}`,
    );
  const r = `0x${signature.slice(2, 66)}` as Hex;
  let s = `0x${signature.slice(66, 130)}` as Hex;
  const raw = Number.parseInt(signature.slice(130, 132), 16);
  let v = raw < 2 ? raw + 27 : raw;
  if (v !== 27 && v !== 28)
    throw new InputError(`receipt signature v is ${raw}, expected 27 or 28 (or 0 or 1)`);
  if (BigInt(s) > SECP256K1_HALF_N) {
    s = `0x${(SECP256K1_N - BigInt(s)).toString(16).padStart(64, "0")}` as Hex;
    v = v === 27 ? 28 : 27;
  }
  return { v, r, s };
}
