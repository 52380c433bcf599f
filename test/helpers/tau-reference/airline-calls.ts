// The airline per-call arms (fixtures/vai-tau/SEMANTICS.md §5.7–§5.13). Each takes the state before a
// successful call and gives its checks ([] when it does not apply). Airline never treats "reservation never
// read" as a violation (§3): every missing fact is an "unsupported" note.
import {
  PASS,
  UNSUPPORTED,
  check,
  isJsonObject,
  norm,
  type EpisodeCall,
  type JsonObject,
  type JsonValue,
  type Outcome,
} from "./episode.js";
import {
  BOOKED_WITHIN_24H_FROM,
  flightKey,
  observedRoute,
  ownedReservations,
  requiredNonfreeBags,
  reservationFlown,
  type TauState,
} from "./state.js";

const storedReservation = (state: TauState, call: EpisodeCall): JsonObject | undefined =>
  state.reservations.get(String(call.args.reservation_id))?.snapshot;

/** §5.7, §5.11: args.user_id, or else the user_id of the stored reservation args.reservation_id. */
function actingUser(state: TauState, call: EpisodeCall): string | undefined {
  const id = call.args.user_id ?? storedReservation(state, call)?.user_id;
  return id === undefined || id === null ? undefined : String(id);
}

const isCount = (x: JsonValue | undefined): x is number => Number.isInteger(x);

/** §5.9: the multiset of (flight_number, date), sorted, as one comparable string; undefined if not a list. */
function flightSet(flights: JsonValue | undefined): string | undefined {
  if (!Array.isArray(flights)) return undefined;
  return flights
    .map((f) => (isJsonObject(f) ? flightKey(f.flight_number, f.date) : "?"))
    .sort()
    .join(",");
}

const ACTING_USER_TOOLS = new Set([
  "book_reservation",
  "update_reservation_flights",
  "update_reservation_baggages",
  "update_reservation_passengers",
  "cancel_reservation",
]);

/**
 * §5.7 user_id_from_user: the acting user id appeared in an earlier user turn (not the agent's, not a
 * tool's).
 */
export function userIdFromUser(state: TauState, call: EpisodeCall): Outcome[] {
  if (!ACTING_USER_TOOLS.has(call.tool)) return [];
  const user = actingUser(state, call);
  if (user === undefined) return [UNSUPPORTED];
  return [check(state.userIdsMentioned.has(norm(user)))];
}

/**
 * §5.8 bookable_status: each booked (flight, date) was last observed "available"; an unobserved one is
 * unsupported.
 */
export function bookableStatus(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "book_reservation") return [];
  if (!Array.isArray(call.args.flights)) return [UNSUPPORTED];
  return call.args.flights.map((f) => {
    const status = isJsonObject(f) ? state.flightStatus.get(flightKey(f.flight_number, f.date)) : undefined;
    return status === undefined ? UNSUPPORTED : check(status === "available");
  });
}

/** §5.9 basic_economy_no_modify: a change of the flight set needs an economy or business reservation. */
export function basicEconomyNoModify(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "update_reservation_flights") return [];
  const reservation = storedReservation(state, call);
  if (reservation === undefined) return [UNSUPPORTED];
  const proposed = flightSet(call.args.flights);
  const current = flightSet(reservation.flights);
  if (proposed === undefined || current === undefined) return [UNSUPPORTED];
  if (proposed === current) return []; // a cabin-only change is exempt: no check
  if (reservation.cabin === undefined || reservation.cabin === null) return [UNSUPPORTED];
  return [check(["economy", "business"].includes(norm(reservation.cabin)))];
}

/** §5.9 flown_no_cabin_change: no cabin change once a segment has been flown. */
export function flownNoCabinChange(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "update_reservation_flights") return [];
  const reservation = storedReservation(state, call);
  if (reservation === undefined) return [UNSUPPORTED];
  const current = reservation.cabin;
  const proposed = call.args.cabin;
  if (current === undefined || current === null || proposed === undefined || proposed === null)
    return [UNSUPPORTED];
  const flown = reservationFlown(state, reservation);
  if (flown === "unknown") return proposed === current ? [PASS] : [UNSUPPORTED];
  return [check(!(flown === "flown" && proposed !== current))];
}

/** §5.9 no_bag_removal: the new total is not below the reservation's current total. */
export function noBagRemoval(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "update_reservation_baggages") return [];
  const reservation = storedReservation(state, call);
  const proposed = call.args.total_baggages;
  if (reservation === undefined || !isCount(reservation.total_baggages) || !isCount(proposed))
    return [UNSUPPORTED];
  return [check(proposed >= reservation.total_baggages)];
}

/** §5.9 passenger_count_fixed: the passenger list keeps its length. */
export function passengerCountFixed(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "update_reservation_passengers") return [];
  const reservation = storedReservation(state, call);
  if (
    reservation === undefined ||
    !Array.isArray(reservation.passengers) ||
    !Array.isArray(call.args.passengers)
  )
    return [UNSUPPORTED];
  return [check(call.args.passengers.length === reservation.passengers.length)];
}

