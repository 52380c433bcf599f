// Session.close's commitment: the final (count, root) goes on-chain only once nothing can
// still add to it and the store is known to hold every record it covers, since a final root
// over records the store lost could never be proven.
import type { Checkpointer } from "./checkpointer.js";
import type { LeafLog } from "../core/leaf-log.js";
import { messageOf } from "../core/record-checks.js";
import { commitFinal } from "./session-chain.js";
import type { CloseResult, SessionContext } from "./session-options.js";
import { SessionCloseError } from "../core/errors.js";

/** What close() takes from the Session it ends. */
export interface ClosingSession {
  /** Calls still running: their records belong under the final root. */
  inflight: ReadonlySet<Promise<unknown>>;
  checkpointer: Checkpointer;
  leaves: LeafLog;
}

/**
 * Waits for calls in flight, drops checkpoints the final commitment makes redundant, checks
 * the store against the acknowledged count, commits with closeSession (retried), stores the
 * final checkpoint and releases the writer claim and the leaves.
 */
export async function commitClose(ctx: SessionContext, session: ClosingSession): Promise<CloseResult> {
  const { store, escrow, sessionId, log, policy } = ctx;
  const { inflight, checkpointer, leaves } = session;
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
  await checkpointer.supersede();
  const n = leaves.length;
  let stored: number;
  try {
    store.checkFile();
    stored = store.count(sessionId);
  } catch (e) {
    throw new SessionCloseError(`cannot read the trace store: ${messageOf(e)}`, { cause: e });
  }
  if (stored !== n) {
    throw new SessionCloseError(
      `session ${sessionId}: the store holds ${stored} records, the recorder acknowledged ${n}; not committing`,
    );
  }
  const root = leaves.root(n);
  const tx = await commitFinal({
    escrow,
    sessionId,
    n,
    root,
    retry: policy.retry,
    log,
    // Stores checkpoints that landed unseen, and refuses to close over one that disagrees.
    prepare: () => checkpointer.reconcile(),
  });
  store.addCheckpoint(sessionId, { n, root, final: true });
  store.releaseWriter(sessionId);
  leaves.dispose();
  return { finalN: n, finalRoot: root, txHash: tx.txHash, gasUsed: tx.gasUsed };
}
