// A sent transaction's receipt, which must be a success: shared by artifacts.ts and its page twin.
import type { Hex, TransactionReceipt } from "viem";
import { ChainStateError } from "./escrow-errors.js";
import type { ChainHandle } from "./network.js";

export async function receiptOf(chain: ChainHandle, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success")
    throw new ChainStateError(`transaction ${hash} reverted`, { details: { txHash: hash } });
  return receipt;
}
