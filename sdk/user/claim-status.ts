// How a claim ended, from the escrow's own events: settled by a proof (and which way) or defaulted.
import { formatEther, type Address, type Hex } from "viem";
import { ClaimStatus, type EscrowClient } from "../chain/escrow.js";
import { verdictLabel } from "../core/claim.js";

export interface Resolution {
  event: "ClaimSettled" | "ClaimDefaulted";
  txHash: Hex;
  blockNumber: bigint;
  violated?: boolean;
  beneficiary: Address;
  amount: bigint;
  summary: string;
}

/** The event that closed the claim; undefined while it is open (or was never filed). */
export async function claimResolution(
  escrow: EscrowClient,
  claimId: bigint,
  status: ClaimStatus,
): Promise<Resolution | undefined> {
  if (status === ClaimStatus.Settled) {
    const [l] = await escrow.settlementsOf(claimId);
    if (!l) return undefined;
    const { violated, beneficiary, amount } = l.args;
    return {
      event: "ClaimSettled",
      txHash: l.txHash,
      blockNumber: l.blockNumber,
      violated,
      beneficiary,
      amount,
      summary: `settled by proof: ${verdictLabel(violated)}, ${formatEther(amount)} ETH to ${beneficiary}`,
    };
  }
  if (status === ClaimStatus.Defaulted) {
    const [l] = await escrow.defaultsOf(claimId);
    if (!l) return undefined;
    const { beneficiary, amount } = l.args;
    return {
      event: "ClaimDefaulted",
      txHash: l.txHash,
      blockNumber: l.blockNumber,
      beneficiary,
      amount,
      summary: `defaulted (no proof in time): ${formatEther(amount)} ETH to ${beneficiary}`,
    };
  }
  return undefined;
}
