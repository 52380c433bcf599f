// Session.open's writes, in the order recovery relies on: the store row first, then the
// writer claim, then openSession. A crash or a failed send after the row leaves a session
// Session.recover can finish opening; nothing before the row is written at all.
import type { Hex } from "viem";
import type { SessionOpenTx } from "../chain/escrow.js";
import { messageOf } from "../core/record-checks.js";
import { openingContext, type SessionContext, type SessionOptions } from "./session-options.js";
import { StoreConflictError, type TraceStore } from "./store.js";
import { SessionOpenError } from "../core/errors.js";

/** A new session, in the store and on-chain, or SessionOpenError saying which step failed. */
export async function openNewSession(
  opts: SessionOptions,
): Promise<{ ctx: SessionContext; openTx: SessionOpenTx }> {
  const { cover, ...ctx } = await openingContext(opts);
  const { store, escrow, sessionId, profile, secret, log } = ctx;
  const { user } = opts;
  const stored = store.createSession({ sessionId, secret, profile, user });
  claimWriter(store, sessionId, SessionOpenError);
  let openTx: SessionOpenTx;
  try {
    openTx = await escrow.openSession(sessionId, user, stored.profileHash, cover);
  } catch (e) {
    log.log("error", "session.open_failed", { sessionId, error: messageOf(e) });
    throw new SessionOpenError(
      `openSession(${sessionId}) failed, so no call may run on it (Session.recover retries it): ${messageOf(e)}`,
      { cause: e },
    );
  }
  log.log("info", "session.opened", { sessionId, user, txHash: openTx.txHash, gasUsed: openTx.gasUsed });
  logCoverage(log, sessionId, openTx);
  return { ctx, openTx };
}

/** The coverage openSession decided, logged: every promise that could not cover the session is a warning. */
export function logCoverage(log: SessionContext["log"], sessionId: Hex, openTx: SessionOpenTx): void {
  const covered = openTx.coverage.filter((c) => c.covered).map((c) => String(c.promiseId));
  log.log("info", "session.covered", { sessionId, promises: covered });
  for (const c of openTx.coverage.filter((x) => !x.covered))
    log.log("warn", "session.uncovered", {
      sessionId,
      promiseId: String(c.promiseId),
      reason: "the promise's free reserve is below its payout",
      available: String(c.available),
    });
}

/** Takes the store's writer claim on the session for this process, or throws `type` saying who holds it. */
export function claimWriter(
  store: TraceStore,
  sessionId: Hex,
  type: new (m: string, o?: ErrorOptions) => Error,
): void {
  try {
    store.claimWriter(sessionId);
  } catch (e) {
    if (!(e instanceof StoreConflictError)) throw e;
    throw new type(`session ${sessionId}: ${e.message}`, { cause: e });
  }
}
