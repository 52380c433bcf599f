// vai check: evaluate a promise on a trace with the TS oracle, and with --prove,
// prove the circuit's outcome locally. Accepts zkVAI records and VAI ActionRecords.
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { encodeSlots } from "../../sdk/core/encoding.js";
import { importVaiJsonl, type ImportOptions } from "../../sdk/core/import-vai.js";
import { PREDICATES, type PredicateDefinition, type Verdict } from "../../sdk/core/predicates/index.js";
import { parseProfile, type EncodingProfile } from "../../sdk/core/profile.js";
import { parseRecord, type TraceRecord } from "../../sdk/core/records.js";
import { circuitArtifacts, loadManifest } from "../../prover/artifacts/manifest.js";
import { prove, releaseProver, verifyLocally } from "../../prover/prove.js";
import { capacityProblem, claimInput, shapeOf } from "../../prover/witness.js";
import { Progress } from "../../prover/artifacts/progress.js";

export const CHECK_USAGE = `usage: vai check --promise <promise.json> --trace <records.jsonl> [--prove]

Evaluates the promise on the trace and prints one JSON object:
  {predicate, records, verdict: {violated, seq, reason}}; with --prove also
  {circuit: {name, outcome, proveSeconds, verified}} from a local Groth16 proof.
promise.json: {"predicate": "AAP-1".."AAP-5" or VAI's name, "params": {...}, "profile"?: {...}}
  params use zkVAI's θ names or VAI's parameter names; "profile" is the encoding
  profile (needed for zkVAI traces whose tools the params do not describe).
records.jsonl: one record per line, zkVAI's format or VAI's ActionRecord.
Exit code 0: evaluated (violated or not). 2: bad input, with a message.`;

/** The reference implementation's predicate names. */
export const VAI_NAMES: Record<string, string> = { egress_within_allowlist: "AAP-4" };

class InputError extends Error {}

