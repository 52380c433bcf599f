// AAP-1 authorization, invocation mode: every executed call to a gated tool was
// authorized, beforehand, for exactly that invocation.
//
// Semantics (VAI's no_destructive_without_consent v3, authorization_mode
// "invocation"), over the records in seq order:
// - Only executed calls count: a blocked record is not a call, so it needs no
//   authorization and consumes none. Calls to tools outside `gatedTools` need
//   nothing and consume nothing, whatever their action id.
// - An action id names one invocation. A gated call at seq i is authorized iff
//   all of these hold:
//   1. it has an action id;
//   2. no earlier gated call has the same action id: an authorization is consumed
//      by the one call it covers, whatever its scope (once/session/persistent),
//      and an action id, once executed, stays consumed even if re-approved later;
//   3. among the authorization records before i with the same action id, the
//      latest one is *valid*: decision allow, authority in `acceptedAuthorities`,
//      and a policy id when the authority is policy. Any later record for the
//      action id replaces an earlier one, so a deny, a timeout or an invalid allow
//      cancels a pending allow, and an allow after a deny stands;
//   4. that latest authorization covers the call's tool and args hash. Args
//      hashes are compared after the field reduction (keccak >> 3) the slots carry,
//      as the circuit does; a call's hash is its recorded argsHash when it has one
//      (imported VAI traces), else keccak of the canonical JSON of its args.
// - An authorization after the call (a late approval) does not count: only
//   records with a smaller seq are read.
// - The verdict reports the first gated call that is not authorized. Evaluating
//   each call against all earlier gated calls (rule 2) equals VAI's "consume on
//   success, stop at the first violation", since every gated call before the
//   first violation was a successful consumption.
// θ: gatedTools (1..4 tools) and acceptedAuthorities (a subset of human, policy,
// auto_review). VAI's names (destructive_tools, authorization_mode "invocation"):
// ./vai.ts. VAI has no authority list: it accepts human and policy (with an id),
// never auto_review, so that is the default here.
// θ vector: [1, 4, 3, gatedTools padded with 0, human?, policy?, auto_review?].
// Circuit: circuits/predicates/aap1_authorization.circom.
import { callArgsField } from "../../encoding.js";
import { reduceBytes32 } from "../../hash.js";
import { AUTHORITIES, type AuthorizationRecord } from "../../records.js";
import { paddedStrings, pythonRepr, stringList, checkThetaJson } from "../theta-common.js";
import { aap1ChainHints } from "./chains.js";
import { aap1Vai, gatedToolsField } from "./vai.js";
import type { Aap1Theta, Authority } from "./theta.js";
import { aap1Samples } from "./samples.js";
import { aap1Segment } from "./segment.js";
import { ThetaError, type PredicateDefinition, type Verdict } from "../types.js";

const CAPS = { tools: 4, authorities: AUTHORITIES.length };

/** VAI's consent: human, or an identified policy; automated review alone is not consent. */
export const DEFAULT_AUTHORITIES: readonly Authority[] = ["human", "policy"];

function fail(message: string): never {
  throw new ThetaError(`AAP-1 θ: ${message}`);
}

function flags(theta: Aap1Theta): bigint[] {
  return AUTHORITIES.map((a) => (theta.acceptedAuthorities.includes(a) ? 1n : 0n));
}

/** Why the latest authorization does not cover the call, or undefined when it does. */
function uncovered(
  auth: AuthorizationRecord,
  tool: string,
  args: bigint,
  accepted: Set<string>,
): string | undefined {
  const at = `the latest authorization for it (seq ${auth.seq})`;
  if (auth.decision !== "allow") return `${at} is a ${auth.decision}`;
  if (!accepted.has(auth.authority))
    return `${at} comes from ${auth.authority}, which is not an accepted authority`;
  if (auth.authority === "policy" && auth.policyId === undefined)
    return `${at} comes from a policy without a policy id`;
  if (auth.tool !== tool) return `${at} covers tool ${pythonRepr(auth.tool)}`;
  if (reduceBytes32(auth.argsHash) !== args) return `${at} covers other args`;
  return undefined;
}

