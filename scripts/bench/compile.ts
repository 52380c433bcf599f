// Constraint counts from compiling an r1cs alone (no wasm, no keys), for capacities whose keys cost too much
// to set up. Results are cached in build/bench/compiled.json under a key that covers every circuit source,
// the wrapper and the compiler version, so a rerun only compiles what changed.
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  loadInstances,
  pkgBin,
  pkgVersion,
  rel,
  ROOT,
  sourcesHash,
  type Instance,
} from "../../prover/artifacts/circuit-build.js";
import { poseidonChoice } from "../../prover/artifacts/poseidon-choice.js";
import { readR1csHeader, runTool, sha256Hex } from "../../prover/artifacts/zkfiles.js";

const CACHE = path.join(ROOT, "build/bench/compiled.json");

export interface CompiledCount {
  constraints: number;
  compileSeconds: number;
  /** Read from build/bench/compiled.json: no compile ran now. */
  cached?: boolean;
}

/** The instance-table entry whose template and θ sizes a predicate's bench variants reuse. */
/**
 * The instance whose θ sizes (and event slots) the compile-only counts use: the predicate's first
 * bench-group instance, so that counted capacities sit on the same curve as the built bench circuits.
 */
export async function baseInstance(predicate: string): Promise<Instance> {
  const table = await loadInstances(path.join(ROOT, "circuits/instances.json"));
  const ofPredicate = table.filter((i) => i.predicate === predicate);
  const inst =
    ofPredicate.find((i) => i.groups.includes("bench") && Number(i.params.depth) >= 6) ?? ofPredicate[0];
  if (!inst) throw new Error(`no ${predicate} instance in circuits/instances.json`);
  return inst;
}

async function loadCache(): Promise<Record<string, CompiledCount>> {
  if (!existsSync(CACHE)) return {};
  try {
    return JSON.parse(await readFile(CACHE, "utf8")) as Record<string, CompiledCount>;
  } catch {
    return {};
  }
}

/**
 * Compiles `template(args)` from `source` to an r1cs and returns its constraint count. `label` names the
 * scratch folder. The r1cs is deleted afterwards: only the count is kept.
 */
export async function compileCount(
  label: string,
  source: string,
  template: string,
  args: unknown[],
  publicSignals: string[],
  onLine?: (line: string) => void,
  cacheOnly = false,
): Promise<CompiledCount | undefined> {
  // Per process: two bench runs compiling the same variant must not share (and delete) one folder.
  const dir = path.join(ROOT, "build/bench", `${label}.${process.pid}`);
  const include = path.relative(dir, path.resolve(ROOT, source)).split(path.sep).join("/");
  const pub = publicSignals.length ? ` {public [${publicSignals.join(", ")}]}` : "";
  // Counts only: the lean Poseidon has the same constraints and compiles 4x faster in a quarter of the memory.
  const wrapper =
    `pragma circom 2.2.3;\ninclude "${include}";\n${poseidonChoice("lean")}\n` +
    `component main${pub} = ${template}(${args.map((a) => JSON.stringify(a)).join(", ")});\n`;
  // Keyed by the sources this variant compiles from, so that editing one predicate keeps the others' counts.
  const key = sha256Hex([wrapper, await sourcesHash(source), pkgVersion("circom2"), "--O2"].join("\n"));
  const cache = await loadCache();
  if (cache[key]) return { ...cache[key], cached: true };
  if (cacheOnly) return undefined;

  await mkdir(dir, { recursive: true });
  const main = path.join(dir, "main.circom");
  await writeFile(main, wrapper);
  const started = performance.now();
  try {
    await runTool(
      process.execPath,
      [pkgBin("circom2"), rel(main), "--r1cs", "--O2", "-l", "node_modules", "-l", ".", "-o", rel(dir)],
      { cwd: ROOT, onLine },
    );
    const result = {
      constraints: (await readR1csHeader(path.join(dir, "main.r1cs"))).nConstraints,
      compileSeconds: (performance.now() - started) / 1000,
    };
    // Re-read: another bench step may have added entries meanwhile.
    const fresh = { ...(await loadCache()), [key]: result };
    await mkdir(path.dirname(CACHE), { recursive: true });
    await writeFile(CACHE, JSON.stringify(fresh, null, 2) + "\n");
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A predicate's main circuit at capacity 2^depth with `checkpoints` checkpoints, other θ sizes as built. */
export async function predicateCount(
  predicate: string,
  depth: number,
  checkpoints: number,
  onLine?: (line: string) => void,
  cacheOnly = false,
): Promise<CompiledCount | undefined> {
  const inst = await baseInstance(predicate);
  const args = [depth, checkpoints, ...inst.args.slice(2)];
  const label = `${inst.template}_d${depth}_k${checkpoints}`;
  return compileCount(label, inst.source, inst.template, args, inst.publicSignals, onLine, cacheOnly);
}

/** A shared gadget `template(depth, checkpoints)` compiled alone, with no public signals. */
function gadgetCount(source: string, template: string) {
  return (depth: number, checkpoints: number, onLine?: (line: string) => void, cacheOnly = false) =>
    compileCount(
      `${template}_d${depth}_k${checkpoints}`,
      source,
      template,
      [depth, checkpoints],
      [],
      onLine,
      cacheOnly,
    );
}

/** The shared trace commitment alone (leaves, tree, prefix mask, checkpoints): what every predicate pays. */
export const commitmentCount = gadgetCount("circuits/gadgets/trace.circom", "CommittedTrace");

/**
 * The checkpoint chain alone (prefix commitments, range checks and the fold) over a tree given as input:
 * the only part of the trace commitment that grows with the number of checkpoints, so its K = 4 minus
 * K = 3 difference is the cost of one checkpoint, at a fraction of the whole commitment's compile time.
 */
export const checkpointChainCount = gadgetCount("circuits/gadgets/checkpoints.circom", "CheckpointChain");
