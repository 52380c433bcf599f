// What AAP-7's circuits (whole claim and segments) read of an encoded trace: each record's rows digest, tool
// and ok (an executed call, kind CALL, that returned, status OK), and the rows themselves, record by record in
// ROWS_PER_RECORD row slots per record slot (circuits/gadgets/record_rows.circom RecordRows). An executed
// call's rows are its profile's (sdk/core/rules/tau-rows.ts), which its digest binds (obs[0] is their chain);
// any other record, and a record slot past the trace, has one row of zero facts, which no rule reads (its ok
// is 0), and a free digest (its own row's chain). Row slots past the last record's rows are not live.
import { KIND, SLOT, type EncodedRecord } from "../../encoding.js";
import { hashVector, poseidon } from "../../hash.js";
import type { CircuitInput } from "../../inputs.js";
import { STATUS } from "../../observations.js";
import { RULE_FACTS, type RuleRow } from "../../rules/rule.js";
import { tauRowsDigest, type FactRow } from "../../rules/tau-rows.js";

/** Row slots per record slot: a circuit of N records reads 2N rows (a record's sub-rows use its neighbours'). */
export const ROWS_PER_RECORD = 2;

export interface Aap7Rows {
  /** Per record slot: its rows' chain (the observation its digest binds), tool and ok. */
  digests: bigint[];
  tools: bigint[];
  oks: boolean[];
  /** Per row slot (ROWS_PER_RECORD per record slot): the rule's rows; live ones first. */
  rows: RuleRow[];
  live: boolean[];
}

/** The one row of a record that is no executed call, and of a record slot past the trace. */
export const EMPTY_ROW: FactRow = { part: 0, facts: Array<bigint>(RULE_FACTS).fill(0n) };

/** The rows of `count` record slots from `records` (padded), in count · ROWS_PER_RECORD row slots. */
export function aap7Rows(records: readonly (EncodedRecord | undefined)[], count: number): Aap7Rows {
  const capacity = count * ROWS_PER_RECORD;
  const out: Aap7Rows = { digests: [], tools: [], oks: [], rows: [], live: [] };
  for (let i = 0; i < count; i++) {
    const r = records[i];
    const tool = r?.slots[SLOT.tool] ?? 0n;
    const ok = r !== undefined && r.slots[SLOT.kind] === KIND.call && r.status === STATUS.ok;
    const rows = r?.rows ?? [EMPTY_ROW];
    out.digests.push(r?.rows !== undefined ? r.obs[0]! : tauRowsDigest(rows));
    out.tools.push(tool);
    out.oks.push(ok);
    for (const row of rows) out.rows.push({ seq: r?.seq ?? i, tool, ok, part: row.part, facts: row.facts });
  }
  if (out.rows.length > capacity)
    throw new RangeError(
      `AAP-7: ${count} record slots hold ${out.rows.length} rows, past the circuit's ${capacity} (${ROWS_PER_RECORD} a record): a trace closed with its row pads fits the circuit its record count picks (sdk/core/predicates/aap7/pads.ts) (docs/PREDICATES.md "Capacity")`,
    );
  out.live = out.rows.map(() => true);
  while (out.rows.length < capacity) {
    out.rows.push({ seq: -1, tool: 0n, ok: false, ...EMPTY_ROW });
    out.live.push(false);
  }
  return out;
}

/**
 * RecordRows' seedOut (circuits/gadgets/record_rows.circom): Poseidon(seedIn, rowsHash, recordsHash), where
 * rowsHash chains every record's (digest, tool, ok) (each run's last row) and recordsHash = HashVector(digests).
 */
export function rowsSeed(seedIn: bigint, r: Aap7Rows): bigint {
  const rowsHash = r.digests.reduce(
    (g, digest, k) => poseidon([g, digest, r.tools[k]!, r.oks[k] ? 1n : 0n]),
    0n,
  );
  return poseidon([seedIn, rowsHash, hashVector(r.digests)]);
}

/** The rows' part of a circuit's input (RecordRows' and RuleRows'), record slots and row slots. */
export function rowsInputs(r: Aap7Rows): CircuitInput {
  const strings = (xs: readonly bigint[]) => xs.map(String);
  return {
    rowsDigest: strings(r.digests),
    live: r.live.map((x) => (x ? "1" : "0")),
    part: r.rows.map((row) => String(row.part)),
    facts: r.rows.map((row) => strings(row.facts)),
    rowTool: r.rows.map((row) => String(row.tool)),
    rowOk: r.rows.map((row) => (row.ok ? "1" : "0")),
  };
}
