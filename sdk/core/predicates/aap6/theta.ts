// AAP-6's θ as parseTheta returns it (./definition.ts parses, hashes and evaluates it). Its own file so that
// the definition, the samples and the lead's circuit wiring import it and not each other.

/** How AAP-6 compares observed values: the normalise every named tool's fact must declare. */
export type Aap6Normalise = "exact" | "fold";

export interface Aap6Theta {
  /** Tool name -> the fact (its profile `observe.fact`) whose values must be grounded; 1..4 tools. */
  consequential: Record<string, string>;
  /** Tool name -> the fact whose values, read by a successful call, ground later ones; 1..4 tools. */
  sources: Record<string, string>;
  normalise: Aap6Normalise;
}
