// circuits/gadgets/record_rows.circom RowStream (issue 37): a segment chain's rows as one stream, a record's rows
// crossing a boundary. A session of four records (1, 4, 1 and 1 rows) in two segments of 2 records and 4 row
// slots: record 1's rows run from segment 0 into segment 1. The honest chain is accepted and closes (P equals Q
// with the open run pushed), with the exact cost; every way of moving rows is refused, either by a segment's
// constraints or by the chain's closing equality (the segment circuit's `isLast · (P − closed Q) = 0`): a row
// moved to the other record, a run split at the boundary, a row dropped or added, the carried run, tool or ok
// changed, a live row after a dead one, a segment that opens on a sub-row with no run open, records reordered.
import { beforeAll, describe, expect, it } from "vitest";
import { poseidon } from "../../sdk/core/hash.js";
import { RULE_FACTS } from "../../sdk/core/rules/rule.js";
import { tauRowsDigest, type FactRow } from "../../sdk/core/rules/tau-rows.js";
import { accepts, compileTestCircuit, signalValue, type TestCircuit } from "../helpers/circuit.js";

const N = 2;
const M = 4;
const W = RULE_FACTS;

const factRow = (part: number, ...facts: bigint[]): FactRow => ({
  part,
  facts: Array.from({ length: W }, (_, k) => facts[k] ?? 0n),
});

interface Rec {
  rows: FactRow[];
  tool: bigint;
  ok: boolean;
}
const RECORDS: Rec[] = [
  { rows: [factRow(0, 5n)], tool: 11n, ok: true },
  { rows: [factRow(0, 7n), factRow(5, 1n), factRow(5, 2n), factRow(5, 3n)], tool: 22n, ok: true },
  { rows: [factRow(0)], tool: 33n, ok: false },
  { rows: [factRow(0, 2n)], tool: 22n, ok: true },
];
interface Laid {
  row: FactRow;
  tool: bigint;
  ok: boolean;
  live: boolean;
}
const DEAD: Laid = { row: factRow(0), tool: 0n, ok: false, live: false };
const honestStream = (): Laid[] =>
  RECORDS.flatMap((r) => r.rows.map((row) => ({ row, tool: r.tool, ok: r.ok, live: true })));

interface Carry {
  pIn: string;
  qIn: string;
  runIn: string;
  toolIn: string;
  okIn: string;
  openIn: string;
  endedIn: string;
}
const START: Carry = { pIn: "0", qIn: "0", runIn: "0", toolIn: "0", okIn: "0", openIn: "0", endedIn: "0" };

function segmentInput(carry: Carry, records: Rec[], rows: Laid[]) {
  return {
    ...carry,
    push: records.map(() => "1"),
    digest: records.map((r) => String(tauRowsDigest(r.rows))),
    tool: records.map((r) => String(r.tool)),
    ok: records.map((r) => (r.ok ? "1" : "0")),
    live: rows.map((r) => (r.live ? "1" : "0")),
    part: rows.map((r) => String(r.row.part)),
    facts: rows.map((r) => r.row.facts.map(String)),
    rowTool: rows.map((r) => String(r.tool)),
    rowOk: rows.map((r) => (r.ok ? "1" : "0")),
  };
}

let circuit: TestCircuit;
beforeAll(async () => {
  circuit = await compileTestCircuit("row-stream-2-4", {
    includes: ["circuits/gadgets/record_rows.circom"],
    template: "RowStream",
    args: [N, M, W],
    publicSignals: [],
  });
}, 600_000);

/**
 * Runs the two segments over `stream` (padded with dead rows to 2M; `records` in order), carrying each one's
 * outputs into the next, with `edit` changing a segment's input first. Returns whether every segment is accepted
 * and the chain closes.
 */
async function chainAccepts(
  stream: Laid[],
  records: Rec[] = RECORDS,
  edit: (j: number, input: ReturnType<typeof segmentInput>) => void = () => {},
): Promise<boolean> {
  const padded = [...stream, ...Array.from({ length: 2 * M - stream.length }, () => DEAD)];
  if (padded.length !== 2 * M) return false;
  let carry = START;
  let out: Record<string, bigint> = {};
  for (let j = 0; j < 2; j++) {
    const input = segmentInput(carry, records.slice(j * N, (j + 1) * N), padded.slice(j * M, (j + 1) * M));
    edit(j, input);
    if (!(await accepts(circuit, input))) return false;
    const w = await circuit.witness(input);
    const names = ["pOut", "qOut", "runOut", "toolOut", "okOut", "openOut", "endedOut"];
    out = Object.fromEntries(names.map((n) => [n, signalValue(circuit, w, n)]));
    carry = {
      pIn: String(out.pOut),
      qIn: String(out.qOut),
      runIn: String(out.runOut),
      toolIn: String(out.toolOut),
      okIn: String(out.okOut),
      openIn: String(out.openOut),
      endedIn: String(out.endedOut),
    };
  }
  const closedQ =
    out.openOut === 1n ? poseidon([out.qOut!, out.runOut!, out.toolOut!, out.okOut!]) : out.qOut!;
  return out.pOut === closedQ;
}

