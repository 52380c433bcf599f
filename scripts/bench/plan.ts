// Which circuits a bench run proves, and building the ones it lacks, so `npm run bench` works on a fresh
// clone as `npm run demo` does. The quick bench's plan is every whole-claim instance of circuits/instances.json
// up to QUICK_MAX_CAPACITY records: the test group's (4 records; AAP-4's 8), the bench group's 8 and 16, and
// the bench-quick group's 32. Builds go through setup itself (scripts/setup.ts), one invocation at a time:
// setup holds a lock, and `--group` or `--only` are the only selections it takes.
import { existsSync } from "node:fs";
import path from "node:path";
import { buildTools, currentSourceHash, ROOT, type Instance } from "../../prover/artifacts/circuit-build.js";
import { loadManifest, type Manifest } from "../../sdk/manifest/manifest.js";
import { runTool } from "../../prover/artifacts/zkfiles.js";
import { capacityOfDepth } from "../../sdk/core/claim.js";

/** The instances only the quick bench needs beyond the test and bench groups' small rows. */
export const QUICK_GROUP = "bench-quick";
/**
 * The quick bench's largest circuit. Build and proof time grow with the constraints, about 730 a record at 32
 * records, so the 32-record circuits cost about as much as the 4-, 8- and 16-record ones together, and 64 would
 * about double the plan (docs/BENCHMARKS.md "Quick bench"). AAP-3 stops at 16 on purpose: an AAP-3 whole-claim circuit of 20 or more records would take over
 * the 20-record session the demo and test/e2e/segments.test.ts settle by segment chains.
 */
export const QUICK_MAX_CAPACITY = 32;
/** Proofs per circuit in the quick bench: one satisfied, one violated. */
export const QUICK_RUNS = 2;

export interface PlannedCircuit {
  name: string;
  predicate: string;
  capacity: number;
  groups: string[];
}

const planned = (i: Instance): PlannedCircuit => ({
  name: i.name,
  predicate: i.predicate,
  capacity: capacityOfDepth(Number(i.params.depth)),
  groups: i.groups,
});

const byCapacity = (a: PlannedCircuit, b: PlannedCircuit) =>
  a.capacity - b.capacity || a.predicate.localeCompare(b.predicate);

/** The quick bench's circuits: every whole-claim instance of `predicates` up to QUICK_MAX_CAPACITY records. */
export function quickPlan(table: readonly Instance[], predicates: readonly string[]): PlannedCircuit[] {
  return table
    .filter((i) => i.kind !== "segment" && predicates.includes(i.predicate))
    .map(planned)
    .filter((c) => c.capacity <= QUICK_MAX_CAPACITY)
    .sort(byCapacity);
}

/**
 * What the full bench builds before it proves: the bench group's whole-claim instances of `predicates` (8 to 64
 * records; the larger bench-large ones are built by hand: hours of circom). It then proves every built circuit
 * in its capacity range, these and any other.
 */
export function fullBuildPlan(table: readonly Instance[], predicates: readonly string[]): PlannedCircuit[] {
  return table
    .filter((i) => i.kind !== "segment" && i.groups.includes("bench") && predicates.includes(i.predicate))
    .map(planned)
    .sort(byCapacity);
}

/**
 * The setup invocations that build `missing`: one `--group` for `group` when every member of the group is
 * wanted (it then builds nothing unasked, and compiles two small circuits at a time), one `--only` for each
 * other circuit.
 */
export function buildSteps(
  missing: readonly PlannedCircuit[],
  wanted: readonly PlannedCircuit[],
  table: readonly Instance[],
  group?: string,
): string[][] {
  const members = group ? table.filter((i) => i.groups.includes(group)).map((i) => i.name) : [];
  const wholeGroup =
    members.length > 0 &&
    members.every((m) => wanted.some((w) => w.name === m)) &&
    missing.filter((m) => members.includes(m.name)).length > 1;
  const viaGroup = wholeGroup ? missing.filter((m) => members.includes(m.name)) : [];
  return [
    ...(viaGroup.length ? [["--group", group!]] : []),
    ...missing.filter((m) => !viaGroup.includes(m)).map((m) => ["--only", m.name]),
  ];
}

