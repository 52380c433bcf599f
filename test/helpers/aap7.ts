// An AAP-7 claim's circuit input for a trace (test/predicates/aap7-rules.test.ts, test/rules/tau-rules.test.ts),
// and the profile a τ³ run is committed under: its own tools, and its domain's facts.
import { claimInput } from "../../prover/witness.js";
import { aap7Rule, type Aap7Theta } from "../../sdk/core/predicates/aap7/definition.js";
import { parseProfile, type EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { TauDomain } from "../../sdk/core/rules/tau-facts.js";
import { instance } from "./instance.js";

/** The profile a run's records commit under for a rule of `domain`: every tool they call, and the facts. */
export function tauProfile(domain: TauDomain, records: readonly TraceRecord[]): EncodingProfile {
  const tools = Object.fromEntries(records.flatMap((r) => ("tool" in r ? [[r.tool, {}]] : [])));
  return parseProfile({ version: 1, facts: domain, tools });
}

/** The claim input of `records` under θ for the named AAP-7 instance (no checkpoints). */
export function aap7Input(
  records: readonly TraceRecord[],
  theta: Aap7Theta,
  profile: EncodingProfile,
  instanceName: string,
  context = 707n,
) {
  const { params } = instance(instanceName);
  return claimInput({
    records,
    profile,
    sessionSecret: 0x7a7n,
    checkpoints: [],
    predicate: aap7Rule,
    theta,
    context,
    shape: { depth: params.depth!, checkpoints: params.checkpoints! },
  }).input;
}
