// circuits/instances.json: one family per registered predicate (its main template, the file it lives in
// and the order of the template's parameters) and one row per built capacity. A row says only what is its
// own (name, depth, groups, event slots where they differ); the θ sizes come from the predicate's
// definition (`caps`) and the public inputs from sdk/core/claim.ts, so neither can drift from what the
// prover and the escrow use. The loader expands rows into the Instance objects everything else reads.

import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { PUBLIC_INPUTS, SEGMENT_PUBLIC_INPUTS } from "../../sdk/core/claim.js";
import { findPredicate } from "../../sdk/core/predicates/index.js";
import { isPoseidonTemplate, POSEIDON_TEMPLATES, type PoseidonTemplate } from "./poseidon-choice.js";
import { rel, ROOT } from "../../sdk/manifest/packages.js";
import { InstanceTableError } from "./errors.js";

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Instance {
  name: string;
  predicate: string;
  source: string;
  template: string;
  params: Record<string, unknown>;
  args: unknown[];
  publicSignals: string[];
  /** Named sets of instances built together: "test" (what npm test needs), "demo", "bench". */
  groups: string[];
  /** The Poseidon template its gadgets use (circuits/gadgets/poseidon.circom); circomlib's by default. */
  poseidon?: PoseidonTemplate;
  /** "segment": one segment of a chain (circuits/segments/); absent: a whole-claim circuit. */
  kind?: "segment";
}

/** One predicate's circuit: keyed by the predicate id in the table's `families`. */
export interface Family {
  source: string;
  template: string;
  /** The names of the template's parameters, in order: depth, checkpoints, θ sizes, event slots. */
  args: string[];
  /** Parameter values its rows share unless a row gives its own. */
  defaults?: Record<string, number>;
  /**
   * The predicate's segment circuit (circuits/segments/), taking the same parameters: rows with
   * "kind": "segment" build it, with segments of 2^depth records.
   */
  segment?: { source: string; template: string };
}

export interface InstanceTable {
  families: Record<string, Family>;
  instances: Record<string, unknown>[];
}

/** A row's own keys; every other key of a row is a parameter. */
const ROW_KEYS = new Set(["name", "family", "groups", "poseidon", "kind"]);

function fail(where: string, message: string): never {
  throw new InstanceTableError(`${where}: ${message}`);
}

function checkFamily(id: string, f: Family, where: string): void {
  if (!findPredicate(id)) fail(where, `no predicate "${id}" is registered (sdk/core/predicates/index.ts)`);
  if (typeof f.source !== "string") fail(where, "source must be a path");
  // circom2 runs under WASI with the repo root as its only reachable tree.
  if (rel(path.resolve(ROOT, f.source)).startsWith(".."))
    fail(where, "source must lie inside the repository");
  if (typeof f.template !== "string" || !IDENT.test(f.template)) fail(where, "bad template");
  if (!Array.isArray(f.args) || !f.args.every((a) => typeof a === "string" && IDENT.test(a)))
    fail(where, "args must be an array of parameter names");
  if (f.segment !== undefined) {
    if (typeof f.segment?.source !== "string" || rel(path.resolve(ROOT, f.segment.source)).startsWith(".."))
      fail(where, "segment.source must be a path inside the repository");
    if (typeof f.segment.template !== "string" || !IDENT.test(f.segment.template))
      fail(where, "bad segment.template");
  }
}

