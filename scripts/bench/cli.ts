// `npm run bench`: what a claim costs, per predicate and capacity. Proves realistic traces
// (scripts/bench/traces.ts) on every built circuit, counts constraints past what is built, fits the cost
// models and writes raw results, a Markdown table and SVG plots. Results are written after every circuit,
// so a crash late in a long run keeps what finished.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { claimCircuits, loadManifest } from "../../prover/artifacts/manifest.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { releaseProver } from "../../prover/prove.js";
import { ROOT } from "../../prover/artifacts/circuit-build.js";
import { Progress } from "../../prover/artifacts/progress.js";
import { spread } from "./analysis.js";
import { benchMachine } from "./machine.js";
import {
  checkpointCostAt,
  constraintReport,
  type CompilePlan,
  type ConstraintReport,
} from "./constraints.js";
import { benchChain, measureCircuit, type CircuitMeasurement } from "./measure.js";
import {
  l2ClaimCost,
  L2_ASSUMPTIONS,
  markdownTable,
  proveCostModel,
  REFERENCE,
  writePlots,
  type ResultRow,
} from "./report.js";
import { BENCH_PREDICATES } from "./traces.js";

export const BENCH_USAGE = `usage: npm run bench -- [--quick] [--runs <n>] [--predicates AAP-1,AAP-4] [--min-capacity <n>] [--max-capacity <n>] [--no-compile] [--out <dir>]

Proves full-capacity satisfied and violated traces (built from fixtures/) on every built circuit of each
predicate (build more with \`npm run setup -- --group bench\`), each proof in its own process, and settles
them on the in-process chain. Traces are recorded under the default checkpoint policy (one every 10
records), so each proof folds the checkpoints a session of its length gets. Counts constraints of larger
capacities by compiling the r1cs alone, and extrapolates past that. Writes results.json, results.md and plots.
  --quick          capacity 8 only, 2 proofs each (one satisfied, one violated), no compile-only counts
  --runs <n>       proofs per circuit, alternating satisfied / violated (default 3; --quick: 2)
  --min-capacity, --max-capacity <n>
                   capacities to prove (default 16..any; --quick: 8..8)
  --no-compile     skip compile-only counts not already cached
  --circuits <a,b> prove only these built circuits (e.g. aap4_n64), within the capacity range
  --merge          keep proven rows of the previous results.json for circuits this run does not prove
  --out <dir>      where results go (default: docs/bench + docs/plots; with --quick build/bench/quick)
env BENCH_COMPILE_BUDGET_S: seconds of compile-only counting in a full run (default 900).
Exit 0: done. 1: a measurement failed. 2: bad arguments.`;

interface Options {
  quick: boolean;
  runs: number;
  predicates: string[];
  minCapacity: number;
  maxCapacity: number;
  compile: boolean;
  merge: boolean;
  /** Prove only these circuits (names from build/manifest.json). */
  circuits?: string[];
  resultsDir: string;
  plotsDir: string;
}

function parse(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      runs: { type: "string" },
      predicates: { type: "string" },
      "min-capacity": { type: "string" },
      "max-capacity": { type: "string" },
      "no-compile": { type: "boolean", default: false },
      merge: { type: "boolean", default: false },
      circuits: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) throw Object.assign(new Error(BENCH_USAGE), { help: true });
  const runs = Number(values.runs ?? (values.quick ? 2 : 3));
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  const predicates = values.predicates
    ? values.predicates.split(",").map((s) => s.trim().toUpperCase())
    : BENCH_PREDICATES;
  for (const p of predicates)
    if (!BENCH_PREDICATES.includes(p))
      throw new Error(`unknown predicate ${p} (known: ${BENCH_PREDICATES.join(", ")})`);
  const minCapacity = Number(values["min-capacity"] ?? (values.quick ? 8 : 16));
  const maxCapacity = Number(values["max-capacity"] ?? (values.quick ? 8 : Infinity));
  if (!(minCapacity <= maxCapacity)) throw new Error("--min-capacity must not exceed --max-capacity");
  const out = values.out ? path.resolve(values.out) : undefined;
  const quickDir = path.join(ROOT, "build/bench/quick");
  return {
    quick: values.quick,
    runs,
    predicates,
    minCapacity,
    maxCapacity,
    compile: !values["no-compile"] && !values.quick,
    merge: values.merge,
    circuits: values.circuits?.split(",").map((c) => c.trim()),
    resultsDir: out ?? (values.quick ? quickDir : path.join(ROOT, "docs/bench")),
    plotsDir: out
      ? path.join(out, "plots")
      : values.quick
        ? path.join(quickDir, "plots")
        : path.join(ROOT, "docs/plots"),
  };
}

