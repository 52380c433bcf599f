// The session state the reference rebuilds from earlier successful tool results and user turns
// (fixtures/vai-tau/SEMANTICS.md §3.1, §4, §5.14). Nothing comes from the task or the database: every fact
// here was observed in the trace before the call being checked.
import { isJsonObject, parseResult, type EpisodeCall, type JsonObject, type JsonValue } from "./episode.js";

/** §4: the fixed clock, 2024-05-15 15:00:00; "today" is 2024-05-15. */
export const TODAY = "2024-05-15";
/** §5.9 cancel_eligibility: booked within 24 h of the clock. */
export const BOOKED_WITHIN_24H_FROM = "2024-05-14T15:00:00";

/** `${flight_number}@${date}`: the key of flight statuses and routes. */
export const flightKey = (flightNumber: JsonValue | undefined, date: JsonValue | undefined) =>
  `${String(flightNumber)}@${String(date)}`;

export interface Route {
  origin: string;
  destination: string;
}

/** A stored reservation: the latest snapshot, where it was observed, and its flights' routes (§4). */
export interface StoredReservation {
  snapshot: JsonObject;
  observedAt: number;
}

/** A cancellation target of required_transfer_after_flown_cancellation (§5.14). */
export interface CancellationBinding {
  reservationId: string;
  byProse: boolean;
  /**
   * Event position (see TauState.position) at which the target was first seen flown; undefined until then.
   */
  triggeredAt?: number;
}

export class TauState {
  /** §4 find_user_id*: the first non-empty result. */
  authId: string | undefined;
  /** §3.1: ids the user typed, lowercased. */
  readonly userIdsMentioned = new Set<string>();
  /** §4: the latest snapshot of each entity, by key. */
  readonly orders = new Map<string, JsonObject>();
  readonly users = new Map<string, JsonObject>();
  readonly reservations = new Map<string, StoredReservation>();
  /** §4 search / get_flight_status: the last observed status of a flight on a date. */
  readonly flightStatus = new Map<string, string>();
  /** §4 search results and stored reservations: the (origin, destination) of a flight on a date. */
  readonly searchedRoutes = new Map<string, Route>();
  /** §4: orders with a successful modify_pending_order_items. */
  readonly itemsModified = new Set<string>();
  /** §4 update_reservation_flights: the first pre-change snapshot (billing baseline) of each cabin change. */
  readonly cabinChangeBaseline = new Map<string, JsonObject>();
  /** §4 transfer_to_human_agents: benchmark seqs of successful transfers. */
  readonly successfulTransfers: number[] = [];
  /** §6.2: transfers not yet followed by a notice. */
  pendingTransfers: number[] = [];
  /** §7 once_per_order: successful capped operations per order. */
  readonly cappedOperations = new Map<string, number>();
  /** §5.14 required_transfer_after_flown_cancellation. */
  readonly cancellationBindings: CancellationBinding[] = [];
  /** Event positions of successful transfers (to compare with a binding's trigger position). */
  readonly transferPositions: number[] = [];
  /** A counter over user turns and calls, in walk order: "after the call at which it triggered". */
  position = 0;
}

export const ORDER_TOOLS = new Set([
  "get_order_details",
  "cancel_pending_order",
  "modify_pending_order_items",
  "modify_pending_order_address",
  "modify_pending_order_payment",
  "return_delivered_order_items",
  "exchange_delivered_order_items",
]);
/** §7 once_per_order: the capped operations. */
export const ONCE_PER_ORDER_TOOLS = new Set(["exchange_delivered_order_items", "modify_pending_order_items"]);
export const USER_TOOLS = new Set(["get_user_details", "modify_user_address"]);
const RESERVATION_TOOLS = new Set([
  "get_reservation_details",
  "book_reservation",
  "update_reservation_flights",
  "update_reservation_baggages",
  "update_reservation_passengers",
  "cancel_reservation",
]);

/**
 * §4 entity tools: replace the stored entity with the result object that carries the key, never merge;
 * an opaque result for a key the args name leaves an empty entity, so the old snapshot is forgotten.
 */
function storeEntity(
  store: Map<string, JsonObject>,
  keyField: string,
  call: EpisodeCall,
  parsed: JsonValue | undefined,
): string | undefined {
  if (isJsonObject(parsed) && parsed[keyField] !== undefined && parsed[keyField] !== null) {
    const key = String(parsed[keyField]);
    store.set(key, parsed);
    return key;
  }
  const named = call.args[keyField];
  if (named !== undefined && named !== null) {
    store.set(String(named), {});
    return String(named);
  }
  return undefined;
}

