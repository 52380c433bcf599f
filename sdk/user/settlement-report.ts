// What a settlement check concludes (SettlementReport), and the one rule both settlement paths (`settle` and
// `settleSegments`) are checked by: the money followed the verdict.
import { getAddress, isAddressEqual, type Address, type Hex } from "viem";
import { SettlementInvalid } from "./errors.js";

export interface SettlementReport {
  claimId: bigint;
  sessionId: Hex;
  promiseId: bigint;
  violated: boolean;
  circuit: string;
  verifier: Address;
  txHash: Hex;
  blockNumber: bigint;
  publicInputs: string[];
  beneficiary: Address;
  amount: bigint;
  /**
   * The verifier's key is a development key (the manifest marks it insecureDevSetup, or its ptau insecure):
   * anyone could have forged the proof, so the settlement shows nothing about the session.
   */
  insecureKeys: boolean;
  /** What was established, in order. */
  checks: string[];
}

/**
 * The money followed the verdict: the settlement credited payout + bond to the session's user for violated,
 * the bond to its provider for satisfied (one rule for `settle` and `settleSegments`).
 */
export function checkCredited(o: {
  violated: boolean;
  session: { user: Address; provider: Address };
  promise: { payout: bigint };
  claim: { bond: bigint };
  event: { beneficiary: Address; amount: bigint };
  checks: string[];
}): { beneficiary: Address; amount: bigint } {
  const { violated, session, promise, claim, event, checks } = o;
  const [beneficiary, amount] = violated
    ? [session.user, promise.payout + claim.bond]
    : [session.provider, claim.bond];
  if (!isAddressEqual(event.beneficiary, beneficiary) || event.amount !== amount)
    throw new SettlementInvalid(
      `the settlement credited ${event.amount} wei to ${event.beneficiary}, not ${amount} to ${beneficiary}`,
    );
  checks.push(
    `the escrow credited ${amount} wei to ${violated ? "the user" : "the provider"} ${getAddress(beneficiary)}`,
  );
  return { beneficiary, amount };
}
