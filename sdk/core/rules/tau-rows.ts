// The rows a τ³-bench record gives the rules (sdk/core/rules/rule.ts): its primary row (its facts,
// sdk/core/rules/tau-facts.ts) and a sub-row for each thing it holds several of, each derived from that record
// alone, as fixtures/vai-tau/SEMANTICS.md §3–§5 read them. The record's observation binds all of them
// (tauRowsDigest), so every row a rule reads is the committed record's.
import { hashVector, stringToField } from "../hash.js";
import type { TraceRecord } from "../records.js";
import type { RuleRow } from "./rule.js";
import {
  ORDER_TOOLS,
  PART,
  USER_TOOLS,
  isObject,
  layFacts,
  mentionKey,
  parsedResult,
  present,
  tauFacts,
  type TauDomain,
} from "./tau-facts.js";

/** A row as its record's profile derives it: its part and RULE_FACTS facts. */
export interface FactRow {
  part: number;
  facts: bigint[];
}

/** §5.7: the tools whose acting user is args.user_id or the stored reservation's. */
export const ACTING_USER_TOOLS = [
  "book_reservation",
  "update_reservation_flights",
  "update_reservation_baggages",
  "update_reservation_passengers",
  "cancel_reservation",
];
/** §5.11: tau2's airline tools that carry a payment (payment_methods or payment_id). */
export const PAYMENT_TOOLS = [
  "book_reservation",
  "update_reservation_flights",
  "update_reservation_baggages",
];
/** §3.1: a user id as the user types it (airline ids look like mei_kovacs_8020), in lowercased text. */
const USER_ID_MENTION = /\b[a-z]+_[a-z]+_\d+\b/g;

/** `${flight_number}@${date}` (§4), as a key kept apart from every other. */
const flightKey = (flightNumber: unknown, date: unknown) =>
  stringToField(`flight:${String(flightNumber)}@${String(date)}`);

const row = (part: number, named: Record<string, bigint>, domain: TauDomain): FactRow => ({
  part,
  facts: layFacts(named, domain),
});

/** §4: the (flight, date) statuses a search or get_flight_status observed. */
function observedFlights(record: TraceRecord & { kind: "call" }): Record<string, bigint>[] {
  const { tool, args, result } = record;
  const parsed = parsedResult(result);
  if (tool === "search_direct_flight" || tool === "search_onestop_flight") {
    // One-stop results are lists of two legs: flatten one level.
    const flights = Array.isArray(parsed) ? parsed.flatMap((f) => (Array.isArray(f) ? f : [f])) : [];
    return flights
      .filter((f) => isObject(f) && present(f.flight_number))
      .map((f) => {
        const flight = f as Record<string, unknown>;
        return {
          flight: flightKey(flight.flight_number, flight.date ?? args.date),
          flightStatus: stringToField(String(flight.status)),
        };
      });
  }
  if (tool === "get_flight_status") {
    const status = isObject(parsed)
      ? String(parsed.status)
      : String(result ?? "")
          .trim()
          .toLowerCase();
    return [{ flight: flightKey(args.flight_number, args.date), flightStatus: stringToField(status) }];
  }
  return [];
}

/** §5.8: the (flight, date)s a booking names; one that is not an object has no status to look up. */
function bookedFlights(record: TraceRecord & { kind: "call" }): Record<string, bigint>[] {
  const flights = record.args.flights;
  if (record.tool !== "book_reservation" || !Array.isArray(flights)) return [];
  return flights
    .filter((f) => isObject(f))
    .map((f) => ({
      flight: flightKey((f as Record<string, unknown>).flight_number, (f as Record<string, unknown>).date),
    }));
}

/**
 * §5.11, §5.12: the payment ids a paying call names. payment_in_profile checks every selected id (none when one
 * payment_methods entry has no string payment_id: the ids are unknown); modification_payment_type looks up
 * args.payment_id, whatever its type, as a string.
 */
