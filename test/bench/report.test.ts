// The bench report's table and the per-checkpoint lookup of the constraint report: the columns say what
// the circuit holds and what each trace used, and a figure not measured reads as such, never as 0.
import { describe, expect, it } from "vitest";
import { checkpointCostAt, type ConstraintReport } from "../../scripts/bench/constraints.js";
import { markdownTable, type ResultRow } from "../../scripts/bench/report.js";

const report = (perCheckpoint: Record<number, number>): ConstraintReport => ({
  points: {},
  fits: {},
  perCheckpoint,
  checkpointPart: {},
  commitment: {},
  skipped: [],
});

describe("bench report", () => {
  const proven = (capacity: number, checkpointsPerTrace: number, checkpoint?: number): ResultRow => ({
    predicate: "AAP-4",
    capacity,
    status: "proven",
    checkpoints: Math.ceil(capacity / 10) + 1,
    checkpointsPerTrace,
    constraints: 10_000,
    constraintsPerRecord: 10_000 / capacity,
    constraintsPerCheckpoint: 300,
    constraintsPerCheckpointMeasured: true,
    gas: {
      settle: 250_000,
      claimDefault: 90_000,
      ...(checkpoint === undefined ? {} : { checkpoint }),
    },
  });

  it("shows the circuit's slots and the trace's checkpoints, and no checkpoint gas where none was sent", () => {
    const table = markdownTable([proven(8, 0), proven(64, 6, 52_000)]).split("\n");
    const header = table[0]!.split("|").map((c) => c.trim());
    const cells = (line: string) => line.split("|").map((c) => c.trim());
    const col = (name: string) => header.indexOf(name);
    expect(col("checkpoints (slots / per trace)")).toBeGreaterThan(0);
    expect(table[1]!.split("|").length).toBe(table[0]!.split("|").length);
    const [small, large] = [cells(table[2]!), cells(table[3]!)];
    expect(small[col("checkpoints (slots / per trace)")]).toBe("2 / 0");
    expect(large[col("checkpoints (slots / per trace)")]).toBe("8 / 6");
    expect(small[col("checkpoint gas")]).toBe("—");
    expect(large[col("checkpoint gas")]).toBe("52,000");
    expect(large[col("per checkpoint slot")]).toBe("300");
  });

  it("per-checkpoint cost: measured at its depth, else the nearest measured depth's, marked", () => {
    const r = report({ 3: 290, 6: 300 });
    expect(checkpointCostAt(r, 3)).toEqual({ value: 290, measured: true });
    expect(checkpointCostAt(r, 7)).toEqual({ value: 300, measured: false });
    expect(checkpointCostAt(report({}), 4).value).toBeNaN();
  });
});
