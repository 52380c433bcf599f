// Session.open's writes, in the order recovery relies on: the store row first, then the
// writer claim, then openSession. A crash or a failed send after the row leaves a session
// Session.recover can finish opening; nothing before the row is written at all.
import type { Hex } from "viem";
import type { TxResult } from "./chain/escrow.js";
import { messageOf } from "./core/record-checks.js";
import { openingContext, type SessionContext, type SessionOptions } from "./session-options.js";
import { StoreConflictError, type TraceStore } from "./store.js";
import { SessionOpenError } from "./core/errors.js";

/** A new session, in the store and on-chain, or SessionOpenError saying which step failed. */
export async function openNewSession(
  opts: SessionOptions,
): Promise<{ ctx: SessionContext; openTx: TxResult }> {
  const ctx = await openingContext(opts);
  const { store, escrow, sessionId, profile, secret, log } = ctx;
  const { user } = opts;
  const stored = store.createSession({ sessionId, secret, profile, user });
  claimWriter(store, sessionId, SessionOpenError);
  let openTx: TxResult;
  try {
    openTx = await escrow.openSession(sessionId, user, stored.profileHash);
  } catch (e) {
    log.log("error", "session.open_failed", { sessionId, error: messageOf(e) });
    throw new SessionOpenError(
      `openSession(${sessionId}) failed, so no call may run on it (Session.recover retries it): ${messageOf(e)}`,
      { cause: e },
    );
  }
  log.log("info", "session.opened", { sessionId, user, txHash: openTx.txHash, gasUsed: openTx.gasUsed });
  return { ctx, openTx };
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
