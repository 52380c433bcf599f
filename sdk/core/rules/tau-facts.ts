// The τ³-bench observation profiles (issue 37): the facts each record of a tau_retail or tau_airline run
// yields to the rules, derived from that record alone (its tool, args and result), as
// fixtures/vai-tau/SEMANTICS.md §3–§6 reads them. Everything that needs more than one record (the stored
// order, the pending transfer, the count per order) is session state, computed by the rule over these facts
// (sdk/core/rules/rule.ts) and, in a proof, by the circuit (circuits/gadgets/rule.circom).
// A fact is a field element, 0 when absent: an id or a text as stringToField of its string, a count as
// count + 1 (so 0 stays "absent"), a yes as 1.
import type { Json } from "../canonical.js";
import { stringToField } from "../hash.js";
import type { TraceRecord } from "../records.js";
import { RULE_FACTS } from "./rule.js";

/** The two domain profiles, by the reference's benchmark names. */
export const TAU_DOMAINS = ["tau_retail", "tau_airline"] as const;
export type TauDomain = (typeof TAU_DOMAINS)[number];

/** §6.2: the exact notice text, matched after collapsing whitespace runs. */
export const TRANSFER_NOTICE = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.";
/** The value an order snapshot stores when it has no status (an opaque result, §4): never a status hash. */
export const NO_STATUS = 1n;

/** §3: normalized string equality's normal form. */
export function norm(value: unknown): string {
  return String(value ?? "")
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/[./]+$/, "");
}
export const normHash = (value: unknown) => stringToField(norm(value));
/**
 * Every key names its map: an order, a reservation, a flight, a mentioned user, a profile, a version (below and in
 * tau-rows.ts), so no id can be another map's key (an independent review, issue 37: a reservation id
 * "user:<id>" read as that user's mention while ids were keyed bare).
 */
const orderKey = (value: unknown) => stringToField(`order:${String(value)}`);
const reservationKey = (value: unknown) => stringToField(`reservation:${String(value)}`);

/** §4: the order tools, whose successful results store the order. */
export const ORDER_TOOLS = [
  "get_order_details",
  "cancel_pending_order",
  "modify_pending_order_items",
  "modify_pending_order_address",
  "modify_pending_order_payment",
  "return_delivered_order_items",
  "exchange_delivered_order_items",
];
export const USER_TOOLS = ["get_user_details", "modify_user_address"];
export const FIND_USER_TOOLS = ["find_user_id_by_email", "find_user_id_by_name_zip"];
export const PRODUCT_READS = ["get_product_details", "get_item_details", "list_all_product_types"];
export const RESERVATION_TOOLS = [
  "get_reservation_details",
  "book_reservation",
  "update_reservation_flights",
  "update_reservation_baggages",
  "update_reservation_passengers",
  "cancel_reservation",
];

/** The parts of a record's rows (sdk/core/rules/rule.ts): its primary row, and one kind of sub-row each. */
export const PART = {
  primary: 0,
  /** A second access for an acting call (retail: the owner against the authenticated user; airline: the
   * acting user's profile version). */
  lookup: 1,
  /** A payment id the call names (§5.11, §5.12). */
  payment: 2,
  /** A (flight, date): its status from a search or get_flight_status, or a booked one (§4, §5.8). */
  flight: 3,
  /** A user id the user typed (§3.1). */
  mention: 4,
  /** A payment method of a stored user profile (§4, §5.11). */
  method: 5,
} as const;