function readOptionalJson(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function mergedCommands(previous: Record<string, unknown>): string[] {
  const earlier = Array.isArray(previous.mergedFrom) ? (previous.mergedFrom as string[]) : [];
  return typeof previous.command === "string" ? [...earlier, previous.command] : earlier;
}

function provenRow(
  c: ConstraintReport,
  predicate: string,
  capacity: number,
  checkpoints: number,
  m: CircuitMeasurement,
  constraints: number,
): ResultRow {
  const settles = m.runs.map((r) => r.settleGas);
  return {
    predicate,
    capacity,
    status: "proven",
    circuit: m.circuit,
    checkpoints,
    checkpointsPerTrace: m.checkpointsPerTrace,
    constraints,
    ...derivedCounts(c, predicate, capacity, constraints),
    witnessSeconds: spread(m.runs.map((r) => r.witnessSeconds)),
    proveSeconds: spread(m.runs.map((r) => r.proveSeconds)),
    proveCpuSeconds: spread(m.runs.map((r) => r.proveCpuSeconds)),
    loadAverage1m: spread(m.runs.map((r) => r.loadAverage1m)),
    verifySeconds: spread(m.runs.map((r) => r.verifySeconds)),
    peakRssMB: Math.max(...m.runs.map((r) => r.peakRssMB)),
    zkeyMB: m.zkeyMB,
    gas: { settle: spread(settles).median, ...m.gas },
    recordSeconds: m.recordSeconds,
    traceMix: m.traceMix,
    traceSources: m.traceSources,
    runs: m.runs,
  };
}

/**
 * The columns that depend on other capacities' counts: recomputed once more depths are counted. `kept`
 * are rows of an earlier run (--merge), whose counts stand in for circuits no longer in the manifest.
 */
function derivedCounts(
  c: ConstraintReport,
  predicate: string,
  capacity: number,
  constraints: number,
  kept: readonly ResultRow[] = [],
) {
  const half =
    c.points[predicate]?.find((p) => p.capacity === capacity / 2) ??
    kept.find((r) => r.predicate === predicate && r.capacity === capacity / 2);
  const cp = checkpointCostAt(c, Math.log2(capacity));
  return {
    constraintsPerRecord: constraints / capacity,
    constraintsPerRecordMarginal: half ? (constraints - half.constraints) / (capacity / 2) : undefined,
    constraintsPerCheckpoint: cp.value,
    constraintsPerCheckpointMeasured: cp.measured,
  };
}

function countRows(c: ConstraintReport, kept: readonly ResultRow[]): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const [predicate, points] of Object.entries(c.points)) {
    for (const p of points) {
      // Built circuits appear as proven rows; one not proven in this run (outside the range) is left out.
      if (p.source === "built") continue;
      rows.push({
        predicate,
        capacity: p.capacity,
        status: p.source,
        // Counted at the protocol's fold size (scripts/bench/constraints.ts).
        checkpoints: checkpointSlots(p.capacity),
        constraints: p.constraints,
        ...derivedCounts(c, predicate, p.capacity, p.constraints, kept),
        ...(p.compileSeconds ? { compileSeconds: p.compileSeconds } : {}),
      });
    }
  }
  return rows;
}

