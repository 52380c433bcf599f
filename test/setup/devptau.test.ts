// The known-τ development ptau must be exactly what snarkjs' own `prepare phase2`
// makes from the same monomial sections, and snarkjs must build a working zkey on it.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as snarkjs from "snarkjs";
import { afterAll, expect, it } from "vitest";
import { writeDevPtau } from "../../scripts/lib/devptau.js";
import { compileTestCircuit } from "../helpers/circuit.js";

const dir = mkdtempSync(join(tmpdir(), "zkvai-devptau-"));
afterAll(async () => {
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
});

it("equals snarkjs prepare phase2 of the same τ, byte for byte (power 4)", async () => {
  const raw = join(dir, "raw.ptau");
  const fast = join(dir, "fast.ptau");
  const slow = join(dir, "slow.ptau");
  await writeDevPtau(raw, { power: 4, unprepared: true });
  await writeDevPtau(fast, { power: 4 });
  await snarkjs.powersOfTau.preparePhase2(raw, slow);
  expect(readFileSync(fast).equals(readFileSync(slow))).toBe(true);
});

it("gives a zkey on which a proof verifies", async () => {
  const ptau = join(dir, "p6.ptau");
  await writeDevPtau(ptau, { power: 6 });
  const c = await compileTestCircuit(
    "devptau-square",
    [],
    "template Sq() { signal input x; signal output y; y <== x * x; }\ncomponent main = Sq();",
  );
  const zkey = join(dir, "sq.zkey");
  await snarkjs.zKey.newZKey(c.r1csPath, ptau, zkey);
  const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
  const { proof, publicSignals } = await snarkjs.groth16.fullProve({ x: "7" }, c.wasmPath, zkey);
  expect(publicSignals).toEqual(["49"]);
  expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);
  writeFileSync(join(dir, "done"), "");
});
