// AAP-3's θ as parseTheta returns it (./definition.ts parses, hashes and evaluates it; ./vai.ts reads VAI's
// names for it). Its own file so that the definition and the dialect both import it and not each other.

export interface Aap3Theta {
  payTools: string[];
  merchants: string[];
  /** The largest amount one payment may carry, in minor units, as decimal digits (θ stays JSON). */
  cap: string;
  /** Set when θ came from VAI's names: the argument keys and scale they imply. */
  vai?: { recipientKey: string; amountKey: string; decimals: number };
}