export async function runBench(argv: string[]): Promise<number> {
  let o: Options;
  try {
    o = parse(argv);
  } catch (e) {
    const help = (e as { help?: boolean }).help;
    (help ? console.log : console.error)(
      help ? BENCH_USAGE : `bench: ${(e as Error).message}\n\n${BENCH_USAGE}`,
    );
    return help ? 0 : 2;
  }
  const started = Date.now();
  const manifest = loadManifest();
  const circuits = claimCircuits(manifest)
    .map(([name, c]) => ({
      name,
      predicate: c.predicate,
      capacity: 2 ** Number(c.params.depth),
      checkpoints: Number(c.params.checkpoints),
      constraints: c.constraints,
    }))
    .filter(
      (c) => o.predicates.includes(c.predicate) && c.capacity >= o.minCapacity && c.capacity <= o.maxCapacity,
    )
    .filter((c) => !o.circuits || o.circuits.includes(c.name))
    .sort((a, b) => a.capacity - b.capacity || a.predicate.localeCompare(b.predicate));
  // The checkpoint lookup compiles in seconds: counted at every proven depth too, so each proven row's
  // per-checkpoint figure is its own. The whole commitment only at the listed depths.
  const provenDepths = circuits.map((c) => Math.log2(c.capacity));
  const checkpointPlan = (depths: number[]) => ({
    checkpointDepths: [...new Set([...depths, ...provenDepths])].sort((a, b) => a - b),
    commitmentDepths: depths,
  });
  const plan: CompilePlan = o.quick
    ? { depths: [], ...checkpointPlan([3]), extrapolate: [], budgetSeconds: 0, maxCompileSeconds: 0 }
    : {
        depths: o.compile ? [5, 6, 7, 8, 10] : [],
        ...checkpointPlan(o.compile ? [3, 4, 6, 7, 8, 10] : [3, 4]),
        extrapolate: [256, 1024],
        budgetSeconds: Number(process.env.BENCH_COMPILE_BUDGET_S ?? 900),
        maxCompileSeconds: 360,
      };
  const progress = new Progress({ total: circuits.length + 4 });
  mkdirSync(o.resultsDir, { recursive: true });
  const resultsFile = path.join(o.resultsDir, "results.json");
  const earlier = readOptionalJson(resultsFile);
  const earlierRows = (earlier.results as ResultRow[] | undefined) ?? [];
  const previous = earlierRows.filter((r) => r.status === "proven");
  // With --merge, predicates this run does not measure keep all they had: counted rows and fits too.
  const otherPredicate = (p: string) => o.merge && !o.predicates.includes(p);
  const keptCounts = earlierRows.filter((r) => r.status !== "proven" && otherPredicate(r.predicate));
  const keptFits = Object.fromEntries(
    Object.entries((earlier.constraintFits as Record<string, unknown> | undefined) ?? {}).filter(([p]) =>
      otherPredicate(p),
    ),
  );
  // Figures other scripts measure (scripts/bench-recorder.ts, scripts/bench-devzkey.ts,
  // scripts/bench-devptau.ts): their headline numbers at the top level, and their full
  // files under their own keys. The dev setup is the direct zkey; the dev ptau is no longer on its path.
  const recorder = readOptionalJson(path.join(ROOT, "docs/bench/recorder.json"));
  const devzkey = readOptionalJson(path.join(ROOT, "docs/bench/devzkey.json"));
  const devptau = readOptionalJson(path.join(ROOT, "docs/bench/devptau.json"));
  const extras = {
    recorderOverheadMs: recorder.recorderOverheadMs,
    devSetupSeconds: devzkey.devSetupSeconds,
    devPtauSeconds: devptau.devSetupSeconds,
    recorderBench: Object.keys(recorder).length ? recorder : undefined,
    devSetupBench: Object.keys(devzkey).length ? devzkey : undefined,
    devPtauBench: Object.keys(devptau).length ? devptau : undefined,
  };
  const head = {
    machine: benchMachine(),
    command: `npm run bench${argv.length ? ` -- ${argv.join(" ")}` : ""}`,
    // A --merge run keeps rows of earlier runs: name every run the rows came from.
    mergedFrom: o.merge ? mergedCommands(earlier) : undefined,
    measuredAt: new Date().toISOString(),
    runsPerCircuit: o.runs,
  };
  const measured: Array<{
    predicate: string;
    capacity: number;
    checkpoints: number;
    constraints: number;
    m: CircuitMeasurement;
  }> = [];
  const provenRows = (counts: ConstraintReport) =>
    measured.map((x) => provenRow(counts, x.predicate, x.capacity, x.checkpoints, x.m, x.constraints));
  // A kept row gets the domain only if it was measured on the circuit built now.
  const domainOf = (r: ResultRow) => {
    const c = r.circuit ? manifest.circuits[r.circuit] : undefined;
    return c && c.constraints === r.constraints ? { domainSize: 2 ** c.power } : {};
  };
  // With --merge, proven rows of the previous run stay for the circuits this run does not prove.
  const withKept = (fresh: ResultRow[]) => [
    ...fresh,
    ...(o.merge ? previous : []).filter(
      (r) => !fresh.some((f) => f.predicate === r.predicate && f.capacity === r.capacity),
    ),
  ];
  const save = (rest: Record<string, unknown>) =>
    writeFileSync(resultsFile, JSON.stringify({ ...head, ...rest, ...extras }, null, 2) + "\n");

  try {
    // Counts of the built circuits need no compile; the compile-only ones come after the proofs, so a
    // long compile never delays the measurements.
    let counts = await progress.step("constraint counts of the built circuits", (h) =>
      constraintReport(o.predicates, { ...plan, depths: [], ...checkpointPlan([3, 4]) }, (m) => h.note(m)),
    );
    const b = await progress.step(
      `deploy escrow and ${Object.keys(manifest.circuits).length} verifiers`,
      () => benchChain(),
    );
    for (const c of circuits) {
      const m = await progress.step(
        `${c.name}: ${o.runs} proofs of ${c.capacity}-record traces, settle, default`,
        (h) => measureCircuit(b, c.name, c.predicate, c.capacity, o.runs, (msg) => h.note(msg)),
      );
      measured.push({ ...c, m });
      save({ partial: true, results: withKept(provenRows(counts)) });
    }
    b.store.close();
    counts = await progress.step("compile-only constraint counts and extrapolation", (h) =>
      constraintReport(o.predicates, plan, (m) => h.note(m)),
    );
    // Per-checkpoint and marginal columns again, now that more depths are counted.
    const provenNow = withKept(provenRows(counts));
    const proven = provenNow.map((r) => ({
      ...r,
      ...domainOf(r),
      ...(otherPredicate(r.predicate)
        ? {}
        : derivedCounts(counts, r.predicate, r.capacity, r.constraints, provenNow)),
    }));
    // A capacity proven here or kept from an earlier run is not also a counted-only row.
    const counted = countRows(counts, provenNow).filter(
      (c) => !proven.some((r) => r.predicate === c.predicate && r.capacity === c.capacity),
    );
    const rows = [...proven, ...counted, ...keptCounts].sort(
      (a, b) => a.predicate.localeCompare(b.predicate) || a.capacity - b.capacity,
    );
    const model = proveCostModel(rows);
    const settles = rows.filter((r) => r.gas).map((r) => r.gas!.settle);
    // Per session: the largest proven one, with the checkpoints the default policy gave it.
    const session = rows
      .filter((r) => r.gas && r.status === "proven")
      .sort((a, b) => b.capacity - a.capacity || a.predicate.localeCompare(b.predicate))[0];
    const g = session?.gas;
    const sessionGas = g ? g.openSession! + (g.checkpointsTotal ?? 0) + g.closeSession! : 0;
    const l2 = settles.length
      ? {
          assumptions: L2_ASSUMPTIONS,
          session: session && {
            circuit: session.circuit,
            records: session.capacity,
            checkpoints: session.checkpointsPerTrace,
          },
          ...l2ClaimCost(Math.max(...settles), sessionGas),
        }
      : undefined;
    const out = {
      results: rows,
      constraintFits: {
        ...keptFits,
        ...Object.fromEntries(
          Object.entries(counts.fits).map(([p, f]) => [
            p,
            { model: "constraints ≈ c0 + c1·N + c2·N²", ...f },
          ]),
        ),
      },
      commitmentConstraints: counts.commitment,
      perCheckpointByDepth: counts.perCheckpoint,
      checkpointLookupByDepth: counts.checkpointPart,
      notCounted: counts.skipped,
      costModel: model && {
        proveSeconds: {
          model: "seconds ≈ a + b·constraints (median prove wall time)",
          ...model.proveSeconds,
        },
        proveCpuSeconds: {
          model: "CPU seconds ≈ a + b·constraints (median, all threads)",
          ...model.proveCpuSeconds,
        },
        peakRssMB: { model: "MB ≈ a + b·constraints", ...model.peakRssMB },
        proveSecondsByShape: model.proveSecondsByShape && {
          model:
            "seconds ≈ a + b·zkeyMB + c·domainSize (median prove wall time; the prover reads the key's points and A/B coefficients, and runs its FFTs over the padded 2^k domain)",
          ...model.proveSecondsByShape,
        },
      },
      l2ClaimCost: l2,
      reference: REFERENCE,
      totalSeconds: (Date.now() - started) / 1000,
    };
    save(out);
    const table = markdownTable(rows);
    writeFileSync(path.join(o.resultsDir, "results.md"), table + "\n");
    const plots = await progress.step("plots", async () => writePlots(rows, o.plotsDir));
    console.log(`\n${table}\n`);
    if (model)
      console.log(
        `prove time ≈ ${model.proveSeconds.coefficients[0].toFixed(3)} s + ${(model.proveSeconds.coefficients[1] * 1e6).toFixed(2)} µs·constraints (r² ${model.proveSeconds.r2.toFixed(3)})`,
      );
    const byShape = model?.proveSecondsByShape;
    if (byShape)
      console.log(
        `prove time ≈ ${byShape.coefficients[0].toFixed(3)} s + ${(byShape.coefficients[1] * 1e3).toFixed(1)} ms·zkeyMB + ${(byShape.coefficients[2] * 1e6).toFixed(2)} µs·domain (r² ${byShape.r2.toFixed(3)})`,
      );
    for (const s of counts.skipped) console.log(`not counted: ${s}`);
    console.log(
      `results: ${path.relative(ROOT, resultsFile)}; plots: ${plots.map((p) => path.relative(ROOT, p)).join(", ")}`,
    );
    return 0;
  } catch (e) {
    console.error(`bench: ${(e as Error)?.stack ?? e}`);
    return 1;
  } finally {
    await releaseProver();
  }
}
