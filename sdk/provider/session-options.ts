// What a Session is opened with, and Session.open's checks of it. Every option is checked, the
// escrow's CHECKPOINT_INTERVAL read and the covering promises' profiles compared with the session's
// (sdk/provider/session-promises.ts), before the store is written: a bad option leaves nothing behind that
// Session.recover would then have to resume.
import { randomBytes } from "node:crypto";
import { isAddress, isAddressEqual, zeroAddress, type Address, type Hex } from "viem";
import { sessionIdProvider, type CoverOption, type EscrowClient } from "../chain/escrow.js";
import { resolvePolicy, type CheckpointPolicy } from "./checkpointer.js";
import { parsePromises, type CoveringPromise, type PromiseRef } from "./guard.js";
import { FIELD_MODULUS } from "../core/hash.js";
import { silentLogger, type Logger } from "./log.js";
import { parseProfile, type EncodingProfile } from "../core/profile.js";
import { messageOf } from "../core/record-checks.js";
import { checkpointIntervalOf, settleableRecords } from "./session-chain.js";
import { planCoverage } from "./session-promises.js";
import { parseReceiptPolicy, type ReceiptPolicy } from "./session-receipts.js";
import type { TraceStore } from "./store.js";
import { SessionOpenError } from "../core/errors.js";

export function randomSecret(): bigint {
  return BigInt(`0x${randomBytes(32).toString("hex")}`) % FIELD_MODULUS;
}

export interface SessionOptions {
  store: TraceStore;
  escrow: EscrowClient;
  sessionId: Hex;
  user: Address;
  profile: EncodingProfile;
  /** The session's leaf-salt secret; random by default. It never leaves the store. */
  secret?: bigint;
  policy?: Partial<CheckpointPolicy>;
  /**
   * The promises covering the session, by predicate and θ: tools they gate (AAP-1's) need an actionId, and
   * guard mode checks them all. Given `cover` ids and no `promises`, the θ the store holds for those ids.
   */
  promises?: PromiseRef[];
  /**
   * Open the session even though the promises meant to cover it (`cover`'s ids; with "auto", those
   * registered with `promises`' θ, else every active promise of the provider) pin another profile than `profile`. The session
   * is then not covered by them, and a claim under them cannot pay; a `session.profile_mismatch` warning is
   * logged. Without it Session.open throws ProfileMismatchError, naming both profile hashes, before writing.
   */
  allowProfileMismatch?: boolean;
  /** Fail-closed guard mode: see call(). */
  guard?: boolean;
  /**
   * The on-chain promises that cover the session, decided once at openSession: each one's payout is earmarked
   * for this session when its free reserve holds it (docs/PROTOCOL.md "Coverage"). "auto" (the default) names
   * every active promise of the provider pinned to the profile; [] opens the session uncovered. A promise left
   * uncovered for want of free reserve is logged (`session.uncovered`) and listed in `openTx.coverage`.
   */
  cover?: CoverOption;
  /**
   * What to do with a record past the most the escrow's registered circuits can prove for this
   * session's promises (a claim on a longer session can only default): "refuse" (the default)
   * throws BeyondCapacityError before the tool runs; "warn" records it and logs
   * `session.beyond_capacity` once.
   */
  beyondCapacity?: BeyondCapacity;
  /**
   * Receipts for the user, signed with the provider's key: every `every` records and at close, handed to
   * `deliver` (the host's channel to the user). A user who holds one can stop a close short of it
   * (docs/PROTOCOL.md "Receipts").
   */
  receipts?: ReceiptPolicy;
  log?: Logger;
}

export type BeyondCapacity = "refuse" | "warn";

/** Session.recover's options: the user, profile and secret are the store's. */
export type RecoverOptions = Omit<SessionOptions, "user" | "profile" | "secret">;

export interface CloseResult {
  finalN: number;
  finalRoot: bigint;
  txHash: Hex;
  gasUsed: bigint;
}

/** A Session's settled options, shared by the modules it delegates to. */
export interface SessionContext {
  store: TraceStore;
  escrow: EscrowClient;
  sessionId: Hex;
  profile: EncodingProfile;
  secret: bigint;
  log: Logger;
  policy: CheckpointPolicy;
  promises: CoveringPromise[];
  guard: boolean;
  checkpointInterval: number;
  /** settleableRecords(): the most records a claim on the session can be proven for (0: none). */
  capacity: number;
  beyondCapacity: BeyondCapacity;
  receipts?: ReceiptPolicy;
}

/**
 * Session.open's options, checked and completed, with openSession's cover; or SessionOpenError (its
 * ProfileMismatchError, or the parsers' errors).
 */
