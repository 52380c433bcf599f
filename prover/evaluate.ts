// "Does this trace keep this promise?", answered off-chain: the TS oracle's verdict, and on request a local
// Groth16 proof with the circuit the escrow would verify a claim on that trace with. `vai check` is this
// function behind argv; a provider runs it to try a promise on recorded traces before registering it.
import { existsSync } from "node:fs";
import { encodeSlots } from "../sdk/core/encoding.js";
import { outcomeOf, capacityOfDepth } from "../sdk/core/claim.js";
import { InputError } from "../sdk/core/errors.js";
import { vaiImportOptions, type AnyPredicate, type Verdict } from "../sdk/core/predicates/index.js";
import { parseTauPromise } from "../sdk/core/import-tau.js";
import { tauRule } from "../sdk/core/rules/tau-arms.js";
import { parsePromiseDocument, type PromiseDocument } from "../sdk/core/promise-document.js";
import type { EncodingProfile } from "../sdk/core/profile.js";
import type { TraceRecord } from "../sdk/core/records.js";
import type { ImportOptions } from "../sdk/core/import-vai.js";
import { readInstances } from "./artifacts/instances.js";
import { circuitArtifacts, manifestPath } from "../sdk/manifest/manifest.js";
import { builtCircuitFor } from "./claims.js";
import { prove, verifyLocally } from "./prove.js";
import { capacityProblem, claimInput, shapeOf } from "./witness.js";
import { withRowPads } from "../sdk/core/predicates/aap7/pads.js";

export interface Evaluation {
  predicate: string;
  format: string;
  records: number;
  /** seq is the trace's own numbering (VAI's, for an imported trace). */
  verdict: Verdict;
  circuit?: LocalProof;
}

export interface LocalProof {
  name: string;
  outcome: "violated" | "satisfied";
  proveSeconds: number;
  verified: boolean;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * A promise file's object as zkVAI reads it: a promise document ({predicate, params | theta, profile?}), a
 * reference registration record as the reference's promises.json holds it (fixtures/vai-agentdojo: the
 * predicate's parameters flat beside what the artifact recorded), or a τ³-bench promise object (checked field
 * by field), which is an AAP-7 rule promise when its arm has a rule (sdk/core/rules/tau-arms.ts), and
 * otherwise reported as not judged yet, with the reason.
 */
export function readPromiseObject(raw: unknown, where: string): PromiseDocument | { unsupported: string } {
  if (isObject(raw) && "promise_id" in raw && isObject(raw.params) && typeof raw.params.rule === "string") {
    const tau = parseTauPromise(raw);
    if (tauRule(tau.benchmark, tau.rule) === undefined)
      return {
        unsupported: `τ³-bench promise ${tau.promiseId} (rule ${tau.rule}): no zkVAI rule for this arm yet (issue 37; docs/PREDICATES.md "τ³-bench rule arms")`,
      };
    const params = { domain: tau.benchmark, rule: tau.rule };
    return parsePromiseDocument({ predicate: "AAP-7", params }, where, { profile: "optional" });
  }
  if (isObject(raw) && "promise_id" in raw && raw.params === undefined && raw.theta === undefined) {
    const flat = Object.fromEntries(Object.entries(raw).filter(([k]) => !REGISTRATION_KEYS.has(k)));
    return parsePromiseDocument({ predicate: raw.artifact_predicate ?? raw.predicate, params: flat }, where, {
      profile: "optional",
    });
  }
  return parsePromiseDocument(raw, where, { profile: "optional" });
}

/** Keys of a reference registration record that are not the predicate's parameters. */
const REGISTRATION_KEYS = new Set([
  "suite",
  "promise_id",
  "predicate",
  "artifact_predicate",
  "namespace",
  "allowlist_derivation",
  "artifact_params_hash",
  "artifact_predicate_hash",
  "payout_wei",
  "gated",
]);

/** The importer options the promise's VAI dialect implies for a VAI trace. */
export function traceImportOptions(doc: PromiseDocument): ImportOptions {
  return vaiImportOptions(doc.predicate, doc.theta);
}

export async function evaluatePromise(
  doc: PromiseDocument,
  trace: { records: TraceRecord[]; seqOf: (i: number) => number; format: string },
  opts: {
    prove?: boolean;
    onProve?: (circuit: string, run: () => Promise<LocalProof>) => Promise<LocalProof>;
    /**
     * Builds one circuit of circuits/instances.json (setup's `--only`). Given, a trace no built circuit holds is
     * proven with the smallest instance that does, built first: `vai check --prove` in a fresh checkout.
     */
    build?: (circuit: string) => Promise<void>;
  } = {},
): Promise<Evaluation> {
  const def = doc.predicate;
  const profile = promiseProfile(doc, trace.records);
  def.checkProfile(doc.theta, profile);
  // Every record must be committable under the profile, whether or not the predicate reads it.
  for (const r of trace.records) encodeSlots(r, profile);
  const verdict = def.evaluate(trace.records, doc.theta, profile);
  const out: Evaluation = {
    predicate: def.id,
    format: trace.format,
    records: trace.records.length,
    verdict: { ...verdict, seq: verdict.seq === null ? null : trace.seqOf(verdict.seq) },
  };
  if (opts.prove)
    out.circuit = await proveLocally(def, doc.theta, profile, trace.records, opts.onProve, opts.build);
  return out;
}

