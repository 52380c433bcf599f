// AAP-6 strict grounding: every value a consequential call acts on was first observed by a successful
// call to a source tool (a read, a listing, the user's message), in an earlier record.
//
// Semantics (the oracle the circuit is tested against):
// - walk the records in seq order with a set G of grounded values (field elements), initially empty;
// - a call to a consequential tool that was executed (not blocked; a call with an error was executed)
//   violates if any of its nonzero observed values (sdk/core/observations.ts) is not in G; the verdict
//   reports the first violating record;
// - then a call to a source tool whose status is ok adds its nonzero observed values to G: a value
//   observed in the same record does not ground itself, and a failed or blocked read grounds nothing;
// - an absent argument yields no value (nothing to check); a list yields one value per element, and
//   every one must be grounded; grants, revokes and authorizations are ignored.
// Values compare as field elements, so the profile's normalise decides what counts as equal: θ names it,
// and checkProfile requires every named tool's fact to use it.
// θ: consequential and sources, tool -> fact name (1..4 each), normalise. Fact names are checked
// against the profile, not hashed: the profile (committed by its hash) fixes what each tool observes.
// Circuit: circuits/predicates/aap6_grounding.circom with circuits/gadgets/grounding.circom (StrictGrounding).
import { STATUS, observedValues, recordObservations } from "../../observations.js";
import { checkThetaJson, paddedStrings, pythonRepr } from "../theta-common.js";
import { onlyKeys } from "../theta-amounts.js";
import { ThetaError, type PredicateDefinition } from "../types.js";
import { aap6Samples } from "./samples.js";
import { aap6Segment } from "./segment.js";
import { aap6WitnessInputs } from "./roles.js";
import type { Aap6Normalise, Aap6Theta } from "./theta.js";

const CAPS = { consequential: 4, sources: 4 };
const KEYS = ["consequential", "sources", "normalise"];
const NORMALISE_CODE: Record<Aap6Normalise, bigint> = { exact: 0n, fold: 1n };

function fail(message: string): never {
  throw new ThetaError(message);
}

/** A θ map tool -> fact: 1..max entries, non-empty strings, keys sorted (so equal maps hash equally). */
function toolFacts(x: unknown, what: string, max: number): Record<string, string> {
  if (typeof x !== "object" || x === null || Array.isArray(x))
    fail(`AAP-6 θ: ${what} must be an object mapping tool names to fact names`);
  const entries = Object.entries(x as Record<string, unknown>);
  if (entries.length === 0) fail(`AAP-6 θ: ${what} is empty, so the promise says nothing`);
  if (entries.length > max) fail(`AAP-6 θ: ${what} has ${entries.length} tools; circuits hold ${max}`);
  for (const [tool, fact] of entries) {
    if (tool.length === 0) fail(`AAP-6 θ: ${what} has an empty tool name`);
    if (typeof fact !== "string" || fact.length === 0)
      fail(`AAP-6 θ: ${what}.${tool} must be a non-empty fact name, got ${JSON.stringify(fact)}`);
  }
  // fromEntries defines own properties, so a tool named "__proto__" stays a tool.
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as Record<
    string,
    string
  >;
}

const sortedTools = (map: Record<string, string>) => Object.keys(map).sort();
const has = (map: Record<string, string>, tool: string) => Object.hasOwn(map, tool);

