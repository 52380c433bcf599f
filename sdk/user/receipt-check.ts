// A receipt the provider handed the user, checked as the escrow's postReceipt will check it (`vai receipt check`
// and the page run this): for this escrow and chain, signed by the session's provider, and what posting it does.
import type { EscrowClient } from "../chain/escrow.js";
import { parseReceiptJson, verifyReceipt, type SignedReceipt } from "../chain/receipts.js";
import { InputError } from "../core/errors.js";

export interface ReceiptCheckReport {
  ok: boolean;
  receipt?: SignedReceipt;
  signer?: string;
  sessionClosed?: boolean;
  /** The session closed at fewer records than the receipt covers: posting it makes every claim default. */
  closedShort?: boolean;
  /** What to tell the user: the first line says what the receipt is (or why it is refused). */
  lines: string[];
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
    return {
      ok: true,
      receipt,
      signer,
      sessionClosed: session.closed,
      closedShort,
      lines: receiptLines(receipt, signer, session),
    };
  } catch (e) {
    if (e instanceof InputError) return { ok: false, lines: [e.message] };
    throw e;
  }
}
