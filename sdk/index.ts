// zkvai: the provider SDK. A Session records every tool call of an agent session in a TraceStore before it
// returns, checkpoints chain heads on the escrow and commits the final root on close; EscrowClient is the
// typed escrow. Proving lives in zkvai/prover, the user-side verifier in zkvai/user, development chains in
// zkvai/dev, and the pure protocol core in zkvai/core.
export {
  Session,
  MAX_PREVIEW_CHARS,
  UNSTORABLE_KEY,
  randomSecret,
  type CloseResult,
  type SessionOptions,
} from "./provider/session.js";
export {
  StoreConflictError,
  StoreError,
  StoreSchemaError,
  TraceStore,
  migrateStore,
  type MigrationReport,
  type StoredCheckpoint,
  type StoredPromise,
  type StoredSession,
} from "./provider/store.js";
export { NoVerifierError, registerPromise, type PromiseSpec } from "./provider/promises.js";
export { LeafHasher, processLeafHasher } from "./provider/leaf-hasher.js";
export { DEFAULT_POLICY, type CheckpointPolicy } from "./provider/checkpointer.js";
export { jsonLogger, memoryLogger, silentLogger, type Logger } from "./provider/log.js";
export type { CoveringPromise, PromiseRef } from "./provider/guard.js";
export * from "./chain/escrow.js";
export { deployContract, readArtifact, type Deployed } from "./chain/artifacts.js";
export {
  signReceipt,
  verifyReceipt,
  type ReceiptCheck,
  type ReceiptRefusal,
  type ReceiptTarget,
  type SignedReceipt,
} from "./chain/receipts.js";
export type { Receipt } from "./core/receipt.js";
export { DeploymentError, readDeployment, writeDeployment, type Deployment } from "./chain/deployment.js";
export { buildDir, BUILD_DIR_ENV } from "./chain/locations.js";
export { privateKeyWallet, rpcChain, type ChainHandle, type Wallet } from "./chain/network.js";
export * from "./core/errors.js";
export type { Json } from "./core/canonical.js";
export type { EncodingProfile } from "./core/profile.js";
export type { TraceRecord } from "./core/records.js";
