// The AAP-4 circuit instance under test (the one setup builds), compiled for witness tests.
import { readFileSync } from "node:fs";
import { compileTestCircuit, type TestCircuit } from "./circuit.js";

export interface Instance {
  name: string;
  source: string;
  template: string;
  params: { depth: number; checkpoints: number; tools: number; allowlist: number };
  args: number[];
  publicSignals: string[];
}

export function instance(name: string): Instance {
  const table = JSON.parse(readFileSync("circuits/instances.json", "utf8")) as { instances: Instance[] };
  const found = table.instances.find((i) => i.name === name);
  if (!found) throw new Error(`no circuit instance ${name}`);
  return found;
}

export function compileInstance(name: string): Promise<TestCircuit> {
  const i = instance(name);
  return compileTestCircuit(
    i.name,
    [i.source],
    `component main {public [${i.publicSignals.join(", ")}]} = ${i.template}(${i.args.join(", ")});`,
  );
}