export const aap6Grounding: PredicateDefinition<Aap6Theta, "AAP-6"> = {
  id: "AAP-6",
  code: 6,
  caps: CAPS,
  samples: aap6Samples,
  segment: aap6Segment,
  readsObservations: true,

  parseTheta(x) {
    checkThetaJson(x, "AAP-6");
    if (typeof x !== "object" || x === null || Array.isArray(x)) fail("AAP-6 θ must be an object");
    const t = x as Record<string, unknown>;
    onlyKeys(t, KEYS, "AAP-6 θ");
    const consequential = toolFacts(t.consequential, "consequential", CAPS.consequential);
    const sources = toolFacts(t.sources, "sources", CAPS.sources);
    const how = t.normalise ?? "exact";
    if (how !== "exact" && how !== "fold")
      fail(`AAP-6 θ: normalise must be "exact" or "fold", got ${JSON.stringify(t.normalise)}`);
    // A tool observes one fact (its profile's observe), so a tool named twice must name it twice.
    for (const tool of Object.keys(consequential)) {
      if (has(sources, tool) && sources[tool] !== consequential[tool]) {
        fail(
          `AAP-6 θ: tool "${tool}" is consequential with fact "${consequential[tool]}" and a source with fact "${sources[tool]}"; a tool observes one fact`,
        );
      }
    }
    return { consequential, sources, normalise: how };
  },

  checkProfile(theta, profile) {
    const named: [string, string, string][] = [
      ...Object.entries(theta.consequential).map(
        ([t, f]) => ["consequential", t, f] as [string, string, string],
      ),
      ...Object.entries(theta.sources).map(([t, f]) => ["source", t, f] as [string, string, string]),
    ];
    for (const [role, tool, fact] of named) {
      if (!Object.hasOwn(profile.tools, tool))
        fail(`AAP-6: ${role} tool "${tool}" is not in the encoding profile, so it can never be recorded`);
      const observe = profile.tools[tool]!.observe;
      if (observe === undefined) {
        fail(
          `AAP-6: ${tool} observes no fact; add observe: { fact: "${fact}", from, path } to its profile entry`,
        );
      }
      if (observe.fact !== fact)
        fail(
          `AAP-6: θ names fact "${fact}" for ${role} tool ${tool}, but its profile observes "${observe.fact}"`,
        );
      const how = observe.normalise ?? "exact";
      if (how !== theta.normalise) {
        fail(
          `AAP-6: θ compares values with normalise "${theta.normalise}", but ${tool}.${fact} is normalised "${how}" in the profile; values of two normalisations never match`,
        );
      }
    }
  },

  thetaVector(theta) {
    return [
      6n,
      BigInt(CAPS.consequential),
      BigInt(CAPS.sources),
      NORMALISE_CODE[theta.normalise],
      ...paddedStrings(sortedTools(theta.consequential), CAPS.consequential),
      ...paddedStrings(sortedTools(theta.sources), CAPS.sources),
    ];
  },

  evaluate(records, theta, profile) {
    const grounded = new Set<bigint>();
    for (const r of records) {
      if (r.kind !== "call") continue;
      const obs = recordObservations(r, profile);
      // An errored call was executed (it may have acted before failing); a blocked one was not.
      if (!r.blocked && has(theta.consequential, r.tool)) {
        const ungrounded = obs.values.find((v) => v !== 0n && !grounded.has(v));
        if (ungrounded !== undefined) {
          const text = observedValues(r, profile).find((o) => o.value === ungrounded)?.text;
          // An amount as its JSON, text quoted as VAI quotes it; a value no text names by its hash.
          const amount = profile.tools[r.tool]?.observe?.decimals !== undefined;
          const shown = text === undefined ? `(hash ${ungrounded})` : amount ? text : pythonRepr(text);
          return {
            violated: true,
            seq: r.seq,
            reason: `${r.tool} acts on ${theta.consequential[r.tool]} ${shown}, which no earlier successful source call observed`,
          };
        }
      }
      // After the check: a value this very record observes does not ground itself.
      if (obs.status === STATUS.ok && has(theta.sources, r.tool))
        for (const v of obs.values) if (v !== 0n) grounded.add(v);
    }
    return { violated: false, seq: null, reason: "" };
  },

  witnessHints(trace, theta) {
    const { consequentialTools, sourceTools } = aap6Grounding.circuitInputs(theta);
    return aap6WitnessInputs(trace, { consequentialTools: consequentialTools!, sourceTools: sourceTools! });
  },

  circuitInputs(theta) {
    return {
      consequentialTools: paddedStrings(sortedTools(theta.consequential), CAPS.consequential).map(String),
      sourceTools: paddedStrings(sortedTools(theta.sources), CAPS.sources).map(String),
      normalise: [String(NORMALISE_CODE[theta.normalise])],
    };
  },
};

export type { Aap6Theta } from "./theta.js";