/** §4: applies one successful call's result to the state (after that call's checks). */
export function applyResult(state: TauState, call: EpisodeCall): void {
  const parsed = parseResult(call.result);
  const tool = call.tool;
  if (tool.startsWith("find_user_id")) {
    const id = String(call.result ?? "").trim();
    if (id.length > 0 && state.authId === undefined) state.authId = id;
  }
  if (tool === "search_direct_flight" || tool === "search_onestop_flight") {
    // One-stop results are lists of two legs: flatten one level.
    const flights = Array.isArray(parsed) ? parsed.flatMap((f) => (Array.isArray(f) ? f : [f])) : [];
    for (const flight of flights) {
      if (!isJsonObject(flight) || flight.flight_number === undefined || flight.flight_number === null)
        continue;
      const date = flight.date ?? call.args.date;
      const key = flightKey(flight.flight_number, date);
      state.flightStatus.set(key, String(flight.status));
      state.searchedRoutes.set(key, {
        origin: String(flight.origin),
        destination: String(flight.destination),
      });
    }
  }
  if (tool === "get_flight_status") {
    const status = isJsonObject(parsed)
      ? String(parsed.status)
      : String(call.result ?? "")
          .trim()
          .toLowerCase();
    state.flightStatus.set(flightKey(call.args.flight_number, call.args.date), status);
  }
  if (ORDER_TOOLS.has(tool)) storeEntity(state.orders, "order_id", call, parsed);
  if (USER_TOOLS.has(tool)) storeEntity(state.users, "user_id", call, parsed);
  if (RESERVATION_TOOLS.has(tool)) {
    // Stored through a scratch map so the snapshot keeps where it was observed (§4 reservations).
    const scratch = new Map<string, JsonObject>();
    const key = storeEntity(scratch, "reservation_id", call, parsed);
    if (key !== undefined) {
      const before = state.reservations.get(key)?.snapshot;
      const after = scratch.get(key)!;
      if (tool === "update_reservation_flights" && before !== undefined) {
        const changed = before.cabin != null && after.cabin != null && before.cabin !== after.cabin;
        if (changed && !state.cabinChangeBaseline.has(key)) state.cabinChangeBaseline.set(key, before);
      }
      state.reservations.set(key, { snapshot: after, observedAt: call.benchmarkSeq });
    }
  }
  if (tool === "modify_pending_order_items") state.itemsModified.add(String(call.args.order_id));
  if (ONCE_PER_ORDER_TOOLS.has(tool)) {
    const order = String(call.args.order_id);
    state.cappedOperations.set(order, (state.cappedOperations.get(order) ?? 0) + 1);
  }
  if (tool === "send_certificate") {
    const user = state.users.get(String(call.args.user_id));
    // A new certificate now exists, so the stored list of payment methods is no longer the user's list.
    if (user !== undefined) {
      const { payment_methods: _dropped, ...rest } = user;
      state.users.set(String(call.args.user_id), rest);
    }
  }
  if (tool === "cancel_reservation") bindCancellation(state, String(call.args.reservation_id), false);
  if (tool === "transfer_to_human_agents") {
    state.successfulTransfers.push(call.benchmarkSeq);
    state.pendingTransfers.push(call.benchmarkSeq);
    state.transferPositions.push(state.position);
  }
}

export function bindCancellation(state: TauState, reservationId: string, byProse: boolean): void {
  if (!state.cancellationBindings.some((b) => b.reservationId === reservationId))
    state.cancellationBindings.push({ reservationId, byProse });
}

/** The stored profile of a user, and the reservations stored with that owner (§5.10, §5.11). */
export function ownedReservations(state: TauState, userId: string): JsonObject[] {
  return [...state.reservations.values()]
    .map((r) => r.snapshot)
    .filter((s) => s.user_id !== undefined && String(s.user_id) === userId);
}

/**
 * Every observed route: search results, then the flights of every stored reservation (§5.9 route_preserved).
 */
export function observedRoute(state: TauState, flightNumber: JsonValue, date: JsonValue): Route | undefined {
  const key = flightKey(flightNumber, date);
  const searched = state.searchedRoutes.get(key);
  if (searched !== undefined) return searched;
  for (const { snapshot } of state.reservations.values()) {
    const flights = Array.isArray(snapshot.flights) ? snapshot.flights : [];
    for (const f of flights)
      if (isJsonObject(f) && flightKey(f.flight_number, f.date) === key)
        return { origin: String(f.origin), destination: String(f.destination) };
  }
  return undefined;
}

export type Flown = "flown" | "not-flown" | "unknown";

const DECISIVE_NOT_FLOWN = new Set(["cancelled", "available", "delayed", "on time"]);

/**
 * §5.9 "Flown": a segment is flown when its observed status is flying/landed, or when it has no decisive
 * status and its date is before today; a same-day or unparseable date without a decisive status is unknown.
 * Any flown segment makes the reservation flown; otherwise any unknown segment makes it unknown.
 */
export function reservationFlown(state: TauState, reservation: JsonObject): Flown {
  const flights = Array.isArray(reservation.flights) ? reservation.flights : [];
  let unknown = !Array.isArray(reservation.flights);
  for (const f of flights) {
    if (!isJsonObject(f)) {
      unknown = true;
      continue;
    }
    const status = state.flightStatus.get(flightKey(f.flight_number, f.date));
    if (status === "flying" || status === "landed") return "flown";
    if (status !== undefined && DECISIVE_NOT_FLOWN.has(status)) continue;
    const date = typeof f.date === "string" && /^\d{4}-\d{2}-\d{2}$/.test(f.date) ? f.date : undefined;
    if (date === undefined || date === TODAY) unknown = true;
    else if (date < TODAY) return "flown";
  }
  return unknown ? "unknown" : "not-flown";
}

const MEMBERSHIP_BONUS: Record<string, number> = { regular: 0, silver: 1, gold: 2 };
const CABIN_BASE: Record<string, number> = { basic_economy: 0, economy: 1, business: 2 };

/**
 * §5.13: max(0, total − free), free = (membership bonus + cabin base) × passengers; undefined if a fact is
 * missing.
 */
export function requiredNonfreeBags(
  membership: JsonValue | undefined,
  cabin: JsonValue | undefined,
  passengers: JsonValue | undefined,
  totalBaggages: JsonValue | undefined,
): number | undefined {
  if (typeof membership !== "string" || !(membership in MEMBERSHIP_BONUS)) return undefined;
  if (typeof cabin !== "string" || !(cabin in CABIN_BASE)) return undefined;
  if (!Array.isArray(passengers) || !Number.isInteger(totalBaggages)) return undefined;
  const free = (MEMBERSHIP_BONUS[membership] + CABIN_BASE[cabin]) * passengers.length;
  return Math.max(0, (totalBaggages as number) - free);
}
