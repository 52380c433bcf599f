// The promises that cover a session, as the recorder uses them before a tool runs:
// tools a predicate says need an actionId (PredicateDefinition.actionIdTools: AAP-1's
// gated tools) are refused without one, and in guard mode (opt-in, fail-closed, P8)
// a call that would turn a satisfied trace into a violated one is not run.
import type { CallRecord, TraceRecord } from "../core/records.js";
import type { EncodingProfile } from "../core/profile.js";
import { PREDICATES, findPredicate, type AnyPredicate, type Verdict } from "../core/predicates/index.js";
import { PromiseRefError } from "../core/errors.js";

/** A promise covering the session: predicate id (e.g. "AAP-1") and its θ as registered. */
export interface PromiseRef {
  predicate: string;
  theta: unknown;
}

export interface CoveringPromise {
  index: number;
  predicate: string;
  def: AnyPredicate;
  theta: unknown;
}

/** Parses every θ and checks it against the profile, so a bad promise fails before anything is written. */
export function parsePromises(refs: readonly PromiseRef[], profile: EncodingProfile): CoveringPromise[] {
  return refs.map((ref, index) => {
    const where = `promises[${index}]`;
    const def = typeof ref?.predicate === "string" ? findPredicate(ref.predicate) : undefined;
    if (!def) {
      throw new PromiseRefError(
        `${where}: unknown predicate ${JSON.stringify(ref?.predicate)}; known: ${Object.keys(PREDICATES).join(", ")}`,
      );
    }
    try {
      const theta = def.parseTheta(ref.theta);
      def.checkProfile(theta, profile);
      return { index, predicate: def.id, def, theta };
    } catch (e) {
      throw new PromiseRefError(`${where} (${def.id}): ${(e as Error).message}`, { cause: e });
    }
  });
}

/**
 * Tools whose calls need an actionId, each with the index of the first promise that says so: a call
 * to one without an actionId can never satisfy that promise (e.g. an AAP-1 gated tool).
 */
export function gatedTools(promises: readonly CoveringPromise[]): Map<string, number> {
  const gated = new Map<string, number>();
  for (const p of promises) {
    for (const tool of p.def.actionIdTools?.(p.theta) ?? []) if (!gated.has(tool)) gated.set(tool, p.index);
  }
  return gated;
}

export interface GuardBreach {
  promise: CoveringPromise;
  verdict: Verdict;
}

/**
 * The TS oracles' verdicts on the trace, cached by its length: a call the guard let
 * through is usually the next record, so its "after" verdicts are the next "before".
 * Each check still evaluates the whole trace once per promise: O(N) per call.
 */
export class Guard {
  private cached: { length: number; verdicts: Verdict[] } | undefined;
  private pendingAfter: { length: number; seq: number; verdicts: Verdict[] } | undefined;

  constructor(
    private readonly promises: readonly CoveringPromise[],
    private readonly profile: EncodingProfile,
  ) {}

  /** The first promise that holds on `trace` and would not hold with `proposed` appended. */
  check(trace: readonly TraceRecord[], proposed: CallRecord): GuardBreach | undefined {
    const before = this.verdicts(trace);
    const extended = [...trace, proposed];
    const after = this.promises.map((p) => p.def.evaluate(extended, p.theta, this.profile));
    const breach = this.promises.find((p, i) => !before[i].violated && after[i].violated);
    if (breach) return { promise: breach, verdict: after[breach.index] };
    // Valid for the stored trace only if the call is recorded at proposed.seq with nothing in between.
    this.pendingAfter = { length: extended.length, seq: proposed.seq, verdicts: after };
    return undefined;
  }

  /** The session stored the call the last check let through at this seq. */
  recorded(seq: number): void {
    if (this.pendingAfter?.seq === seq) this.cached = this.pendingAfter;
    this.pendingAfter = undefined;
  }

  private verdicts(trace: readonly TraceRecord[]): Verdict[] {
    if (this.cached?.length === trace.length) return this.cached.verdicts;
    const verdicts = this.promises.map((p) => p.def.evaluate(trace, p.theta, this.profile));
    this.cached = { length: trace.length, verdicts };
    return verdicts;
  }
}
