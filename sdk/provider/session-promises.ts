// Which on-chain promises a new session is meant to be covered by, checked against its profile before
// anything is written. A promise pins the profile it was registered with (its profileHash), and the escrow
// covers a session only by promises pinned to the session's profile: named ones (SessionOptions.cover) make openSession
// revert, and "auto" silently leaves the others out, so the session would record with no coverage and the
// user learn it only when a claim fails. Session.open refuses that with ProfileMismatchError, naming both
// hashes, unless the caller opts out (allowProfileMismatch), and then logs it.
import type { Address } from "viem";
import type { CoverOption, EscrowClient } from "../chain/escrow.js";
import { activeRegistrations, type RegisteredPromise } from "../chain/escrow-coverage.js";
import { paramsHashOf } from "../core/predicates/index.js";
import { profileHash, type EncodingProfile } from "../core/profile.js";
import { describeError, revertName } from "../chain/retry.js";
import type { CoveringPromise, PromiseRef } from "./guard.js";
import type { Logger } from "./log.js";
import type { TraceStore } from "./store.js";
import { ProfileMismatchError, SessionOpenError } from "../core/errors.js";

/** An on-chain promise as the check reads it. */
type Registered = RegisteredPromise;

export interface CoverageRequest {
  escrow: EscrowClient;
  store: TraceStore;
  profile: EncodingProfile;
  /** SessionOptions.cover: the promises named for openSession, or "auto". */
  cover: CoverOption;
  /** SessionOptions.promises, parsed. */
  promises: readonly CoveringPromise[];
  allowMismatch: boolean;
  log: Logger;
}

/**
 * openSession's cover, and the θ of the named promises the store holds (for the gated tools and guard
 * mode, when the caller gave none); or ProfileMismatchError / SessionOpenError, with nothing written.
 */
export async function planCoverage(
  req: CoverageRequest,
): Promise<{ cover: CoverOption; refs: PromiseRef[] }> {
  const { escrow, profile, log } = req;
  const sessionHash = profileHash(profile);
  if (req.cover !== "auto") {
    const named = await namedPromises(escrow, req.cover);
    const mismatched = named.filter((p) => p.profileHash !== sessionHash);
    refuseMismatch(req, sessionHash, mismatched, "the promises in cover");
    const cover = named.filter((p) => p.profileHash === sessionHash).map((p) => p.promiseId);
    const refs: PromiseRef[] = [];
    for (const id of cover) {
      const stored = req.store.promise(id);
      if (stored) refs.push({ predicate: stored.predicate, theta: stored.theta });
      else log.log("warn", "session.promise_theta_unknown", { promiseId: id });
    }
    return { cover, refs };
  }
  // "auto": what the escrow would cover the session by is the sender's active promises pinned to the profile.
  const sender = escrow.wallet?.account?.address;
  if (!sender) return { cover: "auto", refs: [] };
  const active = await activePromises(escrow, sender);
  if (req.promises.length > 0) {
    for (const p of req.promises) {
      const code = p.def.code;
      const params = paramsHashOf(p.def, p.theta);
      const same = active.filter((r) => r.predicateId === code && r.paramsHash === params);
      if (same.length === 0) {
        log.log("warn", "session.promise_unregistered", { index: p.index, predicate: p.predicate });
        continue;
      }
      if (!same.some((r) => r.profileHash === sessionHash))
        refuseMismatch(req, sessionHash, same, `promises[${p.index}] (${p.predicate}) as registered`);
    }
  } else if (active.length > 0 && !active.some((r) => r.profileHash === sessionHash)) {
    refuseMismatch(req, sessionHash, active, "the provider's active promises");
  }
  return { cover: "auto", refs: [] };
}

/** Throws ProfileMismatchError for `mismatched`, or logs it when the caller opted out. */
function refuseMismatch(
  req: CoverageRequest,
  sessionHash: bigint,
  mismatched: readonly Registered[],
  what: string,
): void {
  if (mismatched.length === 0) return;
  const list = mismatched.map((p) => `promise ${p.promiseId} pins profile ${hex(p.profileHash)}`).join(", ");
  const pairs = mismatched.map(({ promiseId, profileHash }) => ({ promiseId, profileHash }));
  if (req.allowMismatch) {
    req.log.log("warn", "session.profile_mismatch", {
      sessionProfileHash: hex(sessionHash),
      mismatched: pairs.map((p) => ({ promiseId: p.promiseId.toString(), profileHash: hex(p.profileHash) })),
      note: "allowProfileMismatch: the session is not covered by these promises",
    });
    return;
  }
  throw new ProfileMismatchError(
    `the session's profile hashes to ${hex(sessionHash)}, but ${what} pin another profile (${list}): the escrow would not cover the session by them, and a claim under them could never pay. Open the session with the profile they were registered with, or pass allowProfileMismatch: true to open it without their coverage`,
    sessionHash,
    pairs,
  );
}

/** The named promises, read from the escrow: each must exist and be active. */
async function namedPromises(escrow: EscrowClient, ids: unknown): Promise<Registered[]> {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== "bigint" || id <= 0n))
    throw new SessionOpenError('cover must be "auto" or an array of positive bigint promise ids');
  if (new Set(ids).size !== ids.length) throw new SessionOpenError("cover names a promise twice");
  return Promise.all(
    ids.map(async (promiseId) => {
      const p = await read(() => escrow.promise(promiseId), `promise ${promiseId}`);
      if (p.retiredAt !== 0n)
        throw new SessionOpenError(`cover: promise ${promiseId} is retired and covers no new session`);
      return { promiseId, predicateId: p.predicateId, paramsHash: p.paramsHash, profileHash: p.profileHash };
    }),
  );
}

/** The provider's active promises, read through `read` so that a failure is a SessionOpenError. */
function activePromises(escrow: EscrowClient, provider: Address): Promise<Registered[]> {
  return read(() => activeRegistrations(escrow, provider), "the provider's promises");
}

async function read<T>(fn: () => Promise<T>, what: string): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (revertName(e) === "UnknownPromise")
      throw new SessionOpenError(`cover: ${what} does not exist on this escrow`, { cause: e });
    throw new SessionOpenError(`cannot read ${what} from the escrow: ${describeError(e)}`, { cause: e });
  }
}

const hex = (x: bigint) => `0x${x.toString(16).padStart(64, "0")}`;
