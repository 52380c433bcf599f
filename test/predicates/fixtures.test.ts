// Every predicate fixture: the TS oracle gives the expected verdict, and the circuit (the predicate's smallest
// instance from 8 records that holds the fixture, witness only) computes the same outcome and refuses the other
// one. A fixture of more than 8 records with its row pads (AAP-7's τ³ runs of 10 to 15) is checked against the oracle here and
// through the 16-record circuit in test:full, so that npm test compiles no 16-record circuit.
import { describe, expect, it } from "vitest";
import { predicateById } from "../../sdk/core/predicates/index.js";
import { claimInput } from "../../prover/witness.js";
import { withRowPads } from "../../sdk/core/predicates/aap7/pads.js";
import { predicateFixtures } from "../helpers/fixtures.js";
import { compileInstance, instancesOf } from "../helpers/instance.js";
import { expectVerdict, type TestCircuit } from "../helpers/circuit.js";

const fixtures = predicateFixtures();
const circuits = new Map<string, Promise<TestCircuit>>();
const FULL = process.env.ZKVAI_FULL === "1";

describe.each([...new Set(fixtures.map((f) => f.predicate))])("%s fixtures", (predicate) => {
  const def = predicateById(predicate);
  const holding = (records: number) =>
    instancesOf(predicate)
      .filter((i) => i.params.depth >= 3 && 2 ** i.params.depth >= records)
      .sort((a, b) => a.params.depth - b.params.depth)[0];

  for (const f of fixtures.filter((x) => x.predicate === predicate)) {
    // The trace as a claim is on it: closed with its row pads (AAP-7's, sdk/core/predicates/aap7/pads.ts).
    const closed = withRowPads(f.records, f.profile);
    const inst = holding(closed.length);
    // Up to 8 records the depth-3 circuit, as every predicate's fixtures but AAP-7's longer or padded τ³ runs.
    const circuitHere = FULL || closed.length <= 8;
    it(`${f.file}: ${f.description}${circuitHere ? "" : " (oracle; the circuit in test:full)"}`, async () => {
      const theta = def.parseTheta(f.theta);
      const verdict = def.evaluate(f.records, theta, f.profile);
      expect({ violated: verdict.violated, seq: verdict.seq }).toEqual(f.expected);

      if (!inst)
        throw new Error(
          `${predicate} has no instance of depth ≥ 3 in circuits/instances.json that holds ${closed.length} records`,
        );
      if (!circuitHere) return;
      if (!circuits.has(inst.name)) circuits.set(inst.name, compileInstance(inst.name));
      const circuit = await circuits.get(inst.name)!;
      const { input } = claimInput({
        records: closed,
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