describe("RowStream(2, 4, 12): a record's rows across a segment boundary", () => {
  // Per record: its P link Poseidon(4); per row: the chain's HashVector(14), the Q link Poseidon(4), the part's
  // IsZero and the row's flags. A change is a decision.
  it("costs exactly the measured constraints", () => {
    expect(circuit.constraints).toBe(ROW_STREAM_COST);
  });

  it("accepts the honest stream: record 1's four rows run from segment 0 into segment 1, and the chain closes", async () => {
    expect(await chainAccepts(honestStream())).toBe(true);
  });

  it("also when the stream ends exactly at a boundary (the open run closed by the caller)", async () => {
    const records = RECORDS.slice(0, 3).concat([
      { rows: [factRow(0, 2n), factRow(5, 8n)], tool: 22n, ok: true },
    ]);
    const stream = records.flatMap((r) => r.rows.map((row) => ({ row, tool: r.tool, ok: r.ok, live: true })));
    expect(stream.length).toBe(2 * M);
    expect(await chainAccepts(stream, records)).toBe(true);
  });

  it("refuses a row moved to the other record (record 1's last sub-row given to record 2)", async () => {
    const s = honestStream();
    const moved = s.splice(4, 1)[0]!;
    s.splice(5, 0, { ...moved, tool: 33n, ok: false });
    expect(await chainAccepts(s)).toBe(false);
  });

  it("refuses a run split at the boundary (segment 1 opens record 1's rest as a new record)", async () => {
    const s = honestStream();
    s[4] = { ...s[4]!, row: factRow(0, 3n) };
    expect(await chainAccepts(s)).toBe(false);
  });

  it("refuses a row dropped, or one added, at the boundary", async () => {
    const dropped = honestStream();
    dropped.splice(4, 1);
    expect(await chainAccepts(dropped)).toBe(false);
    const added = honestStream();
    added.splice(4, 0, { row: factRow(5, 9n), tool: 22n, ok: true, live: true });
    expect(await chainAccepts(added)).toBe(false);
  });

  it("refuses the carried run, tool or ok changed at the boundary", async () => {
    for (const key of ["runIn", "toolIn", "okIn"] as const) {
      const accepted = await chainAccepts(honestStream(), RECORDS, (j, input) => {
        if (j === 1) input[key] = key === "okIn" ? "0" : String(BigInt(input[key]) + 1n);
      });
      expect(accepted, key).toBe(false);
    }
  });

  it("refuses a segment that opens on a sub-row with no run open, or a live row after a dead one", async () => {
    const opened = await chainAccepts(honestStream(), RECORDS, (j, input) => {
      if (j === 1) input.openIn = "0";
    });
    expect(opened).toBe(false);
    const revived = await chainAccepts(honestStream(), RECORDS, (j, input) => {
      if (j === 0) {
        input.live = ["1", "1", "0", "1"];
        input.rowOk = ["1", "1", "0", "1"];
      }
    });
    expect(revived).toBe(false);
    const ended = await chainAccepts(honestStream(), RECORDS, (j, input) => {
      if (j === 1) input.endedIn = "1";
    });
    expect(ended).toBe(false);
  });

  it("refuses the records in another order than their rows", async () => {
    const swapped = [RECORDS[0]!, RECORDS[1]!, RECORDS[3]!, RECORDS[2]!];
    expect(await chainAccepts(honestStream(), swapped)).toBe(false);
  });

  it("constrains every signal it assigns: each output or internal signal of an honest segment, edited alone, breaks a constraint (but a zero part's IsZero inverse)", async () => {
    const input = segmentInput(START, RECORDS.slice(0, N), [...honestStream().slice(0, M)]);
    const w = await circuit.witness(input);
    expect(circuit.firstUnsatisfied(w)).toBe(-1);
    // Witness layout: 0 the constant, 1.. the outputs, then the inputs (nInputs counts both), then the rest.
    const outputs = 7;
    const assigned = [
      ...Array.from({ length: outputs }, (_, k) => 1 + k),
      ...Array.from({ length: circuit.nVars - 1 - circuit.nInputs }, (_, k) => circuit.nInputs + 1 + k),
    ];
    expect(assigned.length).toBeGreaterThan(100);
    const loose = assigned.filter((i) => {
      const forged = [...w];
      forged[i] = w[i]! + 1n;
      return circuit.firstUnsatisfied(forged) === -1;
    });
    // The one freedom: IsZero's inverse hint (<--) of a part that is 0 (rows 0 and 1 start records) is any value,
    // and its output is 1 whatever it is (circomlib's IsZero: out = 1 − in·inv, in·out = 0).
    const names = new Map([...circuit.signals].map(([name, i]) => [i, name]));
    expect(loose.map((i) => names.get(i))).toEqual([
      expect.stringMatching(/^IsZero_.*\[0\]\.inv$/),
      expect.stringMatching(/^IsZero_.*\[1\]\.inv$/),
    ]);
  });

  it("refuses a row's tool or ok changed inside a run", async () => {
    const s = honestStream();
    s[2] = { ...s[2]!, tool: 99n };
    expect(await chainAccepts(s)).toBe(false);
    const t = honestStream();
    t[5] = { ...t[5]!, ok: true };
    expect(await chainAccepts(t)).toBe(false);
  });
});

const ROW_STREAM_COST = 3_993;
