// Constraint counts per predicate and capacity: built circuits (manifest), compile-only counts for
// capacities whose keys cost too much, and a fitted a + b·N + c·N² extrapolation past what compiles in
// reasonable time. Every count is at the protocol's fold size, K = checkpointSlots(N) entries; the cost of
// one entry comes from the checkpoint lookup alone (CheckpointFold + CheckpointHeads) at K and K − 1.
import { claimCircuits, loadManifest } from "../../sdk/manifest/manifest.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { evaluatePoly, polyFit, type Fit } from "./analysis.js";
import { checkpointLookupCount, commitmentCount, predicateCount } from "./compile.js";

export type CountSource = "built" | "compiled, not proven" | "extrapolated";

export interface CountPoint {
  capacity: number;
  constraints: number;
  source: CountSource;
  compileSeconds?: number;
}

export interface ConstraintReport {
  /** Per predicate, every capacity with a count, ascending. */
  points: Record<string, CountPoint[]>;
  /** Per predicate: constraints ≈ c0 + c1·N + c2·N² over the built and compiled points. */
  fits: Record<string, Fit>;
  /**
   * Per depth: the cost of one more fold entry (the checkpoint lookup at K = checkpointSlots(2^depth) minus
   * K − 1). A circuit pays it for each of its K entries, used by a session's checkpoints or not.
   */
  perCheckpoint: Record<number, number>;
  /** Per depth: the checkpoint lookup at its K, split into the K entries and what is paid whatever K is. */
  checkpointPart: Record<number, CheckpointPart>;
  /** Commitment alone at K = checkpointSlots(2^depth), per depth: what every predicate pays. */
  commitment: Record<number, number>;
  skipped: string[];
}

export interface CheckpointPart {
  /** Fold entries, checkpointSlots(2^depth). */
  checkpoints: number;
  /** CheckpointFold(K) + CheckpointHeads(D, K) over leaves given as inputs. */
  constraints: number;
  /** checkpoints × the per-entry cost. */
  entries: number;
  /** The rest: the lookup's table over the 2^depth rows and its challenge. */
  table: number;
}

export interface CompilePlan {
  /** Depths to compile per predicate when no built circuit has them. */
  depths: number[];
  /** Depths whose checkpoint lookup is compiled (seconds each). */
  checkpointDepths: number[];
  /** Of those, the depths whose whole commitment is compiled too, within the budget (default: all). */
  commitmentDepths?: number[];
  /** Capacities to extrapolate to. */
  extrapolate: number[];
  /** Stop compiling once this much time went into compiles (seconds). */
  budgetSeconds: number;
  /** Skip a compile whose predicted time (from the last one, scaled by size) exceeds this. */
  maxCompileSeconds: number;
}

