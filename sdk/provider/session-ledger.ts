// Idempotency keys: an actionId names one tool invocation, an eventId one authorization,
// grant or revoke. A retry with the same content gets the stored record; other content under
// a known key is refused. Rebuilt from the store on recovery, so it survives crashes.
import { createHash } from "node:crypto";
import { canonicalJson, type Json } from "../core/canonical.js";
import type { TraceRecord } from "../core/records.js";
import { IdempotencyConflictError } from "../core/errors.js";

const digest = (args: { [k: string]: Json }) =>
  createHash("sha256").update(canonicalJson(args)).digest("hex");
/** A record's content without its position. */
const contentKey = (r: TraceRecord) => canonicalJson({ ...r, seq: undefined, ts: undefined });

export type ActionClaim = { seq: number } | { release: () => void };

export class IdempotencyLedger {
  /** actionId → the executed call that consumed it (blocked records consume nothing). */
  private readonly actions = new Map<string, { seq: number; tool: string; argsKey: string }>();
  /** actionIds whose first call is running; a retry waits for its outcome. */
  private readonly running = new Map<string, { tool: string; argsKey: string; done: Promise<void> }>();
  private readonly events = new Map<string, { seq: number; key: string }>();

  /**
   * The seq of the stored call for a known actionId, or the right to run it first (call
   * release() once it is recorded or has failed to be); a concurrent retry waits for that.
   */
  async claim(actionId: string, tool: string, args: { [k: string]: Json }): Promise<ActionClaim> {
    const argsKey = digest(args);
    for (;;) {
      const prior = this.actions.get(actionId) ?? this.running.get(actionId);
      if (prior && (prior.tool !== tool || prior.argsKey !== argsKey)) {
        throw new IdempotencyConflictError(
          `actionId ${JSON.stringify(actionId)} already names a call of ${JSON.stringify(prior.tool)} with other args; nothing was run`,
        );
      }
      if (prior && "seq" in prior) return { seq: prior.seq };
      if (!prior) {
        // Registered in the same synchronous step as the check, so two waiters cannot both run it.
        let release!: () => void;
        const done = new Promise<void>((resolve) => (release = resolve));
        this.running.set(actionId, { tool, argsKey, done });
        return {
          release: () => {
            this.running.delete(actionId);
            release();
          },
        };
      }
      await prior.done;
    }
  }

  /** The seq of the stored event with this record's eventId and content; undefined when new. */
  knownEvent(record: TraceRecord): number | undefined {
    if (record.kind === "call" || record.eventId === undefined) return undefined;
    const known = this.events.get(record.eventId);
    if (!known) return undefined;
    if (known.key !== contentKey(record)) {
      throw new IdempotencyConflictError(
        `eventId ${JSON.stringify(record.eventId)} already names another event (seq ${known.seq}); nothing was written`,
      );
    }
    return known.seq;
  }

  /** Takes in a stored record's keys (the first use of a key wins). */
  track(record: TraceRecord): void {
    if (record.kind === "call") {
      if (record.actionId !== undefined && !record.blocked && !this.actions.has(record.actionId)) {
        this.actions.set(record.actionId, {
          seq: record.seq,
          tool: record.tool,
          argsKey: digest(record.args),
        });
      }
    } else if (record.eventId !== undefined && !this.events.has(record.eventId)) {
      this.events.set(record.eventId, { seq: record.seq, key: contentKey(record) });
    }
  }
}
