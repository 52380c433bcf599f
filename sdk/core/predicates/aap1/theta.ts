// AAP-1's θ as parseTheta returns it (./definition.ts parses, hashes and evaluates it; ./vai.ts reads VAI's
// names for it). Its own file so that the definition and the dialect both import it and not each other.
import type { AUTHORITIES } from "../../records.js";

export type Authority = (typeof AUTHORITIES)[number];

export interface Aap1Theta {
  gatedTools: string[];
  acceptedAuthorities: Authority[];
}
