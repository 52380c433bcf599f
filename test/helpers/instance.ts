// Circuit instances from circuits/instances.json, compiled for witness tests (no setup needed).
import { readFileSync } from "node:fs";
import type { PoseidonTemplate } from "../../prover/artifacts/poseidon-choice.js";
import { isBuildFresh, loadInstances } from "../../prover/artifacts/circuit-build.js";
import { builtCircuit, compileTestCircuit, type TestCircuit } from "./circuit.js";

export interface Instance {
  name: string;
  predicate: string;
  source: string;
  template: string;
  params: { depth: number; checkpoints: number } & Record<string, number>;
  args: number[];
  publicSignals: string[];
  groups: string[];
  poseidon?: PoseidonTemplate;
}

function table(): Instance[] {
  return (JSON.parse(readFileSync("circuits/instances.json", "utf8")) as { instances: Instance[] }).instances;
}

export function instancesOf(predicate: string): Instance[] {
  return table().filter((i) => i.predicate === predicate);
}

export function instance(name: string): Instance {
  const found = table().find((i) => i.name === name);
  if (!found) throw new Error(`no circuit instance ${name}`);
  return found;
}

/** An instance compiled as the table says, or with the other Poseidon template when `poseidon` is given. */
export async function compileInstance(name: string, poseidon?: PoseidonTemplate): Promise<TestCircuit> {
  const i = instance(name);
  const template = poseidon ?? i.poseidon ?? "circomlib";
  // An instance setup has built from today's sources is used as built, not compiled again.
  const asBuilt = (await loadInstances("circuits/instances.json")).find((b) => b.name === name)!;
  if (template === (i.poseidon ?? "circomlib") && (await isBuildFresh(asBuilt))) return builtCircuit(name);
  return compileTestCircuit(
    template === "circomlib" ? i.name : `${i.name}_${template}`,
    [i.source],
    `component main {public [${i.publicSignals.join(", ")}]} = ${i.template}(${i.args.join(", ")});`,
    template,
  );
}
