// An EscrowClient stand-in for tests of the recorder and its store alone: it answers constants()
// (CHECKPOINT_INTERVAL) and verifierSet (no verifiers), accepts openSession, and nothing else. A
// Session on it must be given a policy that never checkpoints, and is not closed.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, toHex, type Hex } from "viem";
import type { EscrowClient } from "../../sdk/chain/escrow.js";
import { Session, type SessionOptions } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";

export const NO_CHECKPOINTS = { everyRecords: Infinity, everyMs: Infinity };

export function offlineEscrow(checkpointInterval = 10): EscrowClient {
  const refuse = (what: string) => () =>
    Promise.reject(new Error(`offline escrow: ${what} is not available`));
  return {
    chain: { chainId: 0 },
    constants: async () => ({ proofWindow: 3n * 86_400n, claimWindow: 30n * 86_400n, checkpointInterval }),
    address: "0x000000000000000000000000000000000000dEaD",
    abi: [],
    // No registered circuit: the Session warns (session.no_circuit) and records without a capacity check.
    verifierSet: async () => ({ capacities: [], verifiers: [] }),
    segmentVerifier: async () => null,
    // A session no promise covers (openSession with cover []).
    openSession: async () => ({ txHash: `0x${"00".repeat(32)}`, gasUsed: 0n, coverage: [] }),
    checkpoint: refuse("checkpoint"),
    closeSession: refuse("closeSession"),
  } as unknown as EscrowClient;
}

let sessions = 0;

/**
 * A Session on the offline escrow, in a fresh SQLite store, that never checkpoints: the setup the Session tests
 * that need no chain share. `label` names the store's folder and seeds the session id.
 */
export async function openOfflineSession(
  label: string,
  opts: Omit<SessionOptions, "store" | "escrow" | "sessionId" | "user" | "policy">,
): Promise<{ session: Session; store: TraceStore; sessionId: Hex }> {
  const store = TraceStore.open(join(mkdtempSync(join(tmpdir(), `zkvai-${label}-`)), "trace.sqlite"));
  const sessionId = keccak256(toHex(`${label}:${process.pid}:${sessions++}`));
  const session = await Session.open({
    store,
    escrow: offlineEscrow(),
    sessionId,
    user: "0x1111111111111111111111111111111111111111",
    policy: NO_CHECKPOINTS,
    ...opts,
  });
  return { session, store, sessionId };
}
