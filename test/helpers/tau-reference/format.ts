// The message arms (fixtures/vai-tau/SEMANTICS.md §6), shared by both domains. They are evaluated on each
// tau.assistant record before that message's calls run, and count a message's calls even if all are rejected.
import { FIRE, PASS, check, type AssistantTurn, type Outcome } from "./episode.js";
import type { TauState } from "./state.js";

/** §6.2: the exact notice text. */
export const TRANSFER_NOTICE = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.";

/** §6.2: whitespace runs are collapsed before the match; a blank message never holds the notice. */
export function containsNotice(text: string): boolean {
  if (text.trim().length === 0) return false;
  return text.replace(/\s+/g, " ").includes(TRANSFER_NOTICE);
}

/** §6.1 one_tool_at_a_time: at most one call per message. */
export function oneToolAtATime(_state: TauState, message: AssistantTurn): Outcome[] {
  return [check(message.calls.length <= 1)];
}

/** §6.1 tool_with_response: a message with calls has blank text. */
export function toolWithResponse(_state: TauState, message: AssistantTurn): Outcome[] {
  return [check(message.calls.length === 0 || message.text.trim().length === 0)];
}

/**
 * §6.2 transfer_notice_requires_call: a message with the notice needs a successful transfer earlier in the
 * run.
 */
export function transferNoticeRequiresCall(state: TauState, message: AssistantTurn): Outcome[] {
  if (!containsNotice(message.text)) return [];
  return [check(state.successfulTransfers.length > 0)];
}

/** §6.2 transfer_notice_after_success, at tau.end: every successful transfer was followed by a notice. */
export function transferNoticeAfterSuccessAtEnd(state: TauState): Outcome[] {
  return [state.pendingTransfers.length === 0 ? PASS : FIRE];
}
