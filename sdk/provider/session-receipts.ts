// Receipts for the user, on a policy. A receipt is the provider's signature over (session, n, head of the first
// n records); a user who holds one can post it to the escrow, and a close that falls short of it, or commits
// another history, can then only default (docs/PROTOCOL.md "Receipts"). That protection exists only for a user
// who has the receipt, so a session can hand them over itself: every `every` records and at close, to the
// `deliver` callback the host wires to its harness's channel to the user (docs/integrations: where each
// harness can carry one). A delivery that fails is logged and never fails the tool call that triggered it.
import type { SignedReceipt } from "../chain/receipts.js";
import { SessionOpenError } from "../core/errors.js";
import type { Logger } from "./log.js";

export interface ReceiptPolicy {
  /** Sign and deliver a receipt after every `every` records (none on a count if omitted). */
  every?: number;
  /** Sign and deliver a receipt of the whole session before close commits it (default true). */
  atClose?: boolean;
  /** Hands one receipt to the user: the host's channel (a message, MCP `_meta`, a webhook). */
  deliver(receipt: SignedReceipt): void | Promise<void>;
}

/** The policy, checked at Session.open: a bad one is refused before anything is written. */
export function parseReceiptPolicy(policy: unknown): ReceiptPolicy | undefined {
  if (policy === undefined) return undefined;
  const p = policy as Partial<ReceiptPolicy>;
  if (typeof p !== "object" || p === null || typeof p.deliver !== "function")
    throw new SessionOpenError("receipts must be { deliver(receipt), every?, atClose? }");
  if (p.every !== undefined && !(Number.isSafeInteger(p.every) && p.every > 0))
    throw new SessionOpenError(`receipts.every must be a positive whole number of records, got ${p.every}`);
  if (p.atClose !== undefined && typeof p.atClose !== "boolean")
    throw new SessionOpenError("receipts.atClose must be a boolean");
  return { every: p.every, atClose: p.atClose ?? true, deliver: p.deliver };
}

/**
 * Signs and delivers receipts as records are stored, one after another in the order of their n (a later receipt
 * never reaches the user before an earlier one, and `latest` only moves forward); close() waits for the
 * deliveries in flight. Signing under load can take longer for one receipt than the next, so they are chained,
 * not raced.
 */
export class ReceiptCourier {
  private queue: Promise<void> = Promise.resolve();
  private lastDelivered = 0;
  /** The newest receipt handed to `deliver`: what a harness channel attaches to its next result. */
  latest: SignedReceipt | undefined;

  constructor(
    private readonly policy: ReceiptPolicy,
    private readonly sign: (n: number) => Promise<SignedReceipt>,
    private readonly log: Logger,
    private readonly sessionId: string,
  ) {}

  /** After a record is stored: a receipt when the count reaches a multiple of `every`. */
  recorded(count: number): void {
    const every = this.policy.every;
    if (every !== undefined && count % every === 0) this.send(count);
  }

  /** Before close commits: a receipt of every record, unless one of them all went out already. */
  async closing(count: number): Promise<void> {
    if (this.policy.atClose && count > 0 && this.lastDelivered !== count) this.send(count);
    await this.queue;
  }

  private send(n: number): void {
    this.lastDelivered = n;
    // Signed now (the head of n records is fixed), delivered after every earlier receipt.
    const signed = this.sign(n);
    // A rejection is handled below, in order; this keeps it from being reported as unhandled meanwhile.
    signed.catch(() => undefined);
    this.queue = this.queue.then(async () => {
      try {
        const receipt = await signed;
        this.latest = receipt;
        await this.policy.deliver(receipt);
        this.log.log("info", "session.receipt_delivered", { sessionId: this.sessionId, n });
      } catch (e) {
        this.log.log("error", "session.receipt_failed", {
          sessionId: this.sessionId,
          n,
          error: e instanceof Error ? e.message : String(e),
        });
      }
    });
  }
}
