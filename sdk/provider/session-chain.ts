// The Session's reads and final write on the escrow: CHECKPOINT_INTERVAL (read once), the
// session as the escrow sees it, and closeSession with retries that notice a send which
// failed on our side but landed.
import type { Hex } from "viem";
import { isAddressEqual } from "viem";
import type { CoverOption, EscrowClient, SessionInfo, SessionOpenTx, TxResult } from "../chain/escrow.js";
import type { CheckpointPolicy } from "./checkpointer.js";
import { backoffMs, revertName } from "../chain/retry.js";
import { LeafLog } from "../core/leaf-log.js";
import type { Logger } from "./log.js";
import { messageOf } from "../core/record-checks.js";
import type { TraceRecord } from "../core/records.js";
import {
  CheckpointMismatchError,
  SessionCloseError,
  SessionOpenError,
  SessionRecoveryError,
} from "../core/errors.js";
import type { StoredSession, TraceStore } from "./store.js";
import type { CoveringPromise } from "./guard.js";
import { PREDICATE_LIST } from "../core/predicates/index.js";
import { segmentChainCapacity } from "../core/segments.js";

/** closeSession attempts before close() gives up (it may be called again). */
export const CLOSE_ATTEMPTS = 10;

const intervalByEscrow = new Map<string, Promise<number>>();

/** The escrow's CHECKPOINT_INTERVAL, read once per escrow (it is immutable). */
export function checkpointIntervalOf(escrow: EscrowClient): Promise<number> {
  const key = `${escrow.chain.chainId}:${escrow.address.toLowerCase()}`;
  let max = intervalByEscrow.get(key);
  if (!max) {
    max = escrow.constants().then((c) => c.checkpointInterval);
    max.catch(() => intervalByEscrow.delete(key));
    intervalByEscrow.set(key, max);
  }
  return max;
}

/**
 * The most records a claim on this session can be proven for: over the predicates of its promises
 * (of every predicate PREDICATE_LIST knows when it names none), the smallest of each one's largest
 * registered capacity, or segmentChainCapacity for one the escrow settles by segment chains. 0 when the
 * escrow serves none of them: no claim can be proven at all.
 */
export async function settleableRecords(
  escrow: EscrowClient,
  promises: readonly CoveringPromise[],
): Promise<number> {
  const codes =
    promises.length > 0 ? [...new Set(promises.map((p) => p.def.code))] : PREDICATE_LIST.map((d) => d.code);
  // A predicate with a segment verifier settles a session of any length up to a segment chain's limit.
  const largest = await Promise.all(
    codes.map(async (code) => {
      const segments = await escrow.segmentVerifier(code);
      if (segments) return segmentChainCapacity(segments.segmentSize);
      return Math.max(0, ...(await escrow.verifierSet(code)).capacities);
    }),
  );
  return promises.length > 0 ? Math.min(...largest) : Math.max(0, ...largest);
}

/** The escrow's view of the session, or undefined when it was never opened there. */
export async function onChainSession(escrow: EscrowClient, sessionId: Hex): Promise<SessionInfo | undefined> {
  try {
    return await escrow.session(sessionId);
  } catch (e) {
    if (revertName(e) === "UnknownSession") return undefined;
    throw e;
  }
}

/**
 * Session.recover's chain side: the session must be ours, match the store and still be open.
 * If the crash came between the store row and openSession, it is opened now, before any call
 * runs; if it came between closeSession and storing it, the final commitment is stored (when
 * the records reproduce it) and recovery is refused all the same.
 */
