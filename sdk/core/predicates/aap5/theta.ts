// AAP-5's θ as parseTheta returns it (./definition.ts parses, hashes and evaluates it; ./vai.ts reads VAI's
// names for it). Its own file so that the definition and the dialect both import it and not each other.

export interface Aap5Theta {
  countedTools: string[];
  /** Limits as decimal digits (θ stays JSON); absent means no limit. */
  maxCount?: string;
  summedTools: string[];
  /** In minor units. */
  maxSum?: string;
  maxRepeat?: string;
  /** Set when θ came from VAI's names: the amount key and scale they imply. */
  vai?: { amountKey: string; decimals: number };
}
