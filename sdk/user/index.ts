// zkvai/user: what a user runs to check a settlement without trusting the provider, with a manifest and the
// chain alone: the proof the settle transaction carried, re-verified against public inputs rebuilt from the
// escrow's storage, and the verifier the escrow called traced back to the manifest's key by compiling its
// source here (docs/PROTOCOL.md, "Verifying a settlement").
export { verifySettlement, type SettlementReport } from "./verify-settlement.js";
export {
  checkEscrowContracts,
  checkPoseidon3,
  checkVerifier,
  insecureKeys,
  type CheckedVerifier,
} from "./deployment-check.js";
export { checkPromise, type PromiseReport } from "./check-promise.js";
// One verdict line for `vai verify` and the check page (sdk/page), and the page's other checks, also the CLI's.
export { validLine, verdictOf, type Verdict, type VerdictKind } from "./verdict.js";
export { checkPromiseDocument, type PromiseDocumentCheck } from "./promise-document.js";
export { checkReceipt, type ReceiptCheckReport } from "./receipt-check.js";
export { ClaimNotSettled, NoSuchClaim, SettlementInvalid, SettlementUncheckable } from "./errors.js";
export { ManifestError, readManifest } from "../manifest/manifest.js";
export { rpcChain, type ChainHandle } from "../chain/network.js";
// Receipts the provider hands the user during a session: checked here as the escrow's postReceipt will check them.
export {
  verifyReceipt,
  type ReceiptCheck,
  type ReceiptRefusal,
  type ReceiptTarget,
  type SignedReceipt,
} from "../chain/receipts.js";
export type { Receipt } from "../core/receipt.js";
