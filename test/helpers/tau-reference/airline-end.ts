// The airline end-of-episode arms (fixtures/vai-tau/SEMANTICS.md §5.14), checked once at tau.end, and the
// cancellation bindings that required_transfer_after_flown_cancellation reads from user prose and calls.
import { UNSUPPORTED, check, type JsonObject, type JsonValue, type Outcome } from "./episode.js";
import { bindCancellation, requiredNonfreeBags, reservationFlown, type TauState } from "./state.js";

/** The reservations a successful cabin change left, with their final snapshot, unless finally cancelled. */
function changedCabinReservations(state: TauState): { baseline: JsonObject; final: JsonObject }[] {
  return [...state.cabinChangeBaseline.entries()]
    .map(([rid, baseline]) => ({ baseline, final: state.reservations.get(rid)?.snapshot ?? {} }))
    .filter(({ final }) => final.status !== "cancelled");
}

/** §5.13 required nonfree bags of a final reservation, with its owner's stored membership. */
function requiredOf(state: TauState, reservation: JsonObject): number | undefined {
  const membership = state.users.get(String(reservation.user_id))?.membership;
  return requiredNonfreeBags(
    membership,
    reservation.cabin,
    reservation.passengers,
    reservation.total_baggages,
  );
}

/** §5.14 baggage_allowance_after_cabin_change: the final nonfree bags equal what the final cabin requires. */
export function baggageAllowanceAfterCabinChange(state: TauState): Outcome[] {
  return changedCabinReservations(state).map(({ final }) => {
    const required = requiredOf(state, final);
    if (required === undefined || !Number.isInteger(final.nonfree_baggages)) return UNSUPPORTED;
    return check(final.nonfree_baggages === required);
  });
}

interface Ledger {
  net: number;
  fare: number;
  insurance: number;
  passengers: number;
  insured: string;
  payments: JsonValue[];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * §5.14: net paid, fare (prices × passengers) and insurance (30 × passengers if insured); undefined if
 * incomplete.
 */
function ledgerOf(reservation: JsonObject): Ledger | undefined {
  const { payment_history: payments, flights, passengers, insurance } = reservation;
  if (!Array.isArray(payments) || !Array.isArray(flights) || !Array.isArray(passengers)) return undefined;
  if (insurance !== "yes" && insurance !== "no") return undefined;
  const amounts = payments.map((p) =>
    typeof p === "object" && p !== null && !Array.isArray(p) ? p.amount : null,
  );
  const prices = flights.map((f) =>
    typeof f === "object" && f !== null && !Array.isArray(f) ? f.price : null,
  );
  if (!amounts.every((a) => typeof a === "number") || !prices.every((p) => typeof p === "number"))
    return undefined;
  const count = passengers.length;
  return {
    net: sum(amounts as number[]),
    fare: sum(prices as number[]) * count,
    insurance: insurance === "yes" ? 30 * count : 0,
    passengers: count,
    insured: insurance,
    payments,
  };
}

/**
 * §5.14 baggage_fee_after_cabin_change: what was paid beyond fare and insurance covers 50 per required
 * nonfree bag.
 */
export function baggageFeeAfterCabinChange(state: TauState): Outcome[] {
  return changedCabinReservations(state).map(({ baseline, final }) => {
    const before = ledgerOf(baseline);
    const after = ledgerOf(final);
    const required = requiredOf(state, final);
    if (before === undefined || after === undefined || required === undefined) return UNSUPPORTED;
    const prefix = before.payments.every((p, i) => JSON.stringify(p) === JSON.stringify(after.payments[i]));
    const oldNonfree = baseline.nonfree_baggages;
    const consistent =
      Number.isInteger(oldNonfree) &&
      before.net === before.fare + before.insurance + 50 * (oldNonfree as number);
    if (!prefix || before.passengers !== after.passengers || before.insured !== after.insured || !consistent)
      return UNSUPPORTED;
    return check(after.net - after.fare - after.insurance >= 50 * required);
  });
}

const ID = String.raw`[A-Za-z0-9]{6}(?![A-Za-z0-9])`;
const ID_LIST = String.raw`${ID}(?:\s*,\s*(?:and\s+)?${ID}|\s+and\s+${ID})*`;
const WITHDRAW = new RegExp(String.raw`\b(?:do not|don't|don’t)\s+cancel\s+reservation\s+(${ID})`, "i");
const BIND = [
  new RegExp(String.raw`\bcancel\s+(?:my|the)\s+reservation\s+(${ID})`, "i"),
  new RegExp(String.raw`\bI\s+(?:want|need|would like)\s+to\s+cancel\s+reservations?\s+(${ID_LIST})`, "i"),
  new RegExp(String.raw`\bthe\s+reservation\s+I\s+want\s+to\s+cancel\s+is\s+(${ID})`, "i"),
];
/**
 * Ids are 6 characters of [A-Z0-9]: the patterns match words case-insensitively, the ids are then checked as
 * typed.
 */
const idsIn = (list: string) =>
  (list.match(/[A-Za-z0-9]{6}/g) ?? []).filter((id) => /^[A-Z0-9]{6}$/.test(id));

/** §5.14 (a): binds and withdraws cancellation targets from one user turn, clause by clause. */
export function readCancellationProse(state: TauState, text: string): void {
  for (const clause of text.split(/[.!?;\n]/)) {
    const withdrawn = WITHDRAW.exec(clause);
    if (withdrawn !== null) {
      for (const id of idsIn(withdrawn[1])) {
        const i = state.cancellationBindings.findIndex(
          (b) => b.reservationId === id && b.byProse && b.triggeredAt === undefined,
        );
        if (i >= 0) state.cancellationBindings.splice(i, 1);
      }
      continue;
    }
    for (const pattern of BIND) {
      const m = pattern.exec(clause);
      if (m !== null) for (const id of idsIn(m[1])) bindCancellation(state, id, true);
    }
  }
}

/** §5.14 trigger: a binding triggers once its target's stored reservation is observed and flown. */
export function updateCancellationTriggers(state: TauState): void {
  for (const binding of state.cancellationBindings) {
    if (binding.triggeredAt !== undefined) continue;
    const stored = state.reservations.get(binding.reservationId);
    if (stored !== undefined && reservationFlown(state, stored.snapshot) === "flown")
      binding.triggeredAt = state.position;
  }
}

/**
 * §5.14 required_transfer_after_flown_cancellation: each triggered target has a successful transfer after it.
 */
export function requiredTransferAfterFlownCancellation(state: TauState): Outcome[] {
  return state.cancellationBindings
    .filter((b) => b.triggeredAt !== undefined)
    .map((b) => check(state.transferPositions.some((at) => at > b.triggeredAt!)));
}