/** The encoding profile a promise's claims on this trace are committed under (profileFromTrace unless it has one). */
export function promiseProfile(doc: PromiseDocument, records: readonly TraceRecord[]): EncodingProfile {
  return doc.profile ?? profileFromTrace(doc.predicate, doc.theta, records);
}

/** The promise's own profile, else one built from the trace's tools and what the parameters imply. */
function profileFromTrace(
  def: AnyPredicate,
  theta: unknown,
  records: readonly TraceRecord[],
): EncodingProfile {
  const tools: EncodingProfile["tools"] = {};
  for (const r of records) if (r.kind === "call") tools[r.tool] = {};
  Object.assign(tools, def.vai?.profileTools(theta));
  const facts = def.factsOf?.(theta);
  return { version: 1, tools, ...(facts !== undefined ? { facts } : {}) };
}

/**
 * What would help when no built circuit holds the trace: the smallest instance in circuits/instances.json
 * that does (and the command that builds it), or, when none does, that none can yet.
 */
function capacityHint(def: AnyPredicate, records: readonly TraceRecord[]): string {
  const table = readInstances().filter((i) => i.predicate === def.id && i.kind !== "segment");
  const i = smallestFitting(def, records);
  const what = `no built ${def.id} circuit holds ${records.length} records`;
  if (i) {
    const capacity = capacityOfDepth(Number(i.params.depth));
    return `${what}; build ${i.name} (${capacity} records) with \`npm run setup -- --only ${i.name}\``;
  }
  const largest = Math.max(...table.map((i) => capacityOfDepth(Number(i.params.depth))));
  return `${what}, and no ${def.id} instance in circuits/instances.json does (the largest holds ${largest}): a trace this long cannot be proven yet`;
}

/** The smallest whole-claim instance of circuits/instances.json that holds the trace, built or not. */
function smallestFitting(def: AnyPredicate, records: readonly TraceRecord[]) {
  return readInstances()
    .filter((i) => i.predicate === def.id && i.kind !== "segment")
    .filter((i) => capacityProblem(def, records, 0, shapeOf(i.params)) === null)
    .sort((a, b) => Number(a.params.depth) - Number(b.params.depth))[0];
}

/** The built circuit a claim on n records is verified with; none before anything is built. */
function builtFor(def: AnyPredicate, n: number) {
  return existsSync(manifestPath()) ? builtCircuitFor(def.id, n) : undefined;
}

/**
 * The built circuit a claim on these records is verified with (the escrow's pick for their number), building
 * the smallest instance that holds them first when none is built and `build` is given. Throws an InputError
 * naming what to build, or why none can hold them.
 */
export async function claimCircuitFor(
  def: AnyPredicate,
  records: readonly TraceRecord[],
  build?: (circuit: string) => Promise<void>,
) {
  let chosen = builtFor(def, records.length);
  const buildable = chosen ? undefined : smallestFitting(def, records);
  if (!chosen && build && buildable) {
    await build(buildable.name);
    chosen = builtFor(def, records.length);
  }
  if (!chosen) throw new InputError(capacityHint(def, records));
  const problem = capacityProblem(def, records, 0, chosen.shape);
  if (problem)
    throw new InputError(`${chosen.name}, the circuit a claim on this trace is verified with: ${problem}`);
  return chosen;
}

/** Proves with the circuit the escrow would pick for this many records (selectCircuit), as a claim would. */
async function proveLocally(
  def: AnyPredicate,
  theta: unknown,
  profile: EncodingProfile,
  records: readonly TraceRecord[],
  wrap: (circuit: string, run: () => Promise<LocalProof>) => Promise<LocalProof> = (_, run) => run(),
  build?: (circuit: string) => Promise<void>,
): Promise<LocalProof> {
  // A claim's trace is closed with its row pads (sdk/core/predicates/aap7/pads.ts), so the local proof is of it.
  const closed = withRowPads(records, profile);
  const chosen = await claimCircuitFor(def, closed, build);
  const artifacts = circuitArtifacts(chosen.name);
  const { input } = claimInput({
    records: closed,
    profile,
    sessionSecret: 1n,
    checkpoints: [],
    predicate: def,
    theta,
    context: 0n,
    shape: chosen.shape,
  });
  return wrap(chosen.name, async () => {
    const proof = await prove(artifacts, input);
    return {
      name: chosen.name,
      outcome: outcomeOf(proof.publicSignals),
      proveSeconds: Number(proof.proveSeconds.toFixed(3)),
      verified: await verifyLocally(artifacts, proof),
    };
  });
}