function payments(record: TraceRecord & { kind: "call" }): Record<string, bigint>[] {
  const { args } = record;
  if (!PAYMENT_TOOLS.includes(record.tool)) return [];
  const methods = args.payment_methods;
  const listed = Array.isArray(methods) ? methods : [];
  const known = listed.every((m) => isObject(m) && typeof m.payment_id === "string");
  const rows: Record<string, bigint>[] = known
    ? listed.map((m) => ({ pid: stringToField((m as { payment_id: string }).payment_id), pidCheck: 1n }))
    : [];
  if (present(args.payment_id))
    rows.push({
      pid: stringToField(String(args.payment_id)),
      pidCheck: known && typeof args.payment_id === "string" ? 1n : 0n,
      pidArg: 1n,
    });
  return rows;
}

/** §4: the payment methods a stored profile holds (the keys of its payment_methods object). */
function profileMethods(record: TraceRecord & { kind: "call" }): Record<string, bigint>[] {
  if (!USER_TOOLS.includes(record.tool)) return [];
  const parsed = parsedResult(record.result);
  if (!isObject(parsed) || !present(parsed.user_id) || !isObject(parsed.payment_methods)) return [];
  return Object.entries(parsed.payment_methods).map(([pid, method]) => {
    const source = isObject(method) ? method.source : undefined;
    const methodType =
      typeof source !== "string" ? 0n : source === "credit_card" || source === "gift_card" ? 1n : 2n;
    return { pid: stringToField(pid), methodType };
  });
}

/** §3.1: the user ids a user turn typed. */
function mentions(record: TraceRecord & { kind: "call" }): Record<string, bigint>[] {
  if (record.tool !== "tau.user" || typeof record.result !== "string") return [];
  return (record.result.toLowerCase().match(USER_ID_MENTION) ?? []).map((id) => ({
    mention: mentionKey(id),
  }));
}

function subRows(record: TraceRecord & { kind: "call" }, domain: TauDomain): FactRow[] {
  const sub = (part: number, rows: Record<string, bigint>[]) => rows.map((named) => row(part, named, domain));
  if (domain === "tau_retail")
    // §5.2: a user-scoped call's owner is compared with the authenticated user in a second access.
    return [...ORDER_TOOLS, ...USER_TOOLS].includes(record.tool) ? sub(PART.lookup, [{}]) : [];
  const acting = ACTING_USER_TOOLS.includes(record.tool) || PAYMENT_TOOLS.includes(record.tool);
  return [
    ...(acting ? sub(PART.lookup, [{}]) : []),
    ...sub(PART.payment, payments(record)),
    ...sub(PART.flight, [...observedFlights(record), ...bookedFlights(record)]),
    ...sub(PART.mention, mentions(record)),
    ...sub(PART.method, profileMethods(record)),
  ];
}

/**
 * A record's rows: its primary row, then its sub-rows (only a call that ran and returned has any: no other
 * record is a row of any rule). A record that is no call has one row of zero facts.
 */
export function tauRows(record: TraceRecord, domain: TauDomain): FactRow[] {
  const primary = { part: PART.primary, facts: tauFacts(record, domain) };
  if (record.kind !== "call" || record.blocked || record.error !== undefined) return [primary];
  return [primary, ...subRows(record, domain)];
}

/** The observation a record's rows give its digest: a chain, c = HashVector([c, part, ...facts]) from 0. */
export function tauRowsDigest(rows: readonly FactRow[]): bigint {
  return rows.reduce(tauRowsStep, 0n);
}

/** One step of the rows' chain: c_k = HashVector([c_(k−1), part_k, facts_k]). */
export function tauRowsStep(chain: bigint, row: FactRow): bigint {
  return hashVector([chain, BigInt(row.part), ...row.facts]);
}

/** The rows a rule reads: every record's, in order; ok = a call that ran and returned (not blocked, no error). */
export function tauRuleRows(records: readonly TraceRecord[], domain: TauDomain): RuleRow[] {
  return records.flatMap((r) => {
    const ok = r.kind === "call" && !r.blocked && r.error === undefined;
    const tool = "tool" in r ? stringToField(r.tool) : 0n;
    return tauRows(r, domain).map(({ part, facts }) => ({ seq: r.seq, tool, ok, part, facts }));
  });
}
