// AAP-7's row stream over a segment chain (circuits/gadgets/record_rows.circom RowStream, issue 37): the session's
// rows, record by record, cut into the segments' row slots (ROWS_PER_RECORD per record slot) wherever they fall,
// so a record's rows may cross a boundary; and what each boundary carries: the chains P (records) and Q (runs),
// the run still open and whether the stream ended. A session closed with its row pads (./pads.ts) always fits:
// its R rows are at most 2n, and its ceil(n / S) segments hold 2S rows each.
import { KIND, SLOT, type EncodedRecord } from "../../encoding.js";
import { poseidon } from "../../hash.js";
import { STATUS } from "../../observations.js";
import type { RuleRow } from "../../rules/rule.js";
import { tauRowsDigest, tauRowsStep } from "../../rules/tau-rows.js";
import { EMPTY_ROW, ROWS_PER_RECORD, type Aap7Rows } from "./rows.js";

const EMPTY_DIGEST = tauRowsDigest([EMPTY_ROW]);
const DEAD: RuleRow = { seq: -1, tool: 0n, ok: false, ...EMPTY_ROW };

/** What RowStream carries across a boundary (the state commitment's row-stream fields). */
export interface StreamCarry {
  p: bigint;
  q: bigint;
  run: bigint;
  tool: bigint;
  ok: boolean;
  open: boolean;
  ended: boolean;
}

export const STREAM_START: StreamCarry = {
  p: 0n,
  q: 0n,
  run: 0n,
  tool: 0n,
  ok: false,
  open: false,
  ended: false,
};

/**
 * Every segment's record slots and row slots over a session of `encoded` records in `m` segments of `size`
 * records (the stream's rows in order, dead past its end), with the carry at each of the m + 1 boundaries.
 * Throws RangeError when the rows overflow the chain's row slots (a session closed without its row pads).
 */
export function aap7Stream(
  encoded: readonly EncodedRecord[],
  m: number,
  size: number,
): { segments: Aap7Rows[]; carries: StreamCarry[]; stream: RuleRow[] } {
  const rowSize = size * ROWS_PER_RECORD;
  const stream: RuleRow[] = [];
  const records = Array.from({ length: m * size }, (_, i) => encoded[i]);
  const slot = records.map((r) => {
    const tool = r?.slots[SLOT.tool] ?? 0n;
    const ok = r !== undefined && r.slots[SLOT.kind] === KIND.call && r.status === STATUS.ok;
    if (r !== undefined) {
      for (const row of r.rows ?? [EMPTY_ROW])
        stream.push({ seq: r.seq, tool, ok, part: row.part, facts: row.facts });
    }
    return { digest: r?.rows !== undefined ? r.obs[0]! : EMPTY_DIGEST, tool, ok };
  });
  if (stream.length > m * rowSize)
    throw new RangeError(
      `AAP-7: ${encoded.length} records give ${stream.length} rows, past the ${m * rowSize} row slots of ${m} segments of ${size} (${ROWS_PER_RECORD} a record): a session closed with its row pads always fits (sdk/core/predicates/aap7/pads.ts)`,
    );
  const live = stream.length;
  while (stream.length < m * rowSize) stream.push(DEAD);

  const carries: StreamCarry[] = [STREAM_START];
  const segments: Aap7Rows[] = [];
  let carry = STREAM_START;
  for (let j = 0; j < m; j++) {
    const own = slot.slice(j * size, (j + 1) * size);
    let p = carry.p;
    own.forEach((s, i) => {
      if (records[j * size + i] !== undefined) p = poseidon([p, s.digest, s.tool, s.ok ? 1n : 0n]);
    });
    let { q, run, tool, ok, open } = carry;
    const rows = stream.slice(j * rowSize, (j + 1) * rowSize);
    rows.forEach((row, k) => {
      const isLive = j * rowSize + k < live;
      const continues = isLive && row.part !== 0;
      if (open && !continues) q = poseidon([q, run, tool, ok ? 1n : 0n]);
      run = tauRowsStep(continues ? run : 0n, row);
      tool = row.tool;
      ok = row.ok;
      open = isLive;
    });
    carry = {
      p,
      q,
      run: open ? run : 0n,
      tool: open ? tool : 0n,
      ok: open && ok,
      open,
      ended: !open,
    };
    carries.push(carry);
    segments.push({
      digests: own.map((s) => s.digest),
      tools: own.map((s) => s.tool),
      oks: own.map((s) => s.ok),
      rows,
      live: rows.map((_, k) => j * rowSize + k < live),
    });
  }
  return { segments, carries, stream };
}

/** The carry's fields as the state commitment holds them (after the keyed state's nine). */
export function streamCarryVector(c: StreamCarry): bigint[] {
  return [c.p, c.q, c.run, c.tool, c.ok ? 1n : 0n, c.open ? 1n : 0n, c.ended ? 1n : 0n];
}
