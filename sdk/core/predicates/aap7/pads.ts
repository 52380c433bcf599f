// Row pads (docs/PROTOCOL.md "Row pads", issue 37). AAP-7's circuits give each record slot two row slots
// (ROWS_PER_RECORD), and the escrow picks a circuit by the record count alone, so a trace whose records give
// more rows than that, on average, would fit no circuit, and its claim could only default, whoever is right. The
// rows a record gives are not all the provider's to bound: a user turn gives one mention row per user id typed.
// So a session recorded under a domain fact profile is closed with pads: blocked calls of PAD_TOOL, which every
// predicate skips (a blocked record is not a call) and which give one empty row each, until its rows are at most
// twice its records. Then the escrow's pick, the smallest circuit of N >= n records, holds every row: the n
// records' R <= 2n rows and one empty row for each of the N − n slots past them make R + N − n <= N + n <= 2N.
// The recorder appends them at close (sdk/provider/session.ts), and whoever proves an unrecorded trace as a
// claim would (prover/evaluate.ts, the replay) adds the same ones. Pads change no verdict: no rule reads a row
// whose record is not an executed call. Nothing needs to check them: a trace without them is unprovable, which
// costs the provider who closed it, and extra pads only make the proof larger.
import type { EncodingProfile } from "../../profile.js";
import { recordRows } from "../../observations.js";
import { PAD_TOOL, isPadCall, type CallRecord, type RecordBody, type TraceRecord } from "../../records.js";
import { ROWS_PER_RECORD } from "./rows.js";

export { PAD_TOOL };

/** The rows a record gives AAP-7's circuits: its profile's (an executed call), else one empty row. */
export function rowCount(record: TraceRecord, profile: EncodingProfile): number {
  return recordRows(record, profile)?.length ?? 1;
}

/** How many pads a trace of `records` records and `rows` rows needs: each adds one record and one row. */
export function padsNeeded(rows: number, records: number): number {
  return Math.max(0, rows - ROWS_PER_RECORD * records);
}

/** The k-th pad of a session (k counts from 0): a blocked call, so no predicate reads it as one. */
export function padBody(k: number): RecordBody {
  return { kind: "call", tool: PAD_TOOL, args: { pad: k }, blocked: true };
}

/**
 * The trace as the recorder closes it: `records` and the pads its rows need, with the seqs that follow and the
 * last record's ts. Records without a domain fact profile need none.
 */
export function withRowPads(records: readonly TraceRecord[], profile: EncodingProfile): TraceRecord[] {
  if (profile.facts === undefined) return [...records];
  const rows = records.reduce((sum, r) => sum + rowCount(r, profile), 0);
  const already = records.filter(isPadCall).length;
  const ts = records.at(-1)?.ts ?? 0;
  const pads = Array.from({ length: padsNeeded(rows, records.length) }, (_, k): CallRecord => ({
    ...(padBody(already + k) as Omit<CallRecord, "seq" | "ts">),
    seq: records.length + k,
    ts,
  }));
  return [...records, ...pads];
}