export async function openingContext(opts: SessionOptions): Promise<SessionContext & { cover: CoverOption }> {
  checkClients(opts, SessionOpenError);
  const { store, escrow, sessionId, user } = opts;
  const profile = parseProfile(opts.profile);
  let promises = parsePromises(opts.promises ?? [], profile);
  const policy = resolvePolicy(opts.policy);
  const secret = opts.secret ?? randomSecret();
  if (!/^0x[0-9a-fA-F]{64}$/.test(sessionId))
    throw new SessionOpenError("sessionId must be 32 bytes of 0x-hex");
  // The escrow refuses an id not scoped to the sender; refusing it here writes nothing (sdk/chain/escrow.ts scopedSessionId).
  const sender = escrow.wallet?.account?.address;
  if (sender && !isAddressEqual(sessionIdProvider(sessionId), sender))
    throw new SessionOpenError(
      `sessionId ${sessionId} is not scoped to the provider ${sender}: its top 20 bytes must be that address (scopedSessionId)`,
    );
  if (!isAddress(user) || isAddressEqual(user, zeroAddress))
    throw new SessionOpenError(`user must be a non-zero address, got ${user}`);
  if (typeof secret !== "bigint" || secret < 0n || secret >= FIELD_MODULUS)
    throw new SessionOpenError("secret must be a field element");
  if (store.session(sessionId))
    throw new SessionOpenError(
      `session ${sessionId} is already in the trace store; Session.recover resumes it`,
    );
  const log = opts.log ?? silentLogger;
  const beyondCapacity = parseBeyondCapacity(opts.beyondCapacity, SessionOpenError);
  parseReceiptPolicy(opts.receipts); // refused here, before the escrow is read
  const allowMismatch = opts.allowProfileMismatch ?? false;
  if (typeof allowMismatch !== "boolean")
    throw new SessionOpenError("allowProfileMismatch must be a boolean");
  const cover = opts.cover ?? "auto";
  const plan = await planCoverage({ escrow, store, profile, cover, promises, allowMismatch, log });
  if (opts.promises === undefined && plan.refs.length > 0) promises = parsePromises(plan.refs, profile);
  let checkpointInterval: number;
  let capacity: number;
  try {
    [checkpointInterval, capacity] = await Promise.all([
      checkpointIntervalOf(escrow),
      settleableRecords(escrow, promises),
    ]);
  } catch (e) {
    throw new SessionOpenError(`cannot read the escrow's checkpoint interval and circuits: ${messageOf(e)}`, {
      cause: e,
    });
  }
  const ctx = { store, escrow, sessionId, profile, secret, log, policy, promises, checkpointInterval };
  const receipts = parseReceiptPolicy(opts.receipts);
  return {
    ...ctx,
    capacity,
    beyondCapacity,
    guard: opts.guard ?? false,
    cover: plan.cover,
    ...(receipts ? { receipts } : {}),
  };
}

/**
 * Refuses, with `Err`, a store or escrow client that is missing or is not one (a plain object, a
 * client without the wallet that must sign openSession), before anything reads or writes through it.
 */
export function checkClients(
  opts: { store?: unknown; escrow?: unknown },
  Err: new (message: string) => Error,
): void {
  const store = opts.store as Partial<TraceStore> | undefined;
  if (typeof store?.createSession !== "function" || typeof store.records !== "function")
    throw new Err(`store must be a TraceStore (TraceStore.open(path)), got ${describe(opts.store)}`);
  const escrow = opts.escrow as Partial<EscrowClient> | undefined;
  if (typeof escrow?.openSession !== "function" || typeof escrow.constants !== "function")
    throw new Err(
      `escrow must be an EscrowClient (EscrowClient.connect(chain, escrowAddress, providerWallet)), got ${describe(opts.escrow)}`,
    );
  // A real client carries its wallet (possibly undefined); the provider's account must sign every transaction.
  if ("wallet" in escrow && !escrow.wallet?.account)
    throw new Err(
      "the escrow client has no wallet to send from: connect it with the provider's wallet (escrow.as(wallet))",
    );
}

function describe(x: unknown): string {
  if (x === undefined || x === null) return String(x);
  return typeof x === "object" ? (x.constructor?.name ?? "an object") : typeof x;
}

/** The beyondCapacity option, checked: "refuse" unless given. */
export function parseBeyondCapacity(value: unknown, Err: new (message: string) => Error): BeyondCapacity {
  if (value === undefined) return "refuse";
  if (value === "refuse" || value === "warn") return value;
  throw new Err(`beyondCapacity must be "refuse" or "warn", got ${JSON.stringify(value)}`);
}
