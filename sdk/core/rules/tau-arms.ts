// The τ³-bench arms written as rules (issue 37), each beside the SEMANTICS.md section it follows
// (fixtures/vai-tau/SEMANTICS.md). An arm not here is not proven yet: docs/PREDICATES.md "τ³-bench rule arms"
// says what each needs.
import { stringToField } from "../hash.js";
import { ANY_TOOL, type Rule, type RuleEntry } from "./rule.js";
import {
  FIND_USER_TOOLS,
  NO_STATUS,
  ORDER_TOOLS,
  PART,
  PRODUCT_READS,
  RESERVATION_TOOLS,
  USER_TOOLS,
  normHash,
  type TauDomain,
} from "./tau-facts.js";
import { ACTING_USER_TOOLS } from "./tau-rows.js";

const checks = (tools: readonly string[], check: RuleEntry["check"] = {}): RuleEntry[] =>
  tools.map((tool) => ({ tool, check }));

/** §6.1, §6.2: the message arms, the same in both domains. */
const MESSAGE_ARMS: Record<string, Rule> = {
  // At most one call per message (rejected calls count): calls + 1 above 2.
  one_tool_at_a_time: {
    key: "always",
    entries: [{ tool: "tau.assistant", check: {} }],
    local: { fact: "calls", above: 2 },
    fire: { unseen: true, seen: true },
  },
  // A message with calls has blank text: checked when the text is not blank, fires when it has calls.
  tool_with_response: {
    key: "always",
    entries: [{ tool: "tau.assistant", check: { when: "text" } }],
    local: { fact: "calls", above: 1 },
    fire: { unseen: true, seen: true },
  },
  // A message with the notice needs a successful transfer earlier in the run (the flag under key 1).
  transfer_notice_requires_call: {
    key: "always",
    entries: [
      { tool: "transfer_to_human_agents", write: { value: 1n } },
      { tool: "tau.assistant", check: { when: "notice" } },
    ],
    fire: { unseen: true },
  },
  // Every successful transfer is followed by a notice: a transfer sets the pending flag (1), a message with
  // the notice clears it (0, before the message's own calls), and tau.end fires while it is still set.
  transfer_notice_after_success: {
    key: "always",
    entries: [
      { tool: "transfer_to_human_agents", write: { value: 1n } },
      { tool: "tau.assistant", write: { when: "notice", value: 0n } },
      { tool: "tau.end", check: { expect: 1n } },
    ],
    fire: { seenEqual: true },
  },
};

const REQUIRED_STATUS: Record<string, string> = {
  cancel_pending_order: "pending",
  modify_pending_order_items: "pending",
  modify_pending_order_address: "pending",
  modify_pending_order_payment: "pending",
  return_delivered_order_items: "delivered",
  exchange_delivered_order_items: "delivered",
};
const LOCKED_TOOLS = [
  "cancel_pending_order",
  "modify_pending_order_items",
  "modify_pending_order_address",
  "modify_pending_order_payment",
];
const ONCE_PER_ORDER_TOOLS = ["exchange_delivered_order_items", "modify_pending_order_items"];