export async function runCheck(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        promise: { type: "string" },
        trace: { type: "string" },
        prove: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (e) {
    console.error(`vai check: ${(e as Error).message}\n\n${CHECK_USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(CHECK_USAGE);
    return 0;
  }
  try {
    if (!values.promise || !values.trace) throw new InputError("both --promise and --trace are required");
    const out = await check(values.promise, values.trace, values.prove);
    console.log(JSON.stringify(out, null, 2));
    return 0;
  } catch (e) {
    console.error(`vai check: ${(e as Error).message}`);
    return 2;
  } finally {
    if (values.prove) await releaseProver();
  }
}

function readJson(file: string, what: string): unknown {
  if (!existsSync(file)) throw new InputError(`${what} file ${file} does not exist`);
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`${what} file ${file} is not JSON: ${(e as Error).message}`);
  }
}

function readTrace(
  file: string,
  options: ImportOptions,
): { records: TraceRecord[]; seqOf: (i: number) => number; format: string } {
  if (!existsSync(file)) throw new InputError(`trace file ${file} does not exist`);
  const text = readFileSync(file, "utf8");
  const first = text.split("\n").find((l) => l.trim());
  let firstObject: Record<string, unknown> = {};
  try {
    firstObject = first ? JSON.parse(first) : {};
  } catch (e) {
    throw new InputError(`trace line 1 is not JSON: ${(e as Error).message}`);
  }
  if (first && !("kind" in firstObject)) {
    const imported = importVaiJsonl(text, options);
    return { records: imported.records, seqOf: (i) => imported.vaiSeq[i], format: "vai" };
  }
  const records = text
    .split("\n")
    .map((line, i) => ({ line, i }))
    .filter(({ line }) => line.trim())
    .map(({ line, i }) => {
      try {
        return parseRecord(JSON.parse(line));
      } catch (e) {
        throw new InputError(`trace line ${i + 1}: ${(e as Error).message}`);
      }
    });
  records.forEach((r, i) => {
    if (r.seq !== i)
      throw new InputError(`trace record ${i} has seq ${r.seq}; zkVAI records run from seq 0 without gaps`);
  });
  return { records, seqOf: (i) => i, format: "zkvai" };
}

export async function check(promiseFile: string, traceFile: string, withProof: boolean) {
  const promise = readJson(promiseFile, "promise") as Record<string, unknown>;
  if (typeof promise !== "object" || promise === null || typeof promise.predicate !== "string") {
    throw new InputError(`promise file ${promiseFile} must be {"predicate": ..., "params": {...}}`);
  }
  const id = VAI_NAMES[promise.predicate] ?? promise.predicate;
  const def = PREDICATES[id] as PredicateDefinition<unknown> | undefined;
  if (!def) {
    const known = [...Object.keys(PREDICATES), ...Object.keys(VAI_NAMES)].join(", ");
    throw new InputError(`unknown predicate "${promise.predicate}"; known: ${known}`);
  }
  const theta = def.parseTheta(promise.params);
  const trace = readTrace(traceFile, { grantTools: def.vaiGrantTools?.(promise.params) });
  const profile = profileFor(def, promise, theta, trace.records);
  def.checkProfile(theta, profile);
  // Every record must be committable under the profile, whether or not the predicate reads it.
  for (const r of trace.records) encodeSlots(r, profile);
  const verdict: Verdict = def.evaluate(trace.records, theta, profile);
  const out: Record<string, unknown> = {
    predicate: def.id,
    format: trace.format,
    records: trace.records.length,
    verdict: { ...verdict, seq: verdict.seq === null ? null : trace.seqOf(verdict.seq) },
  };
  if (withProof) out.circuit = await proveLocally(def, theta, profile, trace.records);
  return out;
}

/** The promise's own profile, else one built from the trace's tools and the params' hints. */
function profileFor(
  def: PredicateDefinition<unknown>,
  promise: Record<string, unknown>,
  theta: unknown,
  records: readonly TraceRecord[],
): EncodingProfile {
  if (promise.profile !== undefined) return parseProfile(promise.profile);
  const tools: EncodingProfile["tools"] = {};
  for (const r of records) if (r.kind === "call") tools[r.tool] = {};
  Object.assign(tools, def.profileHints?.(promise.params, theta) ?? {});
  return { version: 1, tools };
}

/**
 * What would help when no built circuit holds the trace: the smallest instance in circuits/instances.json
 * that does (and the command that builds it), or, when none does, that none can yet.
 */
function capacityHint(def: PredicateDefinition<unknown>, records: readonly TraceRecord[]): string {
  const table = JSON.parse(
    readFileSync(new URL("../../circuits/instances.json", import.meta.url), "utf8"),
  ) as {
    instances: { name: string; predicate: string; params: Record<string, number>; groups: string[] }[];
  };
  const fitting = table.instances
    .filter((i) => i.predicate === def.id && capacityProblem(def, records, 0, shapeOf(i.params)) === null)
    .sort((a, b) => a.params.depth! - b.params.depth!);
  const what = `no built ${def.id} circuit holds ${records.length} records`;
  if (fitting.length) {
    const i = fitting[0]!;
    return `${what}; build ${i.name} (${2 ** i.params.depth!} records) with \`npm run setup -- --only ${i.name}\``;
  }
  const largest = Math.max(
    ...table.instances.filter((i) => i.predicate === def.id).map((i) => 2 ** i.params.depth!),
  );
  return `${what}, and no ${def.id} instance in circuits/instances.json does (the largest holds ${largest}): a trace this long cannot be proven yet`;
}

async function proveLocally(
  def: PredicateDefinition<unknown>,
  theta: unknown,
  profile: EncodingProfile,
  records: readonly TraceRecord[],
) {
  const candidates = Object.entries(loadManifest().circuits)
    .filter(([, c]) => c.predicate === def.id && capacityProblem(def, records, 0, shapeOf(c.params)) === null)
    .sort(([, a], [, b]) => Number(a.params.depth) - Number(b.params.depth));
  if (!candidates.length) throw new InputError(capacityHint(def, records));
  const [name, entry] = candidates[0];
  const artifacts = circuitArtifacts(name);
  const { input } = claimInput({
    records,
    profile,
    sessionSecret: 1n,
    checkpoints: [],
    predicate: def,
    theta,
    context: 0n,
    shape: shapeOf(entry.params),
  });
  // stdout carries the JSON result; progress goes to stderr.
  const progress = new Progress({ total: 1, stream: process.stderr });
  const proof = await progress.step(`prove with ${name}`, () => prove(artifacts, input));
  const outcomeIndex = entry.publicSignals.indexOf("outcome");
  return {
    name,
    outcome: proof.publicSignals[outcomeIndex] === 1n ? "violated" : "satisfied",
    proveSeconds: Number(proof.proveSeconds.toFixed(3)),
    verified: await verifyLocally(artifacts, proof),
  };
}
