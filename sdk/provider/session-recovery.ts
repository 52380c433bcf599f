// Session.recover: a session resumes from what the store holds, and only once the chain's
// checkpoints agree with it, so a store that lost or changed acknowledged records is noticed
// before any new record extends it. The writer claim is released again on any failure, so a
// fixed cause can be retried in the same process.
import type { SessionOpenTx } from "../chain/escrow.js";
import { resolvePolicy, type Checkpointer } from "./checkpointer.js";
import { parsePromises } from "./guard.js";
import { silentLogger } from "./log.js";
import type { TraceRecord } from "../core/records.js";
import { resumeOnChain, settleableRecords } from "./session-chain.js";
import { claimWriter } from "./session-open.js";
import { parseReceiptPolicy } from "./session-receipts.js";
import {
  checkClients,
  parseBeyondCapacity,
  type RecoverOptions,
  type SessionContext,
} from "./session-options.js";
import type { StoredSession } from "./store.js";
import { SessionRecoveryError } from "../core/errors.js";

/**
 * Builds the recovered session from its context and stored records; the checkpointer is the
 * one it records with, reconciled here against the chain before the session is handed out.
 */
export type BuildRecovered<S> = (
  ctx: SessionContext,
  records: readonly TraceRecord[],
  openTx: SessionOpenTx | undefined,
) => { session: S; checkpointer: Checkpointer; abandon: () => void };

export async function recoverSession<S>(opts: RecoverOptions, build: BuildRecovered<S>): Promise<S> {
  checkClients(opts, SessionRecoveryError);
  const { store, sessionId } = opts;
  const stored = store.session(sessionId);
  if (!stored)
    throw new SessionRecoveryError(`session ${sessionId} is not in the trace store; Session.open creates it`);
  const promises = parsePromises(opts.promises ?? [], stored.profile);
  const policy = resolvePolicy(opts.policy);
  const log = opts.log ?? silentLogger;
  claimWriter(store, sessionId, SessionRecoveryError);
  try {
    return await resume(opts, stored, { promises, policy, log }, build);
  } catch (e) {
    store.releaseWriter(sessionId);
    throw e;
  }
}

async function resume<S>(
  opts: RecoverOptions,
  stored: StoredSession,
  settled: Pick<SessionContext, "promises" | "policy" | "log">,
  build: BuildRecovered<S>,
): Promise<S> {
  const { store, escrow, sessionId } = opts;
  const { promises, policy, log } = settled;
  // A guarded call whose process stopped while its tool ran (or whose outcome could not be stored) left its
  // reservation: its "outcome unknown" record is stored now, at the next seq, before the records are read,
  // so the session resumes after it (docs/PROTOCOL.md "Recording faults").
  for (const unknown of store.settlePending(sessionId))
    log.log("warn", "session.outcome_unknown", {
      sessionId,
      seq: unknown.seq,
      tool: unknown.kind === "call" ? unknown.tool : undefined,
    });
  const records = store.records(sessionId);
  const beyondCapacity = parseBeyondCapacity(opts.beyondCapacity, SessionRecoveryError);
  const { checkpointInterval, info, openTx } = await resumeOnChain(
    escrow,
    store,
    stored,
    records,
    opts.cover,
  );
  const capacity = await settleableRecords(escrow, promises);
  const ctx = { store, escrow, sessionId, profile: stored.profile, secret: stored.secret, log, policy };
  const { session, checkpointer, abandon } = build(
    {
      ...ctx,
      promises,
      checkpointInterval,
      capacity,
      beyondCapacity,
      guard: opts.guard ?? false,
      ...(opts.receipts ? { receipts: parseReceiptPolicy(opts.receipts) } : {}),
    },
    records,
    openTx,
  );
  try {
    // Throws CheckpointMismatchError when a checkpoint commits records the store lost or changed.
    await checkpointer.reconcile();
    const { checkpoints } = checkpointer.stats;
    if (info && checkpoints !== info.checkpointCount) {
      throw new SessionRecoveryError(
        `session ${sessionId}: ${checkpoints} Checkpointed events found, the escrow counts ${info.checkpointCount}; does the client's fromBlock precede the session?`,
      );
    }
  } catch (e) {
    abandon(); // the half-built session's leaves, and the leaf hasher's copy of them
    throw e;
  }
  const { checkpoints } = checkpointer.stats;
  checkpointer.recorded();
  log.log("info", "session.recovered", {
    sessionId,
    records: records.length,
    checkpoints,
    reopened: !!openTx,
  });
  return session;
}
