import type { GrantToolSpec } from "../import-vai.js";
import type { CircuitInput } from "../inputs.js";
import type { EncodingProfile } from "../profile.js";
import type { TraceRecord } from "../records.js";
import type { EncodedTrace } from "../encoding.js";
import type { TauDomain } from "../rules/tau-facts.js";
export type { EncodedTrace } from "../encoding.js";
import type { PredicateSamples } from "./samples.js";
import type { SegmentCarrier } from "./segment-carrier.js";

export interface Verdict {
  violated: boolean;
  /** seq of the first violating record, null when satisfied. */
  seq: number | null;
  reason: string;
}

/**
 * How the reference Python system (VAI) writes this predicate's promises, beyond what θ holds: its
 * own name for the predicate, and what its parameters imply for the encoding profile and the trace
 * importer. parseTheta reads VAI's parameter names itself (θ keeps the keys they imply in `vai`),
 * so these read θ. Each predicate's lives in sdk/core/predicates/<aapN>/vai.ts.
 */
export interface VaiDialect<Theta> {
  /** VAI's names for the predicate, accepted wherever a predicate id is (e.g. "egress_within_allowlist"). */
  readonly predicateNames: readonly string[];
  /**
   * The encoding-profile entries θ's VAI keys imply (e.g. `recipient_key`), so a trace recorded
   * without a zkVAI profile can be encoded; none for θ given in zkVAI's names.
   */
  profileTools(theta: Theta): EncodingProfile["tools"];
  /**
   * VAI records grants and revokes as calls of named tools: which tools, per θ's VAI keys (the
   * importer's `grantTools`, sdk/core/import-vai.ts); none for θ given in zkVAI's names.
   */
  grantTools?(theta: Theta): Record<string, GrantToolSpec>;
}

/**
 * One predicate, defined once: its θ schema, θ encoding (the promise's paramsHash)
 * and its TS evaluator, the oracle its Circom template is tested against.
 * `Id` is the literal id, so the registry (./index.ts) is keyed by the predicates' own ids.
 */
export interface PredicateDefinition<Theta, Id extends string = string> {
  id: Id;
  /** Numeric id the escrow stores and the θ vector starts with. */
  code: number;
  /** Fixed θ sizes every circuit of this predicate is built with. */
  caps: Record<string, number>;
  parseTheta(x: unknown): Theta;
  /**
   * VAI's dialect of this predicate's promises (./<aapN>/vai.ts), when the reference system has the predicate:
   * absent, promises name it by its zkVAI id only and θ implies no profile entries or grant tools.
   */
  vai?: VaiDialect<Theta>;
  /** What its segment circuit carries across a boundary (./<aapN>/segment.ts, shapes in ../segment-carrier.ts). */
  segment: SegmentCarrier;
  /** Bench traces from the fixtures and a long stream (./<aapN>/samples.ts, shapes in ../samples.ts). */
  samples: PredicateSamples;
  /**
   * The circuit reads observations (record encoding v3, sdk/core/observations.ts): it recomputes each row's
   * digest from what witnessHints gives (status, observed values, content), instead of taking the digest.
   */
  readsObservations?: true;
  /**
   * The domain fact profile θ reads (AAP-7: its rule's domain, sdk/core/rules/tau-facts.ts): a profile built
   * for θ from a trace must derive these facts. Absent: θ reads none.
   */
  factsOf?(theta: Theta): TauDomain;
  /** Refuses θ that the profile cannot serve (e.g. a tool whose target it does not read). */
  checkProfile(theta: Theta, profile: EncodingProfile): void;
  /**
   * Tools whose calls the Session refuses without an actionId, before they run: a call that has
   * none can never satisfy the promise (AAP-1: its gated tools). Absent: no call needs one.
   */
  actionIdTools?(theta: Theta): readonly string[];
  thetaVector(theta: Theta): bigint[];
  evaluate(records: readonly TraceRecord[], theta: Theta, profile: EncodingProfile): Verdict;
  /**
   * The records the circuit compacts into its event log (AAP-2, AAP-4: grant/revoke records of the
   * predicate's namespace), which must fit the instance's `events` slots.
   */
  eventCount?(records: readonly TraceRecord[]): { count: number; what: string };
  /** The θ part of the circuit's private input. */
  circuitInputs(theta: Theta): Record<string, string[]>;
  /**
   * Private inputs the circuit checks but that need the records themselves, not only their slots
   * (AAP-2: each record's path ancestors, the prefix that covers each call and the violating
   * call). Per-record arrays have `capacity` rows; rows past the trace are padding the circuit
   * ignores.
   */
  recordInputs?(
    records: readonly TraceRecord[],
    theta: Theta,
    profile: EncodingProfile,
    capacity: number,
  ): CircuitInput;
  /**
   * Values the circuit checks but does not compute itself: AAP-1's per-action chains
   * (sdk/core/predicates/aap1/chains.ts) and AAP-5's occurrence counts (./aap5/repeats.ts),
   * each with its distinctness certificate; AAP-6's rows' digest parts and grounding hints (./aap6/roles.ts).
   */
  witnessHints?(trace: EncodedTrace, theta: Theta): CircuitInput;
}

/** A predicate definition whose θ type the caller does not know (θ is checked by its parseTheta). */
export type AnyPredicate = PredicateDefinition<unknown>;

// A θ its predicate refuses; defined with the other core errors (the rule form throws it too, beneath this file).
export { ThetaError } from "../errors.js";
