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
import { RULE_FACTS, type RuleRow } from "./rule.js";

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
const idHash = (value: unknown) => stringToField(String(value));

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

/** The facts of each domain, in row order (RULE_FACTS each); the message facts close both. */
//   retail   order        the order a successful order tool stores: its result's order_id, else (an opaque
//                         result) args.order_id (§4)
//            orderArg     args.order_id (what a check names)
//            orderStatus  the stored snapshot's status (normalized), NO_STATUS when it has none
//            authId       a find_user_id_* result, trimmed, when not empty
//            reason       args.reason, normalized
//            itemPairs    1 + the pairs i with item_ids[i] = new_item_ids[i], when both are lists of one length
//   airline  reservation  the reservation a successful reservation tool stores (as order, §4)
//            storedPassengers, storedBags   the stored snapshot's passenger count + 1, total_baggages + 1
//                         (0: the snapshot has none, "unknown")
//            passengers, bags               args.passengers' length + 1, args.total_baggages + 1
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
    "-",
    "notice",
    "calls",
    "text",
  ],
  tau_airline: [
    "reservation",
    "storedPassengers",
    "passengers",
    "storedBags",
    "bags",
    "-",
    "-",
    "notice",
    "calls",
    "text",
  ],
};

const isObject = (x: unknown): x is Record<string, Json> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
const present = (x: unknown) => x !== undefined && x !== null;

/** tau2 returns JSON text for entities and plain text otherwise. */
function parsedResult(result: Json | undefined): Json | undefined {
  if (typeof result !== "string") return result;
  try {
    return JSON.parse(result) as Json;
  } catch {
    return undefined;
  }
}

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
  if (present(args.order_id)) facts.orderArg = idHash(args.order_id);
  if (present(args.reason)) facts.reason = normHash(args.reason);
  if (ORDER_TOOLS.includes(tool)) {
    // §4: the order the result carries, else (an opaque result) an empty snapshot under the args' key.
    const parsed = parsedResult(result);
    if (isObject(parsed) && present(parsed.order_id)) {
      facts.order = idHash(parsed.order_id);
      facts.orderStatus = present(parsed.status) ? normHash(parsed.status) : NO_STATUS;
    } else if (present(args.order_id)) {
      facts.order = idHash(args.order_id);
      facts.orderStatus = NO_STATUS;
    }
  }
  if (FIND_USER_TOOLS.includes(tool)) {
    const id = String(result ?? "").trim();
    if (id.length > 0) facts.authId = stringToField(id);
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
  if (RESERVATION_TOOLS.includes(tool)) {
    const parsed = parsedResult(result);
    if (isObject(parsed) && present(parsed.reservation_id)) {
      facts.reservation = idHash(parsed.reservation_id);
      facts.storedPassengers = lengthFact(parsed.passengers);
      facts.storedBags = countFact(parsed.total_baggages);
    } else if (present(args.reservation_id)) {
      facts.reservation = idHash(args.reservation_id);
    }
  }
  return facts;
}

/** One record's facts under its domain's profile, in TAU_FACTS order; a record that is no call has none. */
export function tauFacts(record: TraceRecord, domain: TauDomain): bigint[] {
  if (record.kind !== "call" || record.blocked) return Array<bigint>(RULE_FACTS).fill(0n);
  const named: Record<string, bigint | undefined> = {
    ...(domain === "tau_retail" ? retailFacts(record) : airlineFacts(record)),
    ...messageFacts(record),
  };
  return TAU_FACTS[domain].map((name) => named[name] ?? 0n);
}

/** The rows a rule reads: ok = a call that ran and returned (not blocked, no error). */
export function tauRuleRows(records: readonly TraceRecord[], domain: TauDomain): RuleRow[] {
  return records.map((r) => ({
    seq: r.seq,
    tool: "tool" in r ? stringToField(r.tool) : 0n,
    ok: r.kind === "call" && !r.blocked && r.error === undefined,
    facts: tauFacts(r, domain),
  }));
}
