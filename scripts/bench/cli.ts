// `npm run bench`: what a claim costs, per predicate and capacity. Proves realistic traces
// (scripts/bench/traces.ts) on every built circuit, counts constraints past what is built, fits the cost
// models and writes raw results, a Markdown table and SVG plots. Results are written after every circuit,
// so a crash late in a long run keeps what finished.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { claimCircuits, loadManifest } from "../../sdk/manifest/manifest.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { releaseProver } from "../../prover/prove.js";
import { loadInstances, ROOT } from "../../prover/artifacts/circuit-build.js";
import { formatSeconds, Progress } from "../../prover/artifacts/progress.js";
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
  curveTable,
  l2ClaimCost,
  L2_ASSUMPTIONS,
  markdownTable,
  proveCostModel,
  REFERENCE,
  writePlots,
  type ResultRow,
} from "./report.js";
import { BENCH_USAGE, parseBenchArgs, type Options } from "./options.js";
import {
  buildSteps,
  FULL_BENCH_ADDS,
  fullBuildPlan,
  missingCircuits,
  planText,
  QUICK_GROUP,
  quickPlan,
  runBuildSteps,
  type PlannedCircuit,
} from "./plan.js";

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
    o = parseBenchArgs(argv);
  } catch (e) {
    const help = (e as { help?: boolean }).help;
    (help ? console.log : console.error)(
      help ? BENCH_USAGE : `bench: ${(e as Error).message}\n\n${BENCH_USAGE}`,
    );
    return help ? 0 : 2;
  }
  const started = Date.now();
  const table = await loadInstances();
  const selected = (c: PlannedCircuit) =>
    c.capacity >= o.minCapacity &&
    c.capacity <= o.maxCapacity &&
    (!o.circuits || o.circuits.includes(c.name));
  // --quick proves its plan and nothing else; a full run proves every built circuit in range, and builds the
  // bench group's first.
  const quick = o.quick ? quickPlan(table, o.predicates).filter(selected) : undefined;
  // Below the range too: the bench group's 8-record rows cost little, and wanting the whole group lets one
  // `setup --group bench` build it two circuits at a time.
  const wanted =
    quick ??
    fullBuildPlan(table, o.predicates).filter(
      (c) => c.capacity <= o.maxCapacity && (!o.circuits || o.circuits.includes(c.name)),
    );
  const missing = o.build ? await missingCircuits(wanted, table) : [];
  const steps = buildSteps(missing, wanted, table, o.quick ? QUICK_GROUP : "bench");
  if (o.planOnly) {
    console.log(planText(wanted, missing, steps, o.quick));
    return 0;
  }
  const progress = new Progress({ total: steps.length + (quick?.length ?? 0) + 4 });
  let buildSeconds: number;
  try {
    buildSeconds = await runBuildSteps(steps, (label, run) => progress.step(label, (h) => run(h.note)));
  } catch (e) {
    console.error(`bench: ${(e as Error).message}`);
    return 1;
  }
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
      (c) =>
        o.predicates.includes(c.predicate) &&
        selected({ ...c, groups: [] }) &&
        (!quick || quick.some((q) => q.name === c.name)),
    )
    .sort((a, b) => a.capacity - b.capacity || a.predicate.localeCompare(b.predicate));
  progress.setTotal(steps.length + circuits.length + 4);
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
    // What this run built before it measured (setup), included in totalSeconds.
    build: {
      setupRuns: steps.map((a) => `setup ${a.join(" ")}`),
      built: missing.map((m) => m.name),
      seconds: buildSeconds,
    },
    quickPlan: quick?.map((q) => q.name),
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
    // The curve table first: the columns a cost-per-size curve reads; every column follows.
    const curves = curveTable(rows);
    writeFileSync(path.join(o.resultsDir, "results.md"), `${curves}\n\n${table}\n`);
    const plots = await progress.step("plots", async () => writePlots(rows, o.plotsDir));
    console.log(`\n${o.quick ? curves : table}\n`);
    if (model)
      console.log(
        `prove time ≈ ${model.proveSeconds.coefficients[0].toFixed(3)} s + ${(model.proveSeconds.coefficients[1] * 1e6).toFixed(2)} µs·constraints (r² ${model.proveSeconds.r2.toFixed(3)})`,
      );
    const byShape = model?.proveSecondsByShape;
    if (byShape)
      console.log(
        `prove time ≈ ${byShape.coefficients[0].toFixed(3)} s + ${(byShape.coefficients[1] * 1e3).toFixed(1)} ms·zkeyMB + ${(byShape.coefficients[2] * 1e6).toFixed(2)} µs·domain (r² ${byShape.r2.toFixed(3)})`,
      );
    if (!o.quick) for (const s of counts.skipped) console.log(`not counted: ${s}`);
    console.log(
      `results: ${path.relative(ROOT, resultsFile)}${o.quick ? " (every column: results.md)" : ""}; plots: ${plots.map((p) => path.relative(ROOT, p)).join(", ")}`,
    );
    const took = formatSeconds(Date.now() - started);
    const builds = missing.length
      ? `, ${formatSeconds(buildSeconds * 1000)} of it building ${missing.length} circuit${missing.length === 1 ? "" : "s"} first`
      : ", nothing to build";
    console.log(`${measured.length} circuits measured in ${took}${builds}.`);
    if (o.quick) console.log(`\n${FULL_BENCH_ADDS}`);
    return 0;
  } catch (e) {
    console.error(`bench: ${(e as Error)?.stack ?? e}`);
    return 1;
  } finally {
    await releaseProver();
  }
}