/** Expands one row: parameters from the row, else the family's defaults, else the predicate's caps. */
function expand(raw: Record<string, unknown>, table: InstanceTable, where: string): Instance {
  const id = raw.family;
  if (typeof id !== "string" || !table.families[id])
    fail(where, `family must be one of ${Object.keys(table.families).join(", ")}`);
  const family = table.families[id];
  const caps = findPredicate(id)!.caps;
  // The order the table always listed them in: depth, checkpoints, θ sizes, then the rest of the args.
  const names = [...new Set(["depth", "checkpoints", ...Object.keys(caps), ...family.args])];
  for (const k of Object.keys(raw)) {
    if (!ROW_KEYS.has(k) && !names.includes(k))
      fail(where, `unknown key ${k}; parameters of ${id}: ${names.join(", ")}`);
  }
  const params: Record<string, number> = {};
  if (raw.checkpoints !== undefined || family.defaults?.checkpoints !== undefined)
    fail(where, "checkpoints is not set by hand: it is checkpointSlots(2^depth) (sdk/core/checkpoints.ts)");
  for (const k of names) {
    const v =
      k === "checkpoints" && Number.isSafeInteger(params.depth) && params.depth! <= 30
        ? checkpointSlots(2 ** params.depth!)
        : (raw[k] ?? family.defaults?.[k] ?? caps[k]);
    if (!Number.isSafeInteger(v) || (v as number) < 0) fail(where, `${k} must be a non-negative integer`);
    params[k] = v as number;
  }
  if (typeof raw.name !== "string" || !IDENT.test(raw.name)) {
    fail(where, "name must be an identifier (it names a Solidity contract)");
  }
  if (!Array.isArray(raw.groups) || !raw.groups.every((g) => typeof g === "string")) {
    fail(where, "groups must be an array of group names");
  }
  if (raw.poseidon !== undefined && !isPoseidonTemplate(raw.poseidon)) {
    const allowed = POSEIDON_TEMPLATES.map((t) => JSON.stringify(t)).join(" or ");
    fail(where, `poseidon must be ${allowed}, not ${JSON.stringify(raw.poseidon)}`);
  }
  if (raw.kind !== undefined && raw.kind !== "segment") fail(where, `kind must be "segment" or absent`);
  const segment = raw.kind === "segment";
  if (segment && !family.segment) fail(where, `family ${id} has no segment circuit`);
  // Key order as the table had it: the instance entry is part of setup's compile key.
  return {
    name: raw.name,
    predicate: id,
    source: segment ? family.segment!.source : family.source,
    template: segment ? family.segment!.template : family.template,
    params,
    args: family.args.map((k) => params[k]),
    publicSignals: [...(segment ? SEGMENT_PUBLIC_INPUTS : PUBLIC_INPUTS)],
    groups: raw.groups as string[],
    ...(raw.poseidon === undefined ? {} : { poseidon: raw.poseidon as PoseidonTemplate }),
    ...(segment ? { kind: "segment" as const } : {}),
  };
}

/** The table in `text` (the contents of `file`), expanded; throws naming the first bad entry. */
export function parseInstances(text: string, file: string): Instance[] {
  let table: InstanceTable;
  try {
    table = JSON.parse(text) as InstanceTable;
  } catch (e) {
    throw new InstanceTableError(`${rel(file)}: not JSON (${(e as Error).message})`, { cause: e });
  }
  if (typeof table?.families !== "object" || table.families === null || !Array.isArray(table.instances))
    throw new InstanceTableError(`${rel(file)}: expected {"families": {...}, "instances": [...]}`);
  for (const [id, f] of Object.entries(table.families)) checkFamily(id, f, `${rel(file)} families.${id}`);
  const seen = new Set<string>();
  return table.instances.map((raw, i) => {
    const where = `${rel(file)} instances[${i}]`;
    const inst = expand(raw, table, where);
    if (seen.has(inst.name)) fail(where, `duplicate name ${inst.name}`);
    seen.add(inst.name);
    return inst;
  });
}

export const INSTANCES_FILE = path.join(ROOT, "circuits/instances.json");

/** The instance table, expanded; synchronous for callers that build test tables at import time. */
export function readInstances(file: string = INSTANCES_FILE): Instance[] {
  return parseInstances(readFileSync(file, "utf8"), file);
}

export async function loadInstances(file: string = INSTANCES_FILE): Promise<Instance[]> {
  return readInstances(file);
}

/** The raw table (families and rows), for the registry checks. */
export function readInstanceTable(file: string = INSTANCES_FILE): InstanceTable {
  return JSON.parse(readFileSync(file, "utf8")) as InstanceTable;
}
