// zkvai/user: what a user runs to check a settlement without trusting the provider: the proof the settle
// transaction carried, re-verified against public inputs rebuilt from the escrow's storage, and the verifier
// the escrow called traced back to the manifest's key (docs/PROTOCOL.md, "Verifying a settlement").
export {
  checkEscrowContracts,
  checkPoseidon3,
  manifestCircuitAt,
  SettlementUncheckable,
  verifySettlement,
  type SettlementReport,
} from "./verify-settlement.js";
export { checkPromise, type PromiseReport } from "./check-promise.js";
export { SettlementInvalid } from "./evidence.js";
export { ManifestError, readManifest } from "../../prover/artifacts/manifest.js";
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