/** The facts of each domain, in slot order (RULE_FACTS slots); "a|b" are facts no row holds together. */
//   retail   order        the order a successful order tool stores: its result's order_id, else (an opaque
//                         result) args.order_id (§4)
//            orderArg     args.order_id (what a check names)
//            orderStatus  the stored snapshot's status (normalized), NO_STATUS when it has none
//            authId       a find_user_id_* result, trimmed, normalized, when not empty
//            reason       args.reason, normalized
//            itemPairs    1 + the pairs i with item_ids[i] = new_item_ids[i], when both are lists of one length
//            userArg      args.user_id, normalized (§5.2's owner, first choice)
//            orderOwner   the stored order snapshot's user_id, normalized (0: it has none)
//   airline  reservation  the reservation a successful reservation tool stores (as order, §4)
//            storedPassengers, storedBags   the stored snapshot's passenger count + 1, total_baggages + 1
//                         (0: the snapshot has none, "unknown")
//            passengers, bags               args.passengers' length + 1, args.total_baggages + 1
//            ownerMention, ownerProfile     the stored snapshot's user_id, as a mention key and as a profile
//                         key (0: it has none)
//            userArgMention, userArgProfile args.user_id as the same two keys
//            profileKey   the user profile get_user_details stores (result's user_id, else args') or
//                         send_certificate drops the payment methods of (args.user_id)
//            profileVersion  that snapshot's version: one value per stored snapshot whose payment_methods is
//                         an object, 0 when it is not (the list is unknown)
//            mention      (part mention) an id the user typed, as a mention key
//            flight, flightStatus   (part flight) flightKey(number, date) and its status, raw
//            pid          (part payment, method) a payment id
//            pidCheck     (part payment) 1 when payment_in_profile checks it: every payment_methods entry has a
//                         string payment_id (§5.11's ids are known) and this is one of the ids
//            pidArg       (part payment) 1 for args.payment_id (§5.12 modification_payment_type's method)
//            methodType   (part method) 1 credit_card or gift_card, 2 another source, 0 no source
//   both     notice, calls, text            a tau.assistant message's: holds the notice, its calls + 1, its
//                         text is not blank
export const TAU_FACTS: Record<TauDomain, readonly string[]> = {
  tau_retail: [
    "order",
    "orderArg",
    "orderStatus",
    "authId",
    "reason",
    "itemPairs",
    "userArg",
    "orderOwner",
    "notice",
    "calls",
    "text",
    "-",
  ],
  tau_airline: [
    "reservation",
    "storedPassengers",
    "passengers",
    "storedBags",
    "bags",
    "ownerMention|mention|flight|pid",
    "ownerProfile|flightStatus|methodType|pidCheck",
    "userArgMention|pidArg",
    "userArgProfile",
    "profileKey|notice",
    "profileVersion|calls",
    "text",
  ],
};

export const isObject = (x: unknown): x is Record<string, Json> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
export const present = (x: unknown) => x !== undefined && x !== null;

/** tau2 returns JSON text for entities and plain text otherwise. */
export function parsedResult(result: Json | undefined): Json | undefined {
  if (typeof result !== "string") return result;
  try {
    return JSON.parse(result) as Json;
  } catch {
    return undefined;
  }
}

/** Keys of the two airline maps a user id indexes, kept apart from each other and from every other key. */
export const mentionKey = (id: unknown) => stringToField(`user:${norm(id)}`);
export const profileKey = (id: unknown) => stringToField(`profile:${String(id)}`);

function messageFacts(record: TraceRecord & { kind: "call" }): Record<string, bigint> {
  if (record.tool !== "tau.assistant" || !isObject(record.result)) return {};
  const text = typeof record.result.text === "string" ? record.result.text : "";
  const calls = Array.isArray(record.result.calls) ? record.result.calls.length : 0;
  const blank = text.trim().length === 0;
  return {
    notice: !blank && text.replace(/\s+/g, " ").includes(TRANSFER_NOTICE) ? 1n : 0n,
    calls: BigInt(calls) + 1n,
    text: blank ? 0n : 1n,
  };
}

function retailFacts(record: TraceRecord & { kind: "call" }): Record<string, bigint> {
  const { tool, args, result } = record;
  const facts: Record<string, bigint> = {};
  if (present(args.order_id)) facts.orderArg = orderKey(args.order_id);
  if (present(args.reason)) facts.reason = normHash(args.reason);
  if (present(args.user_id)) facts.userArg = normHash(args.user_id);
  if (ORDER_TOOLS.includes(tool)) {
    // §4: the order the result carries, else (an opaque result) an empty snapshot under the args' key.
    const parsed = parsedResult(result);
    if (isObject(parsed) && present(parsed.order_id)) {
      facts.order = orderKey(parsed.order_id);
      facts.orderStatus = present(parsed.status) ? normHash(parsed.status) : NO_STATUS;
      if (present(parsed.user_id)) facts.orderOwner = normHash(parsed.user_id);
    } else if (present(args.order_id)) {
      facts.order = orderKey(args.order_id);
      facts.orderStatus = NO_STATUS;
    }
  }
  if (FIND_USER_TOOLS.includes(tool)) {
    const id = String(result ?? "").trim();
    if (id.length > 0) facts.authId = normHash(id);
  }
  const { item_ids: oldIds, new_item_ids: newIds } = args;
  if (Array.isArray(oldIds) && Array.isArray(newIds) && oldIds.length === newIds.length) {
    // The reference compares with !==: equal strings, numbers, booleans or nulls; never two objects.
    const same = oldIds.filter((id, i) => (typeof id !== "object" || id === null) && id === newIds[i]);
    facts.itemPairs = BigInt(same.length) + 1n;
  }
  return facts;
}

