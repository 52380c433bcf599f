// Every zkVAI error code, in one place: the class that carries it, what it means, and where to read more.
// A caller branches on `err.code`; this table is what it may expect. test/sdk/errors.test.ts fails on an error
// class whose code is missing here, on a code here that no class carries, on a class name that disagrees, and on
// a docs pointer whose file or heading does not exist. No imports: sdk/core/errors.ts reads it.

/** The page every code points to unless it names its own: the error policy and how to branch on a code. */
export const ERRORS_DOC = "docs/ARCHITECTURE.md#errors";

export interface ErrorCodeInfo {
  /** The ZkvaiError subclass whose static `code` this is. */
  readonly error: string;
  /** What happened, and what was (not) done, for a reader who has only the code. */
  readonly meaning: string;
  /** Where to read more, relative to the package root (`path#anchor`); ERRORS_DOC when absent. */
  readonly docs?: string;
}

const PROTOCOL = "docs/PROTOCOL.md";
const RUNTIME = "docs/SOUNDNESS.md#the-provider-runtime-p7-p8";

export const ERROR_CODES = {
  // sdk/core/errors.ts: the root, and what a Session refuses
  ZKVAI: { error: "ZkvaiError", meaning: "the root; a subclass always carries its own code" },
  BAD_INPUT: {
    error: "InputError",
    meaning: "bad input to a command or entry point; nothing was run, written or sent",
  },
  BAD_CONFIGURATION: {
    error: "ConfigurationError",
    meaning:
      "the build's environment or project files (ZKVAI_BUILD_DIR, the instance table, --only) name something unusable",
  },
  BUILD_MISSING: {
    error: "BuildMissingError",
    meaning:
      "a built artifact (circuit, keys, verifier, contract artifact, npm package) is missing or out of date: run `npm run setup`",
    docs: "README.md#two-commands",
  },
  INVALID_RECORD: {
    error: "InvalidRecordError",
    meaning: "a record refused before anything was run or written",
  },
  INVALID_CALL: {
    error: "InvalidCallError",
    meaning:
      "a tool call refused before the tool ran (unknown tool, non-JSON args, bad amount, missing actionId)",
  },
  BAD_PROMISE_REF: {
    error: "PromiseRefError",
    meaning: "a promise in SessionOptions.promises does not parse",
  },
  IDEMPOTENCY_CONFLICT: {
    error: "IdempotencyConflictError",
    meaning: "an actionId or eventId seen before with other content; nothing was run or written",
  },
  SESSION_CLOSED: {
    error: "SessionClosedError",
    meaning: "the session is closing or closed (here or on-chain); no record or checkpoint can be added",
  },
  SESSION_OPEN_FAILED: {
    error: "SessionOpenError",
    meaning: "Session.open refused its options, or openSession did not land",
  },
  PROFILE_MISMATCH: {
    error: "ProfileMismatchError",
    meaning: "the session's profile is not the one its promises pin; nothing was written",
  },
  SESSION_RECOVERY_FAILED: {
    error: "SessionRecoveryError",
    meaning: "Session.recover cannot resume this session",
  },
  CHECKPOINT_MISMATCH: {
    error: "CheckpointMismatchError",
    meaning:
      "the store disagrees with a checkpoint the chain committed: an acknowledged record was lost or changed",
    docs: `${PROTOCOL}#checkpoints`,
  },
  SESSION_CLOSE_FAILED: {
    error: "SessionCloseError",
    meaning: "closeSession could not be sent, or the store disagrees; retry close()",
  },
  GUARD_REFUSED: {
    error: "GuardRefusal",
    meaning: "guard mode: the call would have violated a promise, so it was not run",
    docs: RUNTIME,
  },
  CALL_NOT_RUN: {
    error: "CallNotRunError",
    meaning: "the harness did not run the tool after all; recorded as blocked",
  },
  STORE_UNAVAILABLE: {
    error: "StoreUnavailableError",
    meaning: "guard mode: the store cannot take a write, so the call was not run",
    docs: RUNTIME,
  },
  RECORD_WRITE_FAILED: {
    error: "RecordWriteError",
    meaning: "the tool ran but its record could not be written",
    docs: RUNTIME,
  },
  RECORDED_TOOL_ERROR: {
    error: "RecordedToolError",
    meaning: "a replayed actionId whose first run failed: its stored error",
  },
  BEYOND_CAPACITY: {
    error: "BeyondCapacityError",
    meaning: "a record past what the registered circuits can prove; nothing was run or written",
    docs: `${PROTOCOL}#settleability`,
  },
  CHECKPOINT_BUDGET: {
    error: "CheckpointBudgetError",
    meaning: "checkpointNow() for a prefix the checkpoint budget does not cover yet",
    docs: `${PROTOCOL}#checkpoints`,
  },

  // sdk/core
  NOT_CANONICAL_JSON: { error: "CanonicalJsonError", meaning: "a value canonical JSON cannot hold" },
  UNENCODABLE: {
    error: "EncodingError",
    meaning: "a record the profile cannot encode",
    docs: `${PROTOCOL}#records-and-their-encoding`,
  },
  INPUT_COLLISION: {
    error: "InputCollisionError",
    meaning: "two parts of a circuit input name the same signal",
  },
  BAD_PATH: { error: "PathError", meaning: "a path the encoder refuses (not normal form)" },
  BAD_THETA: {
    error: "ThetaError",
    meaning: "a promise's θ its predicate refuses",
    docs: "docs/PREDICATES.md",
  },
  BAD_OBSERVATION: {
    error: "ObservationError",
    meaning:
      "a record whose observed fact is over a profile bound (too many values, too long a text) or malformed",
  },
  BAD_PROFILE: { error: "ProfileError", meaning: "an encoding profile that does not parse" },
  BAD_PYTHON_JSON: {
    error: "PythonJsonError",
    meaning: "text Python's json module would not read the same way",
  },
  BAD_RECORD: {
    error: "RecordError",
    meaning: "a record that does not parse",
    docs: `${PROTOCOL}#records-and-their-encoding`,
  },
  RECORD_TOO_LARGE: {
    error: "RecordSizeError",
    meaning: "a record over a size limit; nothing was written",
    docs: `${PROTOCOL}#records-and-their-encoding`,
  },
  SEGMENT_ERROR: {
    error: "SegmentError",
    meaning: "a trace that cannot be cut into the segments asked for",
    docs: `${PROTOCOL}#segmented-settlement`,
  },

  // sdk/chain, sdk/manifest
  BAD_DEPLOYMENT: {
    error: "DeploymentError",
    meaning: "a deployment file that is missing, unreadable or malformed",
  },
  BAD_MANIFEST: {
    error: "ManifestError",
    meaning: "a manifest file that is missing or is not a zkVAI manifest",
  },
  ESCROW_REVERTED: {
    error: "EscrowRevertError",
    meaning: "the escrow reverted the transaction; `revert` names its custom error",
    docs: `${PROTOCOL}#custom-errors`,
  },
  ESCROW_TX_FAILED: {
    error: "EscrowTxError",
    meaning: "a transaction could not be sent or confirmed; `transient` says whether to retry",
  },
  UNEXPECTED_CHAIN_STATE: {
    error: "ChainStateError",
    meaning:
      "the chain is not as the operation needs (a mined transaction reverted, an event or funds missing, a status the escrow does not define)",
  },

  // sdk/provider
  STORE_CONFLICT: {
    error: "StoreConflictError",
    meaning: "the trace store already holds other content under this key",
  },
  STORE_FAILED: { error: "StoreError", meaning: "the trace store could not be read or written" },
  STORE_SCHEMA: {
    error: "StoreSchemaError",
    meaning: "the Postgres trace store's schema is not this version's: run `vai store migrate`",
    docs: RUNTIME,
  },
  NO_VERIFIER: {
    error: "NoVerifierError",
    meaning: "the deployment has no verifier for the promise's predicate: no claim could settle",
  },

  // sdk/adapters
  BAD_HARNESS_INPUT: {
    error: "HarnessInputError",
    meaning: "bad input from the integrator or framework to an adapter",
  },
  OUTCOME_UNKNOWN: {
    error: "OutcomeUnknownError",
    meaning: "the harness never reported how a begun call ended",
  },
  FAILED_RESULT: {
    error: "FailedResult",
    meaning: "a result the framework treats as a failure, recorded as the call's error",
  },
  TOOL_REFUSED: {
    error: "ToolRefusedError",
    meaning: "the Session refused a tool call (its cause says why)",
  },
  OPENCLAW_TOOL_ERROR: { error: "OpenClawToolError", meaning: "a tool error as OpenClaw reports it" },
  APPROVAL_TIMEOUT: {
    error: "ApprovalTimeoutError",
    meaning: "a tool call's approval did not come within its timeout (the approver's abort reason)",
  },

  // sdk/dev
  DEV_NODE_FAILED: {
    error: "DevNodeError",
    meaning: "a development Hardhat node could not start, or exited on its own",
  },

  // sdk/user
  SETTLEMENT_INVALID: {
    error: "SettlementInvalid",
    meaning: "a link of the settlement's chain of evidence does not hold",
    docs: `${PROTOCOL}#verifying-a-settlement`,
  },
  SETTLEMENT_UNCHECKABLE: {
    error: "SettlementUncheckable",
    meaning: "the settlement could not be examined",
    docs: `${PROTOCOL}#verifying-a-settlement`,
  },
  NO_SUCH_CLAIM: { error: "NoSuchClaim", meaning: "the escrow holds no claim with this id" },
  CLAIM_NOT_SETTLED: {
    error: "ClaimNotSettled",
    meaning: "the claim exists but no proof settled it (open, overdue or defaulted)",
  },

  // prover
  TRACE_MISMATCH: {
    error: "TraceMismatchError",
    meaning: "the stored trace does not reproduce the session's on-chain commitment",
  },
  CLAIM_ERROR: { error: "ClaimError", meaning: "the claim cannot be answered now" },
  CLAIM_NOT_OPEN: {
    error: "ClaimNotOpenError",
    meaning: "the claim was settled, defaulted or withdrawn: nothing is left to answer",
    docs: `${PROTOCOL}#claim-and-pair`,
  },
  SESSION_NOT_CLOSED: { error: "SessionNotClosedError", meaning: "the session has no final commitment yet" },
  RECEIPT_WINDOW_OPEN: {
    error: "ReceiptWindowOpenError",
    meaning: "the session closed less than RECEIPT_WINDOW ago: no proof yet",
    docs: `${PROTOCOL}#receipts`,
  },
  CLAIM_REFUSED: { error: "Refusal", meaning: "the watcher will not answer the claim for good; it defaults" },
  CANNOT_REQUEUE: {
    error: "RequeueError",
    meaning: "requeue() of a claim the watcher has not recorded, or has not refused",
  },
  PROOF_FAILED: { error: "ProofError", meaning: "the prover could not make a proof" },
  RPC_UNAVAILABLE: {
    error: "RpcUnavailableError",
    meaning: "the RPC node failed every attempt; says nothing about the claim",
  },
  WATCHER_LOCKED: {
    error: "WatcherLockedError",
    meaning: "another claim watcher holds the state file's lock",
  },
  WATCHER_LEASE_LOST: {
    error: "LeaseLostError",
    meaning:
      "this watcher no longer holds the Postgres store's lease: it sends nothing until it takes it again",
    docs: RUNTIME,
  },
  CLAIM_ANSWERED_ELSEWHERE: {
    error: "AnsweredElsewhereError",
    meaning: "another watcher recorded this claim answered in the store: nothing to send",
    docs: RUNTIME,
  },
  WITNESS_FAILED: { error: "WitnessError", meaning: "the circuit's witness could not be computed" },
  SEGMENT_PROOF_FAILED: {
    error: "SegmentProofError",
    meaning: "a segment could not be proven",
    docs: `${PROTOCOL}#segmented-settlement`,
  },
  SEGMENT_WORKER_DIED: {
    error: "WorkerDied",
    meaning: "a worker ended while it held a segment; it may be tried elsewhere",
  },
  SEGMENT_QUEUE_TIMEOUT: {
    error: "SegmentQueueTimeout",
    meaning: "proveAll's timeout passed before every segment came back",
  },
  SEGMENT_PROOF_REJECTED: {
    error: "SegmentRejectedError",
    meaning: "a worker's segment proof kept failing to verify",
  },
  SEGMENT_DEAD_LETTERED: {
    error: "SegmentDeadLetteredError",
    meaning: "a segment failed every attempt: it is in the dead-letter queue",
  },

  // prover/artifacts: building the circuits (`vai setup`)
  TOOL_FAILED: {
    error: "ToolError",
    meaning: "a build tool (circom, snarkjs, solc, hardhat, a worker, a child process) failed",
  },
  BUILD_LOCKED: {
    error: "BuildLockedError",
    meaning: "another setup holds the build lock; wait for it to finish",
  },
  BAD_PTAU: {
    error: "PtauError",
    meaning: "the powers-of-tau file (VAI_PTAU) is missing, not bn128, not prepared, or too small",
    docs: "README.md#powers-of-tau-bring-your-own",
  },
  BAD_INSTANCES: {
    error: "InstanceTableError",
    meaning: "the instance table (circuits/instances.json) names something setup cannot build",
  },
  CORRUPT_FILE: {
    error: "CorruptFileError",
    meaning: "an r1cs, zkey or ptau file is truncated or not what its name says",
  },

  // bin/cli: the `vai` command
  ALREADY_REPORTED: {
    error: "AlreadyReported",
    meaning: "a command that already printed why it failed; exit 1 or its own exit code",
  },
  BAD_CEREMONY_USAGE: { error: "UsageError", meaning: "`vai ceremony` misused", docs: "docs/CEREMONY.md" },
  CLAIM_NOT_DUE: {
    error: "ClaimNotDueError",
    meaning: "`vai claim default` before the claim can default, or once resolved",
  },
  NODE_UNREACHABLE: {
    error: "NodeUnreachableError",
    meaning: "no JSON-RPC node answers at the configured URL",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
