// Every predicate fixture: the TS oracle gives the expected verdict, and the
// circuit (the predicate's smallest instance from 8 records that holds all its fixtures, witness only)
// computes the same outcome and refuses the other one.
import { describe, expect, it } from "vitest";
import { predicateById } from "../../sdk/core/predicates/index.js";
import { claimInput } from "../../prover/witness.js";
import { predicateFixtures } from "../helpers/fixtures.js";
import { compileInstance, instancesOf } from "../helpers/instance.js";
import { expectVerdict, type TestCircuit } from "../helpers/circuit.js";

const fixtures = predicateFixtures();
const circuits = new Map<string, Promise<TestCircuit>>();

describe.each([...new Set(fixtures.map((f) => f.predicate))])("%s fixtures", (predicate) => {
  const def = predicateById(predicate);
  const longest = Math.max(...fixtures.filter((x) => x.predicate === predicate).map((x) => x.records.length));
  const inst = instancesOf(predicate)
    .filter((i) => i.params.depth >= 3 && 2 ** i.params.depth >= longest)
    .sort((a, b) => a.params.depth - b.params.depth)[0];

  for (const f of fixtures.filter((x) => x.predicate === predicate)) {
    it(`${f.file}: ${f.description}`, async () => {
      const theta = def.parseTheta(f.theta);
      const verdict = def.evaluate(f.records, theta, f.profile);
      expect({ violated: verdict.violated, seq: verdict.seq }).toEqual(f.expected);

      if (!inst)
        throw new Error(
          `${predicate} has no instance of depth ≥ 3 in circuits/instances.json that holds ${longest} records`,
        );
      if (!circuits.has(inst.name)) circuits.set(inst.name, compileInstance(inst.name));
      const circuit = await circuits.get(inst.name)!;
      const { input } = claimInput({
        records: f.records,
        profile: f.profile,
        sessionSecret: 99n,
        checkpoints: [],
        predicate: def,
        theta,
        context: 1n,
        shape: { depth: inst.params.depth, checkpoints: inst.params.checkpoints },
      });
      const w = await expectVerdict(circuit, input, verdict.violated);
      expect(circuit.firstUnsatisfied(w)).toBe(-1);
    });
  }
});