export async function constraintReport(
  predicates: string[],
  plan: CompilePlan,
  note: (m: string) => void,
): Promise<ConstraintReport> {
  const manifest = loadManifest();
  const points: Record<string, CountPoint[]> = {};
  const skipped: string[] = [];
  let spent = 0;
  const overBudget = () => spent > plan.budgetSeconds;

  for (const p of predicates) {
    points[p] = claimCircuits(manifest)
      .map(([, c]) => c)
      // Only circuits at the protocol's fold size: their counts are what a deployment would pay.
      .filter(
        (c) =>
          c.predicate === p && Number(c.params.checkpoints) === checkpointSlots(2 ** Number(c.params.depth)),
      )
      .map((c) => ({
        capacity: 2 ** Number(c.params.depth),
        constraints: c.constraints,
        source: "built" as const,
      }));
  }
  // Breadth first (every predicate at one depth before the next) so a budget cut leaves even coverage.
  for (const depth of [...plan.depths].sort((a, b) => a - b)) {
    for (const p of predicates) {
      const have = points[p];
      if (have.some((x) => x.capacity === 2 ** depth)) continue;
      const last = [...have].filter((x) => x.compileSeconds).sort((a, b) => b.capacity - a.capacity)[0];
      // Compile time grows about with the constraint count, which at least doubles per depth here.
      const predicted = last ? last.compileSeconds! * (2 ** depth / last.capacity) ** 1.5 : 0;
      const refuse = overBudget() || predicted > plan.maxCompileSeconds;
      if (!refuse) note(`compile ${p} at ${2 ** depth} records (r1cs only)`);
      const r = await predicateCount(p, depth, checkpointSlots(2 ** depth), undefined, refuse);
      if (!r) {
        skipped.push(
          `${p} at ${2 ** depth}: not compiled (${overBudget() ? "compile budget spent" : `predicted ~${Math.round(predicted)} s of circom`})`,
        );
        continue;
      }
      if (!r.cached) spent += r.compileSeconds;
      have.push({ capacity: 2 ** depth, source: "compiled, not proven", ...r });
    }
  }

  const perCheckpoint: Record<number, number> = {};
  const checkpointPart: Record<number, CheckpointPart> = {};
  const commitment: Record<number, number> = {};
  for (const depth of plan.checkpointDepths) {
    const K = checkpointSlots(2 ** depth);
    const refuse = overBudget() && depth > 4;
    if (!refuse)
      note(`compile the checkpoint lookup at ${2 ** depth} records, ${K} and ${K - 1} checkpoints`);
    const atK = await checkpointLookupCount(depth, K, undefined, refuse);
    const below = await checkpointLookupCount(depth, K - 1, undefined, refuse);
    if (!atK || !below) {
      skipped.push(`checkpoint lookup at depth ${depth}: not compiled (compile budget spent)`);
      continue;
    }
    for (const k of [atK, below]) if (!k.cached) spent += k.compileSeconds;
    const entry = atK.constraints - below.constraints;
    perCheckpoint[depth] = entry;
    checkpointPart[depth] = {
      checkpoints: K,
      constraints: atK.constraints,
      entries: K * entry,
      table: atK.constraints - K * entry,
    };
    // The whole commitment (leaves and tree too) is a far longer compile: only within the budget.
    if (plan.commitmentDepths && !plan.commitmentDepths.includes(depth)) continue;
    const whole = await commitmentCount(depth, K, undefined, overBudget() && depth > 4);
    if (!whole) {
      skipped.push(`trace commitment at depth ${depth}: not compiled (compile budget spent)`);
      continue;
    }
    if (!whole.cached) spent += whole.compileSeconds;
    commitment[depth] = whole.constraints;
  }

  const fits: Record<string, Fit> = {};
  for (const p of predicates) {
    const measured = points[p].map((x) => ({ x: x.capacity, y: x.constraints }));
    if (measured.length >= 4) {
      // Relative weights: the small circuits' fixed costs must not dominate the large ones. A negative N²
      // term means no cross-record scan is visible: the predicate is linear, fit it as such.
      const quadratic = polyFit(measured, 2, true);
      fits[p] = quadratic.coefficients[2] < 0 ? polyFit(measured, 1, true) : quadratic;
      for (const n of plan.extrapolate) {
        if (points[p].some((x) => x.capacity === n)) continue;
        points[p].push({
          capacity: n,
          constraints: Math.round(evaluatePoly(fits[p].coefficients, n)),
          source: "extrapolated",
        });
      }
    } else skipped.push(`${p}: fewer than 4 counts, no extrapolation`);
    points[p].sort((a, b) => a.capacity - b.capacity);
  }
  return { points, fits, perCheckpoint, checkpointPart, commitment, skipped };
}

/** Per-checkpoint cost at a depth: measured when compiled, else the nearest measured depth's value. */
export function checkpointCostAt(
  report: ConstraintReport,
  depth: number,
): { value: number; measured: boolean } {
  if (report.perCheckpoint[depth] !== undefined)
    return { value: report.perCheckpoint[depth], measured: true };
  const known = Object.keys(report.perCheckpoint).map(Number);
  if (!known.length) return { value: NaN, measured: false };
  const nearest = known.sort((a, b) => Math.abs(a - depth) - Math.abs(b - depth))[0];
  return { value: report.perCheckpoint[nearest], measured: false };
}