/** §5.9 route_preserved: a changed itinerary keeps the trip's origin and destination. */
export function routePreserved(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "update_reservation_flights") return [];
  const reservation = storedReservation(state, call);
  if (reservation === undefined) return [UNSUPPORTED];
  const proposed = call.args.flights;
  if (!Array.isArray(proposed) || proposed.length === 0) return [UNSUPPORTED];
  if (flightSet(proposed) === flightSet(reservation.flights)) return [PASS];
  // Itinerary order is the order of args.flights; every segment needs an observed route.
  const legs = proposed.map((f) =>
    isJsonObject(f) ? observedRoute(state, f.flight_number, f.date) : undefined,
  );
  if (legs.some((leg) => leg === undefined)) return [UNSUPPORTED];
  const routes = legs as { origin: string; destination: string }[];
  const origin = routes[0].origin;
  const destination = routes[routes.length - 1].destination;
  if (reservation.flight_type === "one_way")
    return [check(origin === reservation.origin && destination === reservation.destination)];
  if (reservation.flight_type === "round_trip")
    return [
      check(
        origin === reservation.origin &&
          destination === reservation.origin &&
          routes.some((leg) => leg.destination === reservation.destination),
      ),
    ];
  return [UNSUPPORTED];
}

/**
 * §5.9 cancel_flown: no cancellation of a reservation with a flown segment; unknown flown state is
 * unsupported.
 */
export function cancelFlown(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "cancel_reservation") return [];
  const reservation = storedReservation(state, call);
  if (reservation === undefined) return [UNSUPPORTED];
  const flown = reservationFlown(state, reservation);
  return flown === "unknown" ? [UNSUPPORTED] : [check(flown === "not-flown")];
}

/**
 * "YYYY-MM-DDTHH:MM:SS" (or a space, or a bare date at midnight), comparable as a string; undefined if
 * unparseable.
 */
function isoDateTime(value: JsonValue | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}:\d{2})(?:\.\d+)?)?$/.exec(value);
  return m === null ? undefined : `${m[1]}T${m[2] ?? "00:00:00"}`;
}

/**
 * §5.9 cancel_eligibility (only when not flown): passes if a "held" condition holds (booked within 24 h,
 * business cabin, a segment observed cancelled); fails if none holds and no fact is missing; otherwise
 * unsupported. An insured reservation counts as a missing fact (the covered reason cannot be bound).
 */
export function cancelEligibility(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "cancel_reservation") return [];
  const reservation = storedReservation(state, call);
  if (reservation === undefined) return [UNSUPPORTED];
  const flown = reservationFlown(state, reservation);
  if (flown === "flown") return [];
  if (flown === "unknown") return [UNSUPPORTED];
  const createdAt = isoDateTime(reservation.created_at);
  const flights = Array.isArray(reservation.flights) ? reservation.flights : [];
  const statuses = flights.map((f) =>
    isJsonObject(f) ? state.flightStatus.get(flightKey(f.flight_number, f.date)) : undefined,
  );
  const held =
    (createdAt !== undefined && createdAt >= BOOKED_WITHIN_24H_FROM) ||
    reservation.cabin === "business" ||
    statuses.includes("cancelled");
  if (held) return [PASS];
  const missing =
    createdAt === undefined ||
    reservation.cabin === undefined ||
    reservation.cabin === null ||
    reservation.insurance === "yes" ||
    reservation.insurance === undefined ||
    reservation.insurance === null ||
    statuses.includes(undefined);
  return missing ? [UNSUPPORTED] : [check(false)];
}

/** §5.10: every reservation id in the profile's list is stored with owner `user`. */
function reservationListComplete(state: TauState, profile: JsonObject | undefined, user: string): boolean {
  if (profile === undefined || !Array.isArray(profile.reservations)) return false;
  return profile.reservations.every((id) => state.reservations.get(String(id))?.snapshot.user_id === user);
}

/** §5.10 certificate_eligibility: silver/gold, or an owned reservation insured or in business. */
export function certificateEligibility(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "send_certificate") return [];
  const user = String(call.args.user_id);
  const profile = state.users.get(user);
  const owned = ownedReservations(state, user);
  const membership = profile?.membership;
  const eligible =
    membership === "silver" ||
    membership === "gold" ||
    owned.some((r) => r.insurance === "yes" || r.cabin === "business");
  if (eligible) return [PASS];
  const complete =
    typeof membership === "string" &&
    reservationListComplete(state, profile, user) &&
    owned.every((r) => r.insurance != null && r.cabin != null);
  return complete ? [check(false)] : [UNSUPPORTED];
}

/**
 * §5.10 certificate_mandate: the amount is 50 or 100 × the passenger count of an owned stored reservation.
 */