/** A count as a fact: n + 1 for an integer 0 <= n < 2^31, else absent (0). */
const countFact = (n: unknown): bigint | undefined =>
  Number.isInteger(n) && (n as number) >= 0 && (n as number) < 2 ** 31 ? BigInt(n as number) + 1n : undefined;
const lengthFact = (x: unknown) => (Array.isArray(x) ? countFact(x.length) : undefined);

function airlineFacts(record: TraceRecord & { kind: "call" }): Record<string, bigint | undefined> {
  const { tool, args, result } = record;
  const facts: Record<string, bigint | undefined> = {
    passengers: lengthFact(args.passengers),
    bags: countFact(args.total_baggages),
  };
  if (present(args.user_id)) {
    facts.userArgMention = mentionKey(args.user_id);
    facts.userArgProfile = profileKey(args.user_id);
  }
  const parsed = parsedResult(result);
  if (RESERVATION_TOOLS.includes(tool)) {
    if (isObject(parsed) && present(parsed.reservation_id)) {
      facts.reservation = reservationKey(parsed.reservation_id);
      facts.storedPassengers = lengthFact(parsed.passengers);
      facts.storedBags = countFact(parsed.total_baggages);
      if (present(parsed.user_id)) {
        facts.ownerMention = mentionKey(parsed.user_id);
        facts.ownerProfile = profileKey(parsed.user_id);
      }
    } else if (present(args.reservation_id)) {
      facts.reservation = reservationKey(args.reservation_id);
    }
  }
  if (USER_TOOLS.includes(tool)) {
    // §4: the profile is replaced by the result; an opaque one leaves {} under the args' id (methods unknown).
    const stored = isObject(parsed) && present(parsed.user_id) ? parsed : undefined;
    const id = stored !== undefined ? stored.user_id : args.user_id;
    if (present(id)) {
      facts.profileKey = profileKey(id);
      // One version per snapshot (its record's seq), so an earlier snapshot's methods are not this one's.
      if (stored !== undefined && isObject(stored.payment_methods))
        facts.profileVersion = stringToField(`version:${String(id)}#${record.seq}`);
    }
  }
  // §4: a new certificate exists, so the stored user's list of methods is unknown from now on.
  if (tool === "send_certificate" && present(args.user_id)) facts.profileKey = profileKey(args.user_id);
  return facts;
}

/** A named fact set laid out in its domain's slots (a slot of several names takes the one this row has). */
export function layFacts(named: Record<string, bigint | undefined>, domain: TauDomain): bigint[] {
  const facts = TAU_FACTS[domain].map((slot) => {
    const held = slot.split("|").filter((name) => (named[name] ?? 0n) !== 0n);
    if (held.length > 1)
      throw new Error(`${domain}: one row holds ${held.join(" and ")}, which share a slot`);
    return held.length === 0 ? 0n : named[held[0]!]!;
  });
  if (facts.length !== RULE_FACTS) throw new Error(`${domain}'s layout has ${facts.length} slots`);
  return facts;
}

/** One record's primary facts under its domain's profile; a record that is no call has none. */
export function tauFacts(record: TraceRecord, domain: TauDomain): bigint[] {
  if (record.kind !== "call" || record.blocked) return Array<bigint>(RULE_FACTS).fill(0n);
  return layFacts(
    { ...(domain === "tau_retail" ? retailFacts(record) : airlineFacts(record)), ...messageFacts(record) },
    domain,
  );
}
