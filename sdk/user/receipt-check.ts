// A receipt the provider handed the user, checked as the escrow's postReceipt will check it (`vai receipt check`
// and the page run this): for this escrow and chain, signed by the session's provider, and what posting it does.
import type { EscrowClient } from "../chain/escrow.js";
import { parseReceiptJson, verifyReceipt, type SignedReceipt } from "../chain/receipts.js";
import type { Hex } from "viem";
import { InputError } from "../core/errors.js";

export interface ReceiptCheckReport {
  ok: boolean;
  receipt?: SignedReceipt;
  signer?: string;
  sessionClosed?: boolean;
  /** The session closed at fewer records than the receipt covers: posting it makes every claim default. */
  closedShort?: boolean;
  /** Until when it can be posted (unix seconds); null: any time before close, or no longer as the spare. */
  postUntil?: bigint | null;
  /** What to tell the user: the first line says what the receipt is (or why it is refused). */
  lines: string[];
}

/**
 * Until when the user can post a receipt on this session (docs/PROTOCOL.md "Receipts"): any time before close;
 * after close, as the session's one spare, until closedAt + RECEIPT_WINDOW (settleOpensAt), later only while no
 * claim on the session has been filed; never once the spare is spent.
 */
export async function receiptDeadline(
  escrow: EscrowClient,
  sessionId: Hex,
  session: { closed: boolean; spareReceiptUsed: boolean },
): Promise<{ until: bigint | null; line: string }> {
  if (!session.closed)
    return {
      until: null,
      line: "post it any time before the session closes (as a checkpoint, or as your one spare)",
    };
  if (session.spareReceiptUsed)
    return {
      until: null,
      line: "the session's one spare receipt is already spent: this one can no longer be posted",
    };
  const until = await escrow.settleOpensAt(sessionId);
  const now = (await escrow.chain.publicClient.getBlock()).timestamp;
  const at = new Date(Number(until) * 1000).toISOString();
  return now <= until
    ? {
        until,
        line: `post it as your spare by ${at} (after that, only while no claim on the session has been filed)`,
      }
    : {
        until,
        line: `the receipt window ended at ${at}: it can be posted only while no claim on the session has been filed`,
      };
}

/** Throws InputError for a receipt the escrow would refuse, as `vai receipt check` reports it. */
export async function checkReceiptOrThrow(escrow: EscrowClient, text: string) {
  const receipt = parseReceiptJson(text);
  if (
    receipt.chainId !== escrow.chain.chainId ||
    receipt.escrow.toLowerCase() !== escrow.address.toLowerCase()
  )
    throw new InputError(
      `the receipt is for escrow ${receipt.escrow} on chain ${receipt.chainId}, not ${escrow.address} on chain ${escrow.chain.chainId}`,
    );
  const check = await verifyReceipt(
    { chainId: receipt.chainId, escrow: receipt.escrow },
    receipt,
    receipt.signature,
  );
  if (!check.ok) throw new InputError(`the escrow would refuse this receipt: ${check.message}`);
  const session = await escrow.session(receipt.sessionId);
  return { receipt, signer: check.signer, session };
}

/** The lines `vai receipt check` prints for a receipt the escrow would accept. */
export function receiptLines(
  receipt: SignedReceipt,
  signer: string,
  session: { closed: boolean; finalN: number; checkpointCount: number; lastN: number },
): string[] {
  const short = session.closed && receipt.n > session.finalN;
  return [
    `receipt for the first ${receipt.n} records of session ${receipt.sessionId}, signed by its provider ${signer}`,
    session.closed
      ? short
        ? `the session closed at ${session.finalN} records, fewer than this receipt: post it (vai receipt post) and every claim defaults to you`
        : `the session closed at ${session.finalN} records; post it if you doubt the history behind the checkpoints`
      : `the session is open: ${session.checkpointCount} entries, the last at ${session.lastN} records`,
  ];
}

/** The page's form: never throws for a bad receipt, it says why. */
export async function checkReceipt(escrow: EscrowClient, text: string): Promise<ReceiptCheckReport> {
  try {
    const { receipt, signer, session } = await checkReceiptOrThrow(escrow, text);
    const closedShort = session.closed && receipt.n > session.finalN;
    const deadline = await receiptDeadline(escrow, receipt.sessionId, session);
    return {
      ok: true,
      receipt,
      signer,
      sessionClosed: session.closed,
      closedShort,
      postUntil: deadline.until,
      lines: [...receiptLines(receipt, signer, session), deadline.line],
    };
  } catch (e) {
    if (e instanceof InputError) return { ok: false, lines: [e.message] };
    throw e;
  }
}