export function certificateMandate(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "send_certificate") return [];
  const user = String(call.args.user_id);
  const owned = ownedReservations(state, user);
  const allowed = owned
    .filter((r) => Array.isArray(r.passengers))
    .flatMap((r) => [50, 100].map((unit) => unit * (r.passengers as JsonValue[]).length));
  if (typeof call.args.amount === "number" && allowed.includes(call.args.amount)) return [PASS];
  const complete =
    reservationListComplete(state, state.users.get(user), user) &&
    owned.every((r) => Array.isArray(r.passengers));
  return complete ? [check(false)] : [UNSUPPORTED];
}

/**
 * The payment ids a call selects: payment_methods[*].payment_id and payment_id; undefined when one lacks its
 * id.
 */
function selectedPaymentIds(call: EpisodeCall): string[] | undefined {
  const ids: string[] = [];
  if (Array.isArray(call.args.payment_methods))
    for (const m of call.args.payment_methods) {
      if (!isJsonObject(m) || typeof m.payment_id !== "string") return undefined;
      ids.push(m.payment_id);
    }
  if (typeof call.args.payment_id === "string") ids.push(call.args.payment_id);
  return ids;
}

/** The acting user's stored payment methods, or undefined when the profile or its list is unknown. */
function paymentMethodsOf(state: TauState, user: string | undefined): JsonObject | undefined {
  const methods = user === undefined ? undefined : state.users.get(user)?.payment_methods;
  return isJsonObject(methods) ? methods : undefined;
}

/**
 * §5.11 payment_in_profile: every selected payment id is a key of the acting user's stored payment methods.
 */
export function paymentInProfile(state: TauState, call: EpisodeCall): Outcome[] {
  const carriesPayment = call.args.payment_methods !== undefined || call.args.payment_id !== undefined;
  if (!carriesPayment) return [];
  const ids = selectedPaymentIds(call);
  const methods = paymentMethodsOf(state, actingUser(state, call));
  if (ids === undefined || methods === undefined) return [UNSUPPORTED];
  return [check(ids.every((id) => Object.prototype.hasOwnProperty.call(methods, id)))];
}

const COMPOSITION_CAPS: Record<string, number> = { certificate: 1, credit_card: 1, gift_card: 3 };

/** §5.12 payment_composition: per kind, the distinct selected methods stay within the cap. */
export function paymentComposition(state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "book_reservation") return [];
  const ids = selectedPaymentIds(call);
  const methods = paymentMethodsOf(state, actingUser(state, call));
  if (ids === undefined || methods === undefined) return [UNSUPPORTED];
  const kinds = [...new Set(ids)].map((id) => {
    const method = methods[id];
    return isJsonObject(method) && typeof method.source === "string" ? method.source : undefined;
  });
  const allKnown = !kinds.includes(undefined);
  return Object.entries(COMPOSITION_CAPS).map(([kind, cap]) => {
    const count = kinds.filter((k) => k === kind).length;
    return allKnown || count > cap ? check(count <= cap) : UNSUPPORTED;
  });
}

/**
 * §5.12 modification_payment_type: a flight change is paid by credit card or gift card, never a certificate.
 */
export function modificationPaymentType(state: TauState, call: EpisodeCall): Outcome[] {
  const paymentId = call.args.payment_id;
  if (call.tool !== "update_reservation_flights" || paymentId === undefined || paymentId === null) return [];
  const method = paymentMethodsOf(state, actingUser(state, call))?.[String(paymentId)];
  const source = isJsonObject(method) ? method.source : undefined;
  if (typeof source !== "string") return [UNSUPPORTED];
  return [check(source === "credit_card" || source === "gift_card")];
}

/** §5.12 passenger_cap: at most five passengers per booking. */
export function passengerCap(_state: TauState, call: EpisodeCall): Outcome[] {
  if (call.tool !== "book_reservation") return [];
  if (!Array.isArray(call.args.passengers)) return [UNSUPPORTED];
  return [check(call.args.passengers.length <= 5)];
}

/** §5.13 baggage_allowance: nonfree_baggages equals exactly max(0, total − free allowance). */
export function baggageAllowance(state: TauState, call: EpisodeCall): Outcome[] {
  let cabin: JsonValue | undefined;
  let passengers: JsonValue | undefined;
  if (call.tool === "book_reservation") {
    ({ cabin, passengers } = call.args);
  } else if (call.tool === "update_reservation_baggages") {
    const reservation = storedReservation(state, call);
    if (reservation === undefined) return [UNSUPPORTED];
    ({ cabin, passengers } = reservation);
  } else return [];
  const membership = state.users.get(actingUser(state, call) ?? "")?.membership;
  const required = requiredNonfreeBags(membership, cabin, passengers, call.args.total_baggages);
  const nonfree = call.args.nonfree_baggages;
  if (required === undefined || !isCount(nonfree)) return [UNSUPPORTED];
  return [check(nonfree === required)];
}
