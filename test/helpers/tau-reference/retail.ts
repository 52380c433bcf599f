// The retail arms (fixtures/vai-tau/SEMANTICS.md §5.1–§5.6, §7). Each takes the state before the call (the
// call is successful: rejected calls never reach an arm, §3.3) and gives its checks, or [] when it does not
// apply.
import { FIRE, PASS, UNSUPPORTED, check, norm, type EpisodeCall, type Outcome } from "./episode.js";
import { ONCE_PER_ORDER_TOOLS, ORDER_TOOLS, USER_TOOLS, type TauState } from "./state.js";

/** §5.1: the tools whose records belong to one user: the order tools and the user tools of §4. */
export const USER_SCOPED_TOOLS = new Set([...ORDER_TOOLS, ...USER_TOOLS]);
const PRODUCT_READS = new Set(["get_product_details", "get_item_details", "list_all_product_types"]);

/** §5.1 auth_first (fail-closed): a user-scoped tool or product read before any successful find_user_id_*. */
export function authFirst(state: TauState, call: EpisodeCall): Outcome[] {
  if (!USER_SCOPED_TOOLS.has(call.tool) && !PRODUCT_READS.has(call.tool)) return [];
  return [state.authId !== undefined ? PASS : { kind: "fire", failClosed: true }];
}

/**
 * §5.2 one_user: after authentication, the record's owner (args.user_id, else the stored order's user_id).
 */
export function oneUser(state: TauState, call: EpisodeCall): Outcome[] {
  if (!USER_SCOPED_TOOLS.has(call.tool) || state.authId === undefined) return [];
  const owner = call.args.user_id ?? state.orders.get(String(call.args.order_id))?.user_id;
  // An order never read (or read opaquely) has no known owner: no check.
  if (owner === undefined || owner === null) return [UNSUPPORTED];
  return [check(norm(owner) === norm(state.authId))];
}

const REQUIRED_STATUS: Record<string, string> = {
  cancel_pending_order: "pending",
  modify_pending_order_items: "pending",
  modify_pending_order_address: "pending",
  modify_pending_order_payment: "pending",
  return_delivered_order_items: "delivered",
  exchange_delivered_order_items: "delivered",
};

/** §5.3 status_precondition: the last order snapshot's status; fail-closed when the order was never read. */
export function statusPrecondition(state: TauState, call: EpisodeCall): Outcome[] {
  const required = REQUIRED_STATUS[call.tool];
  const orderId = call.args.order_id;
  if (required === undefined || orderId === undefined || orderId === null) return [];
  const snapshot = state.orders.get(String(orderId));
  if (snapshot === undefined) return [{ kind: "fire", failClosed: true }]; // observed status "never-read"
  if (snapshot.status === undefined || snapshot.status === null) return [UNSUPPORTED];
  return [check(norm(snapshot.status) === required)];
}

const LOCKED_TOOLS = new Set([
  "cancel_pending_order",
  "modify_pending_order_items",
  "modify_pending_order_address",
  "modify_pending_order_payment",
]);

/** §5.4 modify_items_lockout: no cancel/modify of an order whose items were already modified. */
export function modifyItemsLockout(state: TauState, call: EpisodeCall): Outcome[] {
  if (!LOCKED_TOOLS.has(call.tool)) return [];
  return [check(!state.itemsModified.has(String(call.args.order_id)))];
}

/**
 * §5.5 new_item_differs: item_ids[i] ≠ new_item_ids[i] for every pair; no check unless both are equal-length
 * lists.
 */
export function newItemDiffers(_state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "exchange_delivered_order_items" && call.tool !== "modify_pending_order_items") return [];
  const { item_ids: oldIds, new_item_ids: newIds } = call.args;
  if (!Array.isArray(oldIds) || !Array.isArray(newIds) || oldIds.length !== newIds.length)
    return [UNSUPPORTED];
  return oldIds.map((id, i) => check(id !== newIds[i]));
}

const CANCEL_REASONS = new Set(["no longer needed", "ordered by mistake"]);

/** §5.6 cancel_reason_enum: a cancellation's reason, normalized, is one of the two tau2 reasons. */
export function cancelReasonEnum(_state: TauState, call: EpisodeCall): Outcome[] {
  const reason = call.args.reason;
  if (call.tool !== "cancel_pending_order" || reason === undefined || reason === null) return [];
  return [check(CANCEL_REASONS.has(norm(reason)))];
}

/** §7 once_per_order: fires at the successful capped operation that makes an order's count reach 2. */
export function oncePerOrder(state: TauState, call: EpisodeCall): Outcome[] {
  if (!ONCE_PER_ORDER_TOOLS.has(call.tool)) return [];
  const before = state.cappedOperations.get(String(call.args.order_id)) ?? 0;
  return [before + 1 >= 2 ? FIRE : PASS];
}
