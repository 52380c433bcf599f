import type { TauDomain } from "../../rules/tau-facts.js";

/** AAP-7's θ: a rule by its domain and name (sdk/core/rules/tau-arms.ts TAU_RULES). */
export interface Aap7Theta {
  domain: TauDomain;
  rule: string;
}
