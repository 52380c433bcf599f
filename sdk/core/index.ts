// zkvai/core: the pure protocol core. No I/O: records and their canonical JSON, hashing, the Merkle
// commitment, the record encoding, the predicates (θ schemas, evaluators, witness layouts), and what a
// claim's proof is about (public inputs, proof packing, the circuit rule). Everything else builds on it.
export * from "./canonical.js";
export * from "./claim.js";
export * from "./encoding.js";
export * from "./errors.js";
export * from "./hash.js";
export * from "./merkle.js";
export * from "./opening.js";
export * from "./checkpoints.js";
export * from "./profile.js";
export * from "./receipt.js";
export * from "./records.js";
export { importVaiJsonl, type ImportOptions } from "./import-vai.js";
export {
  importTauJsonl,
  importTauRecords,
  parseTauPromise,
  tauBenchmarkSeq,
  type ImportedTauTrace,
  type TauEvent,
  type TauPromise,
} from "./import-tau.js";
export { PREDICATES, paramsHashOf, predicateById } from "./predicates/index.js";
export type { PredicateDefinition, Verdict } from "./predicates/types.js";
export { parsePromiseDocument, type PromiseDocument } from "./promise-document.js";
export { parseTraceText, type ParsedTrace } from "./trace-text.js";
