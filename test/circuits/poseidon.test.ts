// The two Poseidon templates behind PoseidonHash (circuits/gadgets/poseidon.circom): both equal
// sdk/core/hash.ts's poseidon at every width circomlib supports, at the same constraint count, and every
// S-box signal of the lean one is pinned by a constraint.
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS, poseidon } from "../../sdk/core/hash.js";
import { POSEIDON_TEMPLATES, type PoseidonTemplate } from "../../prover/artifacts/poseidon-choice.js";
import {
  compileTestCircuit,
  forge,
  signalsMatching,
  signalValue,
  type TestCircuit,
} from "../helpers/circuit.js";

const WIDTHS = 16;
const everyWidth = (widths: number) => `
template EveryWidth() {
    signal input x[${widths}];
    signal output out[${widths}];
    component h[${widths}];
    for (var w = 1; w <= ${widths}; w++) {
        h[w - 1] = PoseidonHash(w);
        for (var i = 0; i < w; i++) h[w - 1].inputs[i] <== x[i];
        out[w - 1] <== h[w - 1].out;
    }
}`;

// circomlib's template at all 16 widths in one circuit runs circom2's WebAssembly past 2 GiB, where its
// WASI layer fails ("Start offset ... outside the bounds"); widths 1..8 show it costs the same, and the
// instances' exact counts (with aap2_n8 compiled both ways, test/predicates/aap2-scope.test.ts) cover
// the wider ones.
const TESTED_WIDTHS: Record<PoseidonTemplate, number> = { circomlib: 8, lean: WIDTHS };

// 3 per S-box: 8 full rounds of t = w + 1 and circomlib's partial rounds, less the first S-box on the
// constant state[0], which --O2 folds.
const PARTIAL_ROUNDS = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68];
const expectedConstraints = (widths: number) =>
  PARTIAL_ROUNDS.slice(0, widths).reduce((sum, p, i) => sum + 3 * (8 * (i + 2) + p) - 3, 0);

const circuits = {} as Record<PoseidonTemplate, TestCircuit>;
beforeAll(async () => {
  for (const t of POSEIDON_TEMPLATES) {
    circuits[t] = await compileTestCircuit(`poseidon_${t}`, {
      includes: ["circuits/gadgets/poseidon.circom"],
      body: everyWidth(TESTED_WIDTHS[t]),
      template: "EveryWidth",
      poseidon: t,
    });
  }
});

const P = FIELD_MODULUS;
const INPUTS: Record<string, bigint[]> = {
  zeros: Array(WIDTHS).fill(0n),
  "p - 1": Array(WIDTHS).fill(P - 1n),
  counting: Array.from({ length: WIDTHS }, (_, i) => BigInt(i + 1)),
  mixed: Array.from({ length: WIDTHS }, (_, i) => (i % 2 ? P - 1n - BigInt(i) : BigInt(i) << 200n)),
};

describe.each(POSEIDON_TEMPLATES)("PoseidonHash with the %s template", (t) => {
  const widths = TESTED_WIDTHS[t];
  it(`costs 3 constraints per S-box at widths 1..${widths}`, () => {
    expect(circuits[t].constraints).toBe(expectedConstraints(widths));
  });

  it.each(Object.keys(INPUTS))("equals sdk/core/hash.ts at every width on %s", async (name) => {
    const x = INPUTS[name]!.slice(0, widths);
    const w = await circuits[t].witness({ x: x.map(String) });
    expect(circuits[t].firstUnsatisfied(w)).toBe(-1);
    for (let width = 1; width <= widths; width++) {
      expect(signalValue(circuits[t], w, `out[${width - 1}]`), `width ${width}`).toBe(
        poseidon(x.slice(0, width)),
      );
    }
  });
});

describe("the lean template's S-boxes", () => {
  it("a forged square, fourth power, fifth power or output breaks a constraint (width 6)", async () => {
    const c = circuits.lean;
    const w = await c.witness({ x: INPUTS.counting!.map(String) });
    const sboxes = signalsMatching(c, /^h\[5\]\..*\.(sq|qu|x5)\[\d+\]$/);
    // 8 full rounds of 7 and 63 partial rounds, three signals each, less the folded first S-box, and
    // one last fifth power that --O2 rewrites through the linear output.
    expect(sboxes).toHaveLength(3 * (8 * 7 + 63) - 3 - 1);
    for (const name of [...sboxes, "out[5]"]) {
      const value = signalValue(c, w, name);
      expect(c.firstUnsatisfied(forge(c, w, name, value + 1n)), name).toBeGreaterThanOrEqual(0);
    }
  });
});