const RETAIL_ARMS: Record<string, Rule> = {
  // §5.1 (fail-closed): a user-scoped tool or product read before any successful find_user_id_* with a
  // non-empty result.
  auth_first: {
    key: "always",
    entries: [
      ...FIND_USER_TOOLS.map((tool) => ({ tool, write: { when: "authId", value: 1n } })),
      ...checks([...ORDER_TOOLS, ...USER_TOOLS, ...PRODUCT_READS]),
    ],
    fire: { unseen: true },
  },
  // §5.3: the last stored snapshot of the order has the tool's required status; fail-closed when the order
  // was never stored, no check when the snapshot has no status. Every order tool stores its result.
  status_precondition: {
    key: "order",
    entries: ORDER_TOOLS.map((tool) => ({
      tool,
      write: { when: "order", value: "orderStatus" },
      ...(REQUIRED_STATUS[tool] !== undefined
        ? { check: { when: "orderArg", expect: normHash(REQUIRED_STATUS[tool]) } }
        : {}),
    })),
    fire: { unseen: true, seenDiffers: true },
    unknown: NO_STATUS,
  },
  // §5.4: no cancel or modify of an order whose items were already modified (successfully).
  modify_items_lockout: {
    key: "orderArg",
    entries: LOCKED_TOOLS.map((tool) => ({
      tool,
      check: {},
      ...(tool === "modify_pending_order_items" ? { write: { value: 1n } } : {}),
    })),
    fire: { seen: true },
  },
  // §5.6: a cancellation's reason, normalized, is one of tau2's two.
  cancel_reason_enum: {
    key: "always",
    entries: [{ tool: "cancel_pending_order", check: { when: "reason" } }],
    local: { fact: "reason", notIn: [normHash("no longer needed"), normHash("ordered by mistake")] },
    fire: { unseen: true, seen: true },
  },
  // §5.5: an exchange or modification replaces every item by a different one: fires when a pair is equal;
  // no check unless both lists are given with one length.
  new_item_differs: {
    key: "always",
    entries: ONCE_PER_ORDER_TOOLS.map((tool) => ({ tool, check: { when: "itemPairs" } })),
    local: { fact: "itemPairs", above: 1 },
    fire: { unseen: true, seen: true },
  },
  // §5.2: after authentication, a user-scoped call's owner (args.user_id, else the stored order's user_id) is
  // the authenticated user. The first find_user_id_* result is the user (written once, under key 1); each order
  // tool stores its owner; a user-scoped call loads its owner into the register, and its lookup row compares
  // it with the user. No check before authentication (key 1 never written) or with an unknown owner (0).
  one_user: {
    key: "order",
    entries: [
      ...FIND_USER_TOOLS.map((tool) => ({
        tool,
        key: "always",
        write: { when: "authId", value: "authId", ifUnseen: true },
      })),
      ...[...ORDER_TOOLS, ...USER_TOOLS].map((tool) => ({
        tool,
        load: { prefer: "userArg" },
        ...(ORDER_TOOLS.includes(tool) ? { write: { when: "order", value: "orderOwner" } } : {}),
      })),
      { tool: ANY_TOOL, part: PART.lookup, key: "always", check: { expect: "register" } },
    ],
    fire: { seenDiffers: true },
  },
  // §7: one capped operation per order: the second successful one fires.
  once_per_order: {
    key: "orderArg",
    entries: ONCE_PER_ORDER_TOOLS.map((tool) => ({ tool, check: {}, write: { value: 1n } })),
    fire: { seen: true },
  },
};

/** §4: every successful reservation tool stores its result under the reservation's id. */
const storesReservation = (tool: string, check?: RuleEntry["check"]): RuleEntry => ({
  tool,
  write: { when: "reservation", value: "storedBags" },
  ...(check ? { check } : {}),
});

/**
 * §5.11, §5.12: the acting user's stored payment methods, a chain of three maps. Each reservation tool stores
 * its owner's profile key; get_user_details stores the profile's version (0: its methods are unknown) and, in
 * its method rows, each method under Poseidon(version, payment id); send_certificate forgets the version. A
 * paying call loads its acting user (args.user_id, else the stored owner), its lookup row loads that user's
 * version, and each payment row looks its id up under Poseidon(version, id). Any link missing: no check.
 */
const paymentChain = (payment: RuleEntry["check"] & object, payers: readonly string[]): RuleEntry[] => [
  ...RESERVATION_TOOLS.map((tool) => ({
    tool,
    write: { when: "reservation", value: "ownerProfile" },
    ...(payers.includes(tool) ? { load: { prefer: "userArgProfile" } } : {}),
  })),
  {
    tool: "get_user_details",
    key: "profileKey",
    write: { value: "profileVersion" },
    load: { prefer: "profileVersion" },
  },
  { tool: "get_user_details", part: PART.method, key: { pair: "pid" }, write: { value: "methodType" } },
  { tool: "send_certificate", key: "profileKey", write: { value: 0n } },
  { tool: ANY_TOOL, part: PART.lookup, key: "register", load: {} },
  { tool: ANY_TOOL, part: PART.payment, key: { pair: "pid" }, check: payment },
];