export async function resumeOnChain(
  escrow: EscrowClient,
  store: TraceStore,
  stored: StoredSession,
  records: readonly TraceRecord[],
  cover: CoverOption = "auto",
): Promise<{ checkpointInterval: number; info: SessionInfo | undefined; openTx: SessionOpenTx | undefined }> {
  const { sessionId } = stored;
  let checkpointInterval: number;
  let info: SessionInfo | undefined;
  try {
    [checkpointInterval, info] = await Promise.all([
      checkpointIntervalOf(escrow),
      onChainSession(escrow, sessionId),
    ]);
  } catch (e) {
    throw new SessionRecoveryError(`cannot read session ${sessionId} from the escrow: ${messageOf(e)}`, {
      cause: e,
    });
  }
  if (!info) {
    try {
      const openTx = await escrow.openSession(sessionId, stored.user, stored.profileHash, cover);
      return { checkpointInterval, info, openTx };
    } catch (e) {
      throw new SessionOpenError(`openSession(${sessionId}) failed again: ${messageOf(e)}`, { cause: e });
    }
  }
  const me = escrow.wallet?.account.address;
  if (me && !isAddressEqual(info.provider, me))
    throw new SessionRecoveryError(`session ${sessionId} was opened on-chain by another provider`);
  if (!isAddressEqual(info.user, stored.user) || info.profileHash !== stored.profileHash)
    throw new SessionRecoveryError(
      `session ${sessionId}: the store's user or profile differs from the chain's`,
    );
  if (info.closed) {
    if (records.length >= info.finalN) {
      const leaves = new LeafLog(stored.profile, stored.secret);
      for (const r of records) leaves.push(r);
      if (leaves.root(info.finalN) === info.finalRoot)
        store.addCheckpoint(sessionId, { n: info.finalN, root: info.finalRoot, final: true });
      leaves.dispose();
    }
    throw new SessionRecoveryError(
      `session ${sessionId} is closed (final n ${info.finalN}); nothing to resume`,
    );
  }
  return { checkpointInterval, info, openTx: undefined };
}

/**
 * closeSession(n, root), retried with the policy's backoff. Before each attempt `prepare` runs
 * (the checkpointer's reconcile). A send that "failed" but landed is recognised; a session
 * closed at another commitment, or a checkpoint mismatch, is not retried.
 */
export async function commitFinal(o: {
  escrow: EscrowClient;
  sessionId: Hex;
  n: number;
  root: bigint;
  retry: CheckpointPolicy["retry"];
  log: Logger;
  prepare: () => Promise<void>;
}): Promise<TxResult> {
  const { escrow, sessionId, n, root, log } = o;
  for (let attempt = 1; ; attempt++) {
    try {
      await o.prepare();
      return await escrow.closeSession(sessionId, n, root);
    } catch (e) {
      if (e instanceof SessionCloseError || e instanceof CheckpointMismatchError) throw e;
      const landed = await closedOnChain(escrow, sessionId, n, root);
      if (landed) return landed;
      if (attempt >= CLOSE_ATTEMPTS) {
        throw new SessionCloseError(
          `closeSession(${sessionId}, ${n}) failed ${attempt} times; call close() again: ${messageOf(e)}`,
          { cause: e },
        );
      }
      const delayMs = backoffMs(o.retry, attempt);
      log.log("warn", "close.failed", { sessionId, n, attempt, delayMs, error: messageOf(e) });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** The close transaction when the session is closed at (n, root); undefined when not closed or unreadable. */
async function closedOnChain(
  escrow: EscrowClient,
  sessionId: Hex,
  n: number,
  root: bigint,
): Promise<TxResult | undefined> {
  let info: SessionInfo;
  try {
    info = await escrow.session(sessionId);
  } catch {
    return undefined;
  }
  if (!info.closed) return undefined;
  if (info.finalN !== n || info.finalRoot !== root) {
    const hex = (x: bigint) => `0x${x.toString(16)}`;
    throw new SessionCloseError(
      `session ${sessionId} is closed on-chain at n ${info.finalN}, root ${hex(info.finalRoot)}, not at the recorded n ${n}, root ${hex(root)}`,
    );
  }
  try {
    const event = await escrow.closeOf(sessionId);
    if (!event) return undefined;
    const receipt = await escrow.chain.publicClient.getTransactionReceipt({ hash: event.txHash });
    return { txHash: event.txHash, gasUsed: receipt.gasUsed };
  } catch {
    return undefined;
  }
}
