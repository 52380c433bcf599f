import type { GrantToolSpec } from "../import-vai.js";
import type { EncodingProfile } from "../profile.js";
import type { TraceRecord } from "../records.js";

export interface Verdict {
  violated: boolean;
  /** seq of the first violating record, null when satisfied. */
  seq: number | null;
  reason: string;
}

/**
 * One predicate, defined once: its θ schema, θ encoding (the promise's paramsHash)
 * and its TS evaluator, the oracle its Circom template is tested against.
 */
export interface PredicateDefinition<Theta> {
  id: string;
  /** Numeric id the escrow stores and the θ vector starts with. */
  code: number;
  /** Fixed θ sizes every circuit of this predicate is built with. */
  caps: Record<string, number>;
  parseTheta(x: unknown): Theta;
  /**
   * The encoding-profile entries that raw promise parameters imply, e.g. VAI's
   * `recipient_key`, so a trace recorded without a zkVAI profile can be encoded.
   */
  profileHints?(rawParams: unknown, theta: Theta): EncodingProfile["tools"];
  /** VAI records grants and revokes as calls of named tools; which tools, per the raw params. */
  vaiGrantTools?(rawParams: unknown): Record<string, GrantToolSpec>;
  /** Refuses θ that the profile cannot serve (e.g. a tool whose target it does not read). */
  checkProfile(theta: Theta, profile: EncodingProfile): void;
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
  ): Record<string, string | string[] | string[][]>;
  /**
   * Values the circuit checks but does not compute itself: AAP-1's per-action chains
   * (sdk/core/predicates/aap1/chains.ts) and AAP-5's occurrence counts (sdk/core/repeats.ts),
   * each with its distinctness certificate.
   */
  witnessHints?(trace: EncodedTrace, theta: Theta): Record<string, string[]>;
}

/** A trace as a circuit of some capacity sees it: every row's slots (zero rows past the trace). */
export interface EncodedTrace {
  slots: readonly (readonly bigint[])[];
  /** Records in the trace; rows from n on are padding. */
  n: number;
  finalRoot: bigint;
}

export class ThetaError extends Error {
  override name = "ThetaError";
}
