// zkvai/prover: the provider's answer to a claim. Deploys an escrow and its verifiers from the manifest,
// registers promises, proves a claim from the trace store (checking every on-chain commitment first) and
// settles it; the watcher answers every claim on the provider's promises as it is filed.
export { deployZkVai, type ZkVaiDeployment } from "./artifacts/deploy.js";
export {
  answerClaim,
  ClaimError,
  ClaimNotOpenError,
  pickCircuit,
  prepareClaim,
  proveClaim,
  ReceiptWindowOpenError,
  SessionNotClosedError,
  TraceMismatchError,
  type ClaimAnswer,
} from "./claims.js";
export { ClaimAnswerer } from "./claim-answerer.js";
export { ClaimWatcher, type WatcherOptions } from "./watcher.js";
export { RequeueError, WatcherLockedError } from "./watcher-state.js";
export { ProofError, prove, releaseProver, verifyLocally, type ProofResult } from "./prove.js";
export {
  circuitArtifacts,
  loadManifest,
  manifestPath,
  verifyArtifactHashes,
  type CircuitEntry,
  type Manifest,
} from "../sdk/manifest/manifest.js";
export { evaluatePromise, traceImportOptions, type Evaluation, type LocalProof } from "./evaluate.js";
