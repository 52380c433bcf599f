// vai check: evaluate a promise on a trace with the TS oracle, and with --prove, prove the circuit's outcome
// locally (prover/evaluate.ts). Accepts zkVAI records and VAI ActionRecords. This file reads the two files
// and prints; the library does the rest.
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseTraceText } from "../../sdk/core/trace-text.js";
import { evaluatePromise, readPromiseObject, traceImportOptions } from "../../prover/evaluate.js";
import { releaseProver } from "../../prover/prove.js";
import { Progress } from "../../prover/artifacts/progress.js";
import { InputError, readJsonFile } from "./common.js";
import { checkoutBuilder } from "./setup.js";
import { PREDICATE_LIST } from "../../sdk/core/predicates/index.js";

/** The registered predicates, as usage texts name them: one of "AAP-1" | "AAP-2" | … */
const PREDICATE_NAMES = PREDICATE_LIST.map((p) => JSON.stringify(p.id)).join(" | ");

export const CHECK_USAGE = `usage: vai check --promise <promise.json> --trace <records.jsonl> [--prove [--no-build]]

Evaluates the promise on the trace and prints one JSON object:
  {predicate, records, verdict: {violated, seq, reason}}; with --prove also
  {circuit: {name, outcome, proveSeconds, verified}} from a local Groth16 proof.
  In a checkout, --prove first builds the smallest circuit that holds the trace when none built
  does (a minute for 8 records, longer for larger ones; progress on stderr); --no-build names it
  and the command that builds it instead.
promise.json: {"predicate": ${PREDICATE_NAMES} or VAI's name, "params": {...}, "profile"?: {...}}
  params use zkVAI's θ names or VAI's parameter names; "profile" is the encoding
  profile (needed for zkVAI traces whose tools the params do not describe). A promise object as the
  reference's promises.json holds it is read too (AgentDojo's; a τ³-bench rule arm is refused as not
  supported yet).
records.jsonl: one record per line, zkVAI's format or VAI's ActionRecord.
Exit code 0: evaluated (violated or not). 2: bad input, with a message.`;

export async function runCheck(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        promise: { type: "string" },
        trace: { type: "string" },
        prove: { type: "boolean", default: false },
        "no-build": { type: "boolean", default: false },
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
    const out = await check(values.promise, values.trace, values.prove, { build: !values["no-build"] });
    console.log(JSON.stringify(out, null, 2));
    return 0;
  } catch (e) {
    console.error(`vai check: ${(e as Error).message}`);
    return 2;
  } finally {
    if (values.prove) await releaseProver();
  }
}

export async function check(
  promiseFile: string,
  traceFile: string,
  withProof: boolean,
  opts: { build?: boolean } = {},
) {
  const doc = readPromiseObject(readJsonFile(promiseFile, "promise"), `promise file ${promiseFile}`);
  if ("unsupported" in doc) throw new InputError(`promise file ${promiseFile}: ${doc.unsupported}`);
  if (!existsSync(traceFile)) throw new InputError(`trace file ${traceFile} does not exist`);
  const trace = parseTraceText(readFileSync(traceFile, "utf8"), traceImportOptions(doc));
  // stdout carries the JSON result; progress goes to stderr.
  const progress = new Progress({ total: 1, stream: process.stderr });
  const build = opts.build === false ? undefined : checkoutBuilder();
  return evaluatePromise(doc, trace, {
    prove: withProof,
    onProve: (circuit, run) => progress.step(`prove with ${circuit}`, run),
    // In a checkout, a circuit not built yet is built on first use (a minute for the small ones).
    build: build && ((circuit) => build(["--only", circuit])),
  });
}