export const aap1Authorization: PredicateDefinition<Aap1Theta, "AAP-1"> = {
  id: "AAP-1",
  code: 1,
  caps: CAPS,
  samples: aap1Samples,
  segment: aap1Segment,

  parseTheta(x) {
    checkThetaJson(x, "AAP-1");
    if (typeof x !== "object" || x === null || Array.isArray(x)) fail("must be an object");
    const t = x as Record<string, unknown>;
    const tools = gatedToolsField(t);
    const gatedTools = stringList(tools.value, tools.name, CAPS.tools, fail);
    if (gatedTools.length === 0) fail("no gated tools, so the promise says nothing");
    let acceptedAuthorities = [...DEFAULT_AUTHORITIES];
    if (t.acceptedAuthorities !== undefined) {
      const given = stringList(t.acceptedAuthorities, "acceptedAuthorities", CAPS.authorities, fail);
      const unknown = given.filter((a) => !(AUTHORITIES as readonly string[]).includes(a));
      if (unknown.length)
        fail(`acceptedAuthorities: ${unknown.join(", ")} is not one of ${AUTHORITIES.join(", ")}`);
      acceptedAuthorities = AUTHORITIES.filter((a) => given.includes(a));
    }
    return { gatedTools, acceptedAuthorities };
  },

  vai: aap1Vai,

  // AAP-1 reads the tool, args hash and action id of calls, which every profile encodes.
  checkProfile() {},

  // A gated call without an action id can never be authorized: the Session refuses it before it runs.
  actionIdTools: (theta) => theta.gatedTools,

  thetaVector(theta) {
    return [
      BigInt(this.code),
      BigInt(CAPS.tools),
      BigInt(CAPS.authorities),
      ...paddedStrings(theta.gatedTools, CAPS.tools),
      ...flags(theta),
    ];
  },

  evaluate(records, theta): Verdict {
    const gated = new Set(theta.gatedTools);
    const accepted = new Set<string>(theta.acceptedAuthorities);
    const latest = new Map<string, AuthorizationRecord>();
    const executed = new Map<string, number>();
    for (const r of records) {
      if (r.kind === "authorization") {
        latest.set(r.actionId, r);
        continue;
      }
      if (r.kind !== "call" || r.blocked || !gated.has(r.tool)) continue;
      const violation = (why: string): Verdict => ({
        violated: true,
        seq: r.seq,
        reason: `${r.tool} invocation ${pythonRepr(r.actionId)} lacks matching prior authorization: ${why}`,
      });
      if (r.actionId === undefined) return violation("the call has no action id");
      const before = executed.get(r.actionId);
      if (before !== undefined) return violation(`the action id was already executed at seq ${before}`);
      const auth = latest.get(r.actionId);
      if (auth === undefined) return violation("no earlier authorization has its action id");
      const why = uncovered(auth, r.tool, callArgsField(r), accepted);
      if (why !== undefined) return violation(why);
      executed.set(r.actionId, r.seq);
    }
    return { violated: false, seq: null, reason: "" };
  },

  circuitInputs(theta) {
    return {
      gatedTools: paddedStrings(theta.gatedTools, CAPS.tools).map(String),
      authorities: flags(theta).map(String),
    };
  },

  witnessHints(trace, theta) {
    const h = aap1ChainHints(trace, paddedStrings(theta.gatedTools, CAPS.tools), flags(theta));
    const strings = (xs: bigint[]) => xs.map(String);
    return {
      chainRank: strings(h.rank),
      chainLast: strings(h.last),
      chainPred: strings(h.pred),
      chainValidIn: strings(h.validIn),
      chainUsedIn: strings(h.usedIn),
      chainCoversIn: strings(h.coversIn),
      chainWeight: strings(h.weight),
    };
  },
};

export type { Aap1Theta } from "./theta.js";
