// The direct INSECURE dev zkey must be byte for byte what snarkjs' `zkey new` writes from the dev ptau
// of the same public τ: at the ptau's top power (where the H points come from a domain with its last
// monomial dropped) and below it, for a circuit with public inputs, outputs, repeated signals and
// signals no constraint reads. And snarkjs must prove and verify with it unchanged.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as snarkjs from "snarkjs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { writeDevPtau } from "../../prover/artifacts/devptau.js";
import { writeDevZkey } from "../../prover/artifacts/devzkey.js";
import { readR1csHeader, requiredPower } from "../../prover/artifacts/zkfiles.js";
import { compileTestCircuit, type TestCircuit } from "../helpers/circuit.js";

const dir = mkdtempSync(join(tmpdir(), "zkvai-INSECURE-devzkey-"));
let circuit: TestCircuit;
let power: number;

beforeAll(async () => {
  circuit = await compileTestCircuit("devzkey-mix", {
    template: "Mix",
    args: [6],
    publicSignals: ["k"],
    body: `template Mix(n) {
       signal input a[n];
       signal input k;
       signal input unused;
       signal output prod;
       signal output lin;
       signal acc[n];
       acc[0] <== a[0] * k;
       for (var i = 1; i < n; i++) acc[i] <== acc[i - 1] * (a[i] + 3 * k - 2);
       prod <== acc[n - 1];
       lin <== 5 * a[0] - 7 * k + prod;
     }`,
  });
  power = requiredPower(await readR1csHeader(circuit.r1csPath));
});
afterAll(async () => {
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
  rmSync(dir, { recursive: true, force: true });
});

it.each([0, 1])(
  "equals snarkjs zkey new on the dev ptau of the circuit's power + %i, byte for byte",
  async (extra) => {
    const ptau = join(dir, `p${power + extra}.ptau`);
    await writeDevPtau(ptau, { power: power + extra });
    const slow = join(dir, `slow${extra}.zkey`);
    const fast = join(dir, `fast${extra}.zkey`);
    expect(await snarkjs.zKey.newZKey(circuit.r1csPath, ptau, slow)).not.toBe(-1);
    const result = await writeDevZkey(circuit.r1csPath, fast, { ptauPower: power + extra });
    expect(result.power).toBe(power);
    expect(readFileSync(fast).equals(readFileSync(slow))).toBe(true);
  },
);

it("proves and verifies with snarkjs, and rejects a wrong public input", async () => {
  const zkey = join(dir, "own.zkey");
  await writeDevZkey(circuit.r1csPath, zkey);
  const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
  const input = { a: ["2", "3", "5", "7", "11", "13"], k: "4", unused: "9" };
  const { proof, publicSignals } = await snarkjs.groth16.fullProve(input, circuit.wasmPath, zkey);
  expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);
  const forged = [...publicSignals];
  forged[2] = "5";
  expect(await snarkjs.groth16.verify(vkey, forged, proof)).toBe(false);
});

it("refuses a ptau power below the circuit's, and a file that is not an r1cs", async () => {
  await expect(writeDevZkey(circuit.r1csPath, join(dir, "x.zkey"), { ptauPower: power - 1 })).rejects.toThrow(
    RangeError,
  );
  const notR1cs = join(dir, "not.r1cs");
  writeFileSync(notR1cs, Buffer.alloc(64, 0).fill("zkey", 0, 4));
  await expect(writeDevZkey(notR1cs, join(dir, "y.zkey"))).rejects.toThrow(/not a r1cs file/);
});
