// `npm run bench` flags: what a run proves, what it builds first, and where it writes.
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "../../prover/artifacts/circuit-build.js";
import { QUICK_GROUP, QUICK_MAX_CAPACITY, QUICK_RUNS } from "./plan.js";
import { BENCH_PREDICATES } from "./traces.js";

export const BENCH_USAGE = `usage: npm run bench -- [--quick] [--runs <n>] [--predicates AAP-1,AAP-4] [--min-capacity <n>] [--max-capacity <n>] [--no-compile] [--no-build] [--plan] [--out <dir>]

Proves full-capacity satisfied and violated traces (built from fixtures/) on every built circuit of each
predicate, each proof in its own process, and settles them on the in-process chain. It first builds the
circuits it needs through setup (the bench group; with --quick its own plan), so it runs on a fresh clone.
Traces are recorded under the default checkpoint policy (one every 10 records), so each proof folds the
checkpoints a session of its length gets. Counts constraints of larger capacities by compiling the r1cs
alone, and extrapolates past that. Writes results.json, results.md and plots.
  --quick          a cost-per-size curve for every predicate in minutes: every instance up to ${QUICK_MAX_CAPACITY} records
                   (4, 8, 16, 32; AAP-3 to 16, AAP-4 from 8: the test, bench and ${QUICK_GROUP} groups' rows), built
                   first where missing; ${QUICK_RUNS} proofs each (one satisfied, one violated); no compile-only counts
  --runs <n>       proofs per circuit, alternating satisfied / violated (default 3; --quick: ${QUICK_RUNS})
  --min-capacity, --max-capacity <n>
                   capacities to prove (default 16..any; --quick: its plan's)
  --no-compile     skip compile-only counts not already cached
  --no-build       build nothing: prove only what build/manifest.json already holds
  --plan           print the circuits this run would prove and the setup runs it would start, then exit
  --circuits <a,b> prove only these built circuits (e.g. aap4_n64), within the capacity range
  --merge          keep proven rows of the previous results.json for circuits this run does not prove
  --out <dir>      where results go (default: docs/bench + docs/plots; with --quick build/bench/quick)
env BENCH_COMPILE_BUDGET_S: seconds of compile-only counting in a full run (default 900).
Exit 0: done. 1: a measurement or a build failed. 2: bad arguments.`;

export interface Options {
  quick: boolean;
  runs: number;
  predicates: string[];
  minCapacity: number;
  maxCapacity: number;
  compile: boolean;
  merge: boolean;
  /** Build the circuits the run needs first (setup); false with --no-build. */
  build: boolean;
  /** Print the plan and exit. */
  planOnly: boolean;
  /** Prove only these circuits (names from build/manifest.json). */
  circuits?: string[];
  resultsDir: string;
  plotsDir: string;
}

export function parseBenchArgs(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      runs: { type: "string" },
      predicates: { type: "string" },
      "min-capacity": { type: "string" },
      "max-capacity": { type: "string" },
      "no-compile": { type: "boolean", default: false },
      "no-build": { type: "boolean", default: false },
      plan: { type: "boolean", default: false },
      merge: { type: "boolean", default: false },
      circuits: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) throw Object.assign(new Error(BENCH_USAGE), { help: true });
  const runs = Number(values.runs ?? (values.quick ? QUICK_RUNS : 3));
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  const predicates = values.predicates
    ? values.predicates.split(",").map((s) => s.trim().toUpperCase())
    : BENCH_PREDICATES;
  for (const p of predicates)
    if (!BENCH_PREDICATES.includes(p))
      throw new Error(`unknown predicate ${p} (known: ${BENCH_PREDICATES.join(", ")})`);
  // The quick plan picks its own capacities (plan.ts); the range only narrows it.
  const minCapacity = Number(values["min-capacity"] ?? (values.quick ? 1 : 16));
  const maxCapacity = Number(values["max-capacity"] ?? (values.quick ? QUICK_MAX_CAPACITY : Infinity));
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
    build: !values["no-build"],
    planOnly: values.plan,
    circuits: values.circuits?.split(",").map((c) => c.trim()),
    resultsDir: out ?? (values.quick ? quickDir : path.join(ROOT, "docs/bench")),
    plotsDir: out
      ? path.join(out, "plots")
      : values.quick
        ? path.join(quickDir, "plots")
        : path.join(ROOT, "docs/plots"),
  };
}
