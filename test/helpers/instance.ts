// Circuit instances from circuits/instances.json (expanded by the build's own loader), compiled for
// witness tests: the build's files when setup built them from today's sources, else compiled once.
import type { PoseidonTemplate } from "../../prover/artifacts/poseidon-choice.js";
import {
  instanceMain,
  isBuildFresh,
  readInstances,
  type Instance as BuildInstance,
} from "../../prover/artifacts/circuit-build.js";
import { builtCircuit, compileTestCircuit, type TestCircuit } from "./circuit.js";

export type Instance = BuildInstance & {
  params: { depth: number; checkpoints: number } & Record<string, number>;
  args: number[];
};

function table(): Instance[] {
  return readInstances() as Instance[];
}

/** The predicate's whole-claim instances (its segment circuits, "kind": "segment", are not among them). */
export function instancesOf(predicate: string): Instance[] {
  return table().filter((i) => i.predicate === predicate && i.kind !== "segment");
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
  if (template === (i.poseidon ?? "circomlib") && (await isBuildFresh(i))) return builtCircuit(name);
  const { origin: _, ...main } = instanceMain({ ...i, poseidon: template });
  return compileTestCircuit(template === "circomlib" ? i.name : `${i.name}_${template}`, main);
}
