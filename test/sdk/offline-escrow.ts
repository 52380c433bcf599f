// An EscrowClient stand-in for tests of the recorder and its store alone: it answers constants()
// (CHECKPOINT_INTERVAL) and verifierSet (no verifiers), accepts openSession, and nothing else. A
// Session on it must be given a policy that never checkpoints, and is not closed.
import type { EscrowClient } from "../../sdk/chain/escrow.js";

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