function readManifest(): Manifest | undefined {
  try {
    return loadManifest();
  } catch {
    return undefined; // a fresh clone: nothing built yet
  }
}

/** The circuits of `wanted` that the manifest lacks, or has from other sources than today's. */
export async function missingCircuits(
  wanted: readonly PlannedCircuit[],
  table: readonly Instance[],
): Promise<PlannedCircuit[]> {
  const manifest = readManifest();
  const tools = buildTools();
  const out: PlannedCircuit[] = [];
  for (const w of wanted) {
    const entry = manifest?.circuits[w.name];
    const inst = table.find((i) => i.name === w.name)!;
    const fresh =
      entry !== undefined &&
      existsSync(path.resolve(ROOT, entry.files.zkey.path)) &&
      entry.sourceHash === (await currentSourceHash(inst, tools));
    if (!fresh) out.push(w);
  }
  return out;
}

/** Runs setup once per step, in turn; `note` gets setup's progress lines. */
export async function runBuildSteps(
  steps: readonly string[][],
  step: (label: string, run: (note: (m: string) => void) => Promise<void>) => Promise<void>,
): Promise<number> {
  const started = Date.now();
  const tsx = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");
  for (const args of steps)
    await step(`build: setup ${args.join(" ")}`, (note) =>
      runTool(process.execPath, [tsx, path.join(ROOT, "scripts/setup.ts"), ...args], {
        cwd: ROOT,
        onLine: note,
      }).then(() => undefined),
    );
  return (Date.now() - started) / 1000;
}

/** `npm run bench -- --plan`: the circuits a run wants, which are missing, and the setup runs that build them. */
export function planText(
  wanted: readonly PlannedCircuit[],
  missing: readonly PlannedCircuit[],
  steps: readonly string[][],
  quick: boolean,
): string {
  const lines = [
    quick
      ? `quick bench: proves these ${wanted.length} circuits`
      : `full bench: builds these ${wanted.length} bench-group circuits where missing, then proves every built circuit in range`,
  ];
  for (const p of [...new Set(wanted.map((w) => w.predicate))].sort()) {
    const mine = wanted.filter((w) => w.predicate === p);
    const cell = (w: PlannedCircuit) =>
      `${w.name} (${w.capacity}${missing.some((m) => m.name === w.name) ? ", to build" : ""})`;
    lines.push(`  ${p}: ${mine.map(cell).join(", ")}`);
  }
  lines.push(
    steps.length
      ? `setup runs, in turn: ${steps.map((a) => `setup ${a.join(" ")}`).join("; ")}`
      : "nothing to build",
  );
  return lines.join("\n");
}

/** Printed after a quick run, and quoted in docs/BENCHMARKS.md: what the quick bench leaves out. */
export const FULL_BENCH_ADDS = `This was the quick bench: every predicate up to ${QUICK_MAX_CAPACITY} records (4, 8, 16, 32; AAP-3 up to 16,
AAP-4 from 8), ${QUICK_RUNS} proofs per circuit, no compile-only counts, no extrapolation. What the full bench adds
(docs/BENCHMARKS.md):
  npm run bench                  3 proofs per circuit on every built circuit from 16 records (it builds the
                                 bench group first: 8 to 64 records of every predicate), compile-only
                                 constraint counts up to 1,024 records, fits extrapolated to 256 and 1,024,
                                 and the prove-time cost model (seconds per constraint, per key MB and domain);
  npm run setup -- --group bench-large, then npm run bench
                                 proofs at 128 to 1,024 records (hours of circom on 2 cores; each
                                 1,024-record circuit takes 4-40 minutes and 3-4 GB);
  npm run bench:segments         segment chains: sessions of any length (to 10,000 records) cut into
                                 1,024-record segments, proven by worker processes, and their gas per claim;
  npm run bench:long             one 1,000-record session with its checkpoints on a hardhat node, proven;
  npm run bench:encodings        constraints per record of three checkpoint encodings;
  npm run bench:adapters         what each harness adapter adds per tool call.`;
