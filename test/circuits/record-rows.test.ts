// circuits/gadgets/record_rows.circom: RecordRows ties row slots to records (docs/SOUNDNESS.md "A record's rows").
// Four records of 1, 3, 1 and 2 rows in 8 row slots (one not live): the honest layout is accepted, with its exact
// cost; every way of moving rows between records is refused: a row moved to another record, a run split or merged,
// a sub-row dropped, added or reordered, two records' runs swapped, a row's tool, ok or fact changed, a dead row
// made live, a live row made dead. A record whose digest binds nothing (no executed call) may be given any rows
// that chain to its free digest: accepted, and harmless, as its ok is 0 and no rule reads it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RULE_FACTS } from "../../sdk/core/rules/rule.js";
import { tauRowsDigest, type FactRow } from "../../sdk/core/rules/tau-rows.js";
import { accepts, compileTestCircuit, type TestCircuit } from "../helpers/circuit.js";

const N = 4;
const M = 8;
const W = RULE_FACTS;

const factRow = (part: number, ...facts: bigint[]): FactRow => ({
  part,
  facts: Array.from({ length: W }, (_, k) => facts[k] ?? 0n),
});

interface Layout {
  records: { rows: FactRow[]; tool: bigint; ok: boolean }[];
}

const HONEST: Layout = {
  records: [
    { rows: [factRow(0, 5n)], tool: 11n, ok: true },
    { rows: [factRow(0, 7n, 1n), factRow(1), factRow(3, 9n, 4n)], tool: 22n, ok: true },
    { rows: [factRow(0)], tool: 33n, ok: false },
    { rows: [factRow(0, 2n), factRow(4, 6n)], tool: 22n, ok: true },
  ],
};

/** The input for records as the digests bind them, and rows laid out as `rows` says (the honest layout by default). */
function input(layout: Layout, rows?: { row: FactRow; tool: bigint; ok: boolean; live?: boolean }[]) {
  const laid =
    rows ?? layout.records.flatMap((r) => r.rows.map((row) => ({ row, tool: r.tool, ok: r.ok, live: true })));
  const padded = [
    ...laid,
    ...Array.from({ length: M - laid.length }, () => ({ row: factRow(0), tool: 0n, ok: false, live: false })),
  ];
  return {
    seedIn: "77",
    digest: layout.records.map((r) => String(tauRowsDigest(r.rows))),
    tool: layout.records.map((r) => String(r.tool)),
    ok: layout.records.map((r) => (r.ok ? "1" : "0")),
    live: padded.map((r) => (r.live === false ? "0" : "1")),
    part: padded.map((r) => String(r.row.part)),
    facts: padded.map((r) => r.row.facts.map(String)),
    rowTool: padded.map((r) => String(r.tool)),
    rowOk: padded.map((r) => (r.ok ? "1" : "0")),
  };
}

/** The honest rows as a flat list, to edit. */
const flat = () =>
  HONEST.records.flatMap((r) => r.rows.map((row) => ({ row, tool: r.tool, ok: r.ok, live: true })));

let circuit: TestCircuit;
beforeAll(async () => {
  circuit = await compileTestCircuit("record-rows-4-8", {
    includes: ["circuits/gadgets/record_rows.circom"],
    template: "RecordRows",
    args: [N, M, W],
    publicSignals: [],
  });
}, 600_000);

describe("RecordRows(4, 8, 12)", () => {
  // Per row: the chain's HashVector(14), the run-end link Poseidon(4), the product; per record: its tuple; once:
  // HashVector(4) of the digests and three Poseidons for the seed and the challenges. A change is a decision.
  it("costs exactly 7,837 constraints", () => {
    expect(circuit.constraints).toBe(7_837);
  });

  it("accepts the records' rows, record by record", async () => {
    expect(await accepts(circuit, input(HONEST))).toBe(true);
  });

  it("refuses rows moved between records, runs split or merged, rows dropped, added, reordered or swapped", async () => {
    const rows = flat();
    const moved = [...rows];
    // Record 1's third row (a sub-row) moved to the end of record 3.
    const [third] = moved.splice(3, 1);
    moved.push({ ...third!, tool: 22n });
    const split = rows.map((r, i) => (i === 2 ? { ...r, row: { ...r.row, part: 0 } } : r));
    const merged = rows.map((r, i) =>
      i === 4 ? { ...r, row: { ...r.row, part: 2 }, tool: 22n, ok: true } : r,
    );
    const dropped = rows.filter((_, i) => i !== 2);
    const added = [...rows, { row: factRow(4, 8n), tool: 22n, ok: true, live: true }];
    const reordered = rows.map((r, i) => (i === 2 ? rows[3]! : i === 3 ? rows[2]! : r));
    const swapped = [rows[0]!, ...rows.slice(5), rows[4]!, ...rows.slice(1, 4)];
    for (const [what, laid] of Object.entries({ moved, split, merged, dropped, added, reordered, swapped }))
      expect(await accepts(circuit, input(HONEST, laid)), what).toBe(false);
  });

  it("refuses a row's tool, ok or fact changed, a dead row made live, a live row made dead", async () => {
    const rows = flat();
    const edits = {
      "a run's tool": rows.map((r, i) => (i >= 1 && i <= 3 ? { ...r, tool: 99n } : r)),
      "a sub-row's tool alone": rows.map((r, i) => (i === 2 ? { ...r, tool: 99n } : r)),
      "a record without ok read as ok": rows.map((r, i) => (i === 4 ? { ...r, ok: true } : r)),
      "a sub-row's fact": rows.map((r, i) => (i === 3 ? { ...r, row: factRow(3, 9n, 5n) } : r)),
      "a dead row made live (a sub-row of the last record)": [
        ...rows,
        { row: factRow(1), tool: 22n, ok: true, live: true },
      ],
      "a live row made dead": rows.map((r, i) => (i === 6 ? { ...r, live: false } : r)),
    };
    for (const [what, laid] of Object.entries(edits))
      expect(await accepts(circuit, input(HONEST, laid)), what).toBe(false);
    // A row past the live ones claiming ok.
    const deadOk = input(HONEST);
    deadOk.rowOk[M - 1] = "1";
    expect(await accepts(circuit, deadOk), "a dead row with ok").toBe(false);
    // Live rows after a dead one.
    const gap = input(HONEST);
    gap.live[3] = "0";
    expect(await accepts(circuit, gap), "a live row after a dead one").toBe(false);
  });

  it("takes any rows for a record whose digest binds nothing (ok 0, read by no rule), chained to its free digest", async () => {
    const other: Layout = {
      records: HONEST.records.map((r, k) => (k === 2 ? { ...r, rows: [factRow(0, 3n), factRow(5, 1n)] } : r)),
    };
    expect(await accepts(circuit, input(other))).toBe(true);
  });
});

describe("the empty record's rows digest", () => {
  it("is the circuits' constant (EMPTY_ROWS_DIGEST_W12): a record that binds no rows has exactly one empty row", () => {
    const source = readFileSync(
      join(import.meta.dirname, "..", "..", "circuits/gadgets/record_rows.circom"),
      "utf8",
    );
    const constant = /function EMPTY_ROWS_DIGEST_W12\(\) \{\s*return (\d+);/.exec(source)?.[1];
    expect(constant).toBeDefined();
    expect(BigInt(constant!)).toBe(tauRowsDigest([factRow(0)]));
  });
});
