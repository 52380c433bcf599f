// Constraint counts from compiling an r1cs alone (no wasm, no keys), for capacities whose keys cost too much
// to set up. They go through the build's one compile-and-cache (prover/artifacts/compile.ts): each count is
// kept in build/compiled/<label>-<key>/state.json under a key that covers the circuit's sources, the main
// file and the compiler versions, so a rerun only compiles what changed; the r1cs itself is dropped.
import {
  compileMain,
  loadInstances,
  type Instance,
  type MainSpec,
} from "../../prover/artifacts/circuit-build.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";

export interface CompiledCount {
  constraints: number;
  compileSeconds: number;
  /** Read from the compile cache: no compile ran now. */
  cached?: boolean;
}

/**
 * The instance whose θ sizes (and event slots) the compile-only counts use: the predicate's first
 * bench-group instance, so that counted capacities sit on the same curve as the built bench circuits.
 */
export async function baseInstance(predicate: string): Promise<Instance> {
  const table = await loadInstances();
  const ofPredicate = table.filter((i) => i.predicate === predicate);
  const inst =
    ofPredicate.find((i) => i.groups.includes("bench") && Number(i.params.depth) >= 6) ?? ofPredicate[0];
  if (!inst) throw new Error(`no ${predicate} instance in circuits/instances.json`);
  return inst;
}

/**
 * Compiles `main` to an r1cs alone and returns its constraint count. `label` names the cache folder.
 * With `cacheOnly`, undefined unless it is cached.
 */
export async function compileCount(
  label: string,
  main: Omit<MainSpec, "poseidon" | "origin">,
  onLine?: (line: string) => void,
  cacheOnly = false,
): Promise<CompiledCount | undefined> {
  const compiled = await compileMain({
    name: label,
    // Counts only: the lean Poseidon has the same constraints and compiles 4x faster in a quarter of the memory.
    main: { ...main, poseidon: "lean", origin: "scripts/bench/compile.ts" },
    countOnly: true,
    cacheOnly,
    onLine,
  });
  if (!compiled) return undefined;
  return {
    constraints: compiled.constraints,
    compileSeconds: compiled.compileSeconds,
    cached: compiled.cached,
  };
}

/**
 * A predicate's main circuit at capacity 2^depth with `checkpoints` fold entries (the protocol's
 * checkpointSlots(2^depth) unless given), other θ sizes as built.
 */
export async function predicateCount(
  predicate: string,
  depth: number,
  checkpoints: number = checkpointSlots(2 ** depth),
  onLine?: (line: string) => void,
  cacheOnly = false,
): Promise<CompiledCount | undefined> {
  const inst = await baseInstance(predicate);
  const args = [depth, checkpoints, ...(inst.args.slice(2) as number[])];
  const label = `${inst.template}_d${depth}_k${checkpoints}`;
  const main = { includes: [inst.source], template: inst.template, args, publicSignals: inst.publicSignals };
  return compileCount(label, main, onLine, cacheOnly);
}

/** A gadget `template(depth, checkpoints)` compiled alone, with no public signals. */
function gadgetCount(source: string, template: string) {
  return (depth: number, checkpoints: number, onLine?: (line: string) => void, cacheOnly = false) =>
    compileCount(
      `${template}_d${depth}_k${checkpoints}`,
      { includes: [source], template, args: [depth, checkpoints] },
      onLine,
      cacheOnly,
    );
}

/** The shared trace commitment alone (leaves, tree, prefix mask, checkpoints): what every predicate pays. */
export const commitmentCount = gadgetCount("circuits/gadgets/trace.circom", "CommittedTrace");

/**
 * The checkpoint part of the commitment alone: CheckpointFold(K) and CheckpointHeads(D, K), wired as
 * CommittedTrace wires them, over leaves and the prefix mask given as inputs (the harness of
 * scripts/bench/encodings.ts, E3). It is the only part of the commitment that grows with the number of fold
 * entries, so its K minus K − 1 difference is the cost of one entry (its fold hash and its lookup term), at a
 * fraction of the whole commitment's compile time. The rest of it (the lookup's table, a few constraints per
 * record, and its challenge) is paid whatever the number of checkpoints.
 */
export const checkpointLookupCount = gadgetCount(
  "scripts/bench/encodings/lookup_heads.circom",
  "LookupHeads",
);
