// The quick bench's plan, without building or proving anything: a cost-per-size curve (at least 3 sizes) for
// every registered predicate, made of instances the table holds and traces the bench can build, and the setup
// runs that would build what is missing.
import { describe, expect, it, vi } from "vitest";
import { readInstances } from "../../prover/artifacts/circuit-build.js";
import { PREDICATES } from "../../sdk/core/predicates/index.js";
import { runBench } from "../../scripts/bench/cli.js";
import {
  buildSteps,
  fullBuildPlan,
  QUICK_GROUP,
  QUICK_MAX_CAPACITY,
  quickPlan,
  type PlannedCircuit,
} from "../../scripts/bench/plan.js";
import { curveTable, type ResultRow } from "../../scripts/bench/report.js";
import { BENCH_PREDICATES, benchTraces } from "../../scripts/bench/traces.js";

const table = readInstances();
const registered = Object.keys(PREDICATES);
const plan = quickPlan(table, registered);

describe("quick bench plan", () => {
  it.each(registered)("%s: at least 3 sizes, each a whole-claim instance the bench has traces for", (p) => {
    const mine = plan.filter((c) => c.predicate === p);
    const sizes = new Set(mine.map((c) => c.capacity));
    expect(sizes.size, `${p}: ${mine.map((c) => c.name).join(", ")}`).toBeGreaterThanOrEqual(3);
    // One circuit per size: the escrow refuses two verifiers of one predicate at one capacity.
    expect(sizes.size).toBe(mine.length);
    expect(BENCH_PREDICATES).toContain(p);
    for (const c of mine) {
      const inst = table.find((i) => i.name === c.name)!;
      expect(inst.kind).toBeUndefined();
      expect(c.capacity).toBeLessThanOrEqual(QUICK_MAX_CAPACITY);
      const traces = benchTraces(p, c.capacity);
      expect(traces.satisfied).toHaveLength(c.capacity);
      expect(traces.violated).toHaveLength(c.capacity);
    }
  });

  it(`builds its own group (${QUICK_GROUP}) and otherwise only rows of the test and bench groups`, () => {
    const group = table.filter((i) => i.groups.includes(QUICK_GROUP)).map((i) => i.name);
    expect(group.length).toBeGreaterThan(0);
    for (const name of group) expect(plan.find((c) => c.name === name)?.capacity).toBe(QUICK_MAX_CAPACITY);
    for (const c of plan) expect(c.groups.some((g) => ["test", "bench", QUICK_GROUP].includes(g))).toBe(true);
  });

  it("builds no AAP-3 circuit that holds the 20-record session the demo and the segment tests settle by segments", () => {
    expect(plan.filter((c) => c.predicate === "AAP-3" && c.capacity >= 20)).toEqual([]);
  });

  it("builds its group in one setup run when most of it is missing, every other circuit with --only", () => {
    const group = plan.filter((c) => c.groups.includes(QUICK_GROUP));
    const others = plan.filter((c) => !c.groups.includes(QUICK_GROUP)).slice(0, 2);
    expect(buildSteps([...others, ...group], plan, table, QUICK_GROUP)).toEqual([
      ["--group", QUICK_GROUP],
      ...others.map((c) => ["--only", c.name]),
    ]);
    // One missing member: --only, so setup does not walk the whole group.
    expect(buildSteps([group[0]!], plan, table, QUICK_GROUP)).toEqual([["--only", group[0]!.name]]);
    // A plan narrowed to one predicate wants only part of the group: --group would build unasked circuits.
    const narrowed = quickPlan(table, ["AAP-1"]);
    const missing = narrowed.filter((c) => c.capacity >= 16);
    expect(buildSteps(missing, narrowed, table, QUICK_GROUP)).toEqual(missing.map((c) => ["--only", c.name]));
    expect(buildSteps([], plan, table, QUICK_GROUP)).toEqual([]);
  });

  it("a full run builds the bench group (one setup run when all of it is wanted)", () => {
    const full: PlannedCircuit[] = fullBuildPlan(table, registered);
    for (const c of full) expect(c.groups).toContain("bench");
    expect(new Set(full.map((c) => c.predicate))).toEqual(new Set(registered));
    expect(buildSteps(full, full, table, "bench")).toEqual([["--group", "bench"]]);
  });

  it("npm run bench -- --quick --plan --no-build prints the plan and builds nothing", async () => {
    const logs: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((m: string) => void logs.push(m));
    try {
      expect(await runBench(["--quick", "--plan", "--no-build"])).toBe(0);
    } finally {
      log.mockRestore();
    }
    const out = logs.join("\n");
    expect(out).toMatch(new RegExp(`quick bench: proves these ${plan.length} circuits`));
    for (const c of plan) expect(out).toContain(`${c.name} (${c.capacity})`);
    expect(out).toContain("nothing to build");
  });
});

describe("curve table", () => {
  it("one row per size with constraints, proof time, memory and settle gas; counted rows say so", () => {
    const row = (capacity: number, proven: boolean): ResultRow => ({
      predicate: "AAP-1",
      capacity,
      status: proven ? "proven" : "extrapolated",
      constraints: capacity * 900,
      constraintsPerRecord: 900,
      constraintsPerCheckpoint: 300,
      ...(proven
        ? {
            proveSeconds: { min: 1, median: 1.5, max: 2 },
            proveCpuSeconds: { min: 2, median: 2.5, max: 3 },
            peakRssMB: 250.4,
            gas: { settle: 294_116, claimDefault: 50_000 },
          }
        : {}),
    });
    const lines = curveTable([row(8, true), row(1024, false)]).split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe("| AAP-1 | 8 | 7,200 | 900 | 1.50 | 2.50 | 250 | 294,116 |");
    expect(lines[3]).toBe("| AAP-1 | 1024 (extrapolated) | 921,600 | 900 | — | — | — | — |");
  });
});