const PAYMENT_ARMS: Record<string, Rule> = {
  // §5.11: every payment id a paying call names is a method of the acting user's stored profile.
  payment_in_profile: {
    key: "reservation",
    entries: paymentChain({ when: "pidCheck" }, [
      "book_reservation",
      "update_reservation_flights",
      "update_reservation_baggages",
    ]),
    fire: { unseen: true },
  },
  // §5.12: a flight change paid with args.payment_id pays by credit card or gift card (methodType 1), not
  // with another source (2); a method with no source (0) or not stored: no check.
  modification_payment_type: {
    key: "reservation",
    entries: paymentChain({ when: "pidArg", expect: 2n }, ["update_reservation_flights"]),
    fire: { seenEqual: true },
  },
};

const AIRLINE_ARMS: Record<string, Rule> = {
  // §5.9: a baggage update never lowers the stored reservation's total_baggages; no check when the
  // reservation was never stored or a count is missing.
  no_bag_removal: {
    key: "reservation",
    entries: RESERVATION_TOOLS.map((tool) =>
      storesReservation(
        tool,
        tool === "update_reservation_baggages" ? { when: "bags", expect: "bags" } : undefined,
      ),
    ),
    fire: { seenAbove: true },
    unknown: 0n,
  },
  // §5.9: a passenger update keeps the stored reservation's passenger count.
  passenger_count_fixed: {
    key: "reservation",
    entries: RESERVATION_TOOLS.map((tool) => ({
      tool,
      write: { when: "reservation", value: "storedPassengers" },
      ...(tool === "update_reservation_passengers"
        ? { check: { when: "passengers", expect: "passengers" } }
        : {}),
    })),
    fire: { seenDiffers: true },
    unknown: 0n,
  },
  // §5.7: the acting user (args.user_id, else the stored reservation's user_id) appeared in an earlier user
  // turn. A user turn's mention rows add its ids to the set; each reservation tool stores its owner; an acting
  // call loads its acting user into the register and its lookup row looks the id up. No check when the acting
  // user is unknown (the register is 0).
  user_id_from_user: {
    key: "reservation",
    entries: [
      { tool: "tau.user", part: PART.mention, key: "mention", write: { value: 1n } },
      ...RESERVATION_TOOLS.map((tool) => ({
        tool,
        write: { when: "reservation", value: "ownerMention" },
        ...(ACTING_USER_TOOLS.includes(tool) ? { load: { prefer: "userArgMention" } } : {}),
      })),
      { tool: ANY_TOOL, part: PART.lookup, key: "register", check: {} },
    ],
    fire: { unseen: true },
  },
  // §5.8: each booked (flight, date) was last observed "available". Searches and get_flight_status store each
  // flight's status; a booking's flight rows compare it. An unobserved flight: no check.
  bookable_status: {
    key: "flight",
    entries: [
      ...["search_direct_flight", "search_onestop_flight", "get_flight_status"].map((tool) => ({
        tool,
        part: PART.flight,
        write: { value: "flightStatus" },
      })),
      {
        tool: "book_reservation",
        part: PART.flight,
        check: { expect: stringToField("available") },
      },
    ],
    fire: { seenDiffers: true },
  },
  ...PAYMENT_ARMS,
  // §5.12: at most five passengers per booking (passengers + 1 above 6); no check without a list.
  passenger_cap: {
    key: "always",
    entries: [{ tool: "book_reservation", check: { when: "passengers" } }],
    local: { fact: "passengers", above: 6 },
    fire: { unseen: true, seen: true },
  },
};

/** Every arm written as a rule, by domain and rule name. */
export const TAU_RULES: Record<TauDomain, Record<string, Rule>> = {
  tau_retail: { ...MESSAGE_ARMS, ...RETAIL_ARMS },
  tau_airline: { ...MESSAGE_ARMS, ...AIRLINE_ARMS },
};

/** The rule of a τ³ arm, or undefined when it is not proven yet. */
export function tauRule(domain: TauDomain, rule: string): Rule | undefined {
  return Object.hasOwn(TAU_RULES[domain], rule) ? TAU_RULES[domain][rule] : undefined;
}
