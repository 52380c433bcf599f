// The known-τ development ptau must be exactly what snarkjs' own `prepare phase2`
// makes from the same monomial sections, every point must be [s]G for the scalar the
// formulas give, and snarkjs must build a working zkey on it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBn128 } from "ffjavascript";
import * as snarkjs from "snarkjs";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  devToxicWaste,
  lagrangeScalars,
  writeDevPtau,
  type DevPtauTuning,
} from "../../prover/artifacts/devptau.js";
import { compileTestCircuit } from "../helpers/circuit.js";
import { FIELD_MODULUS as R } from "../../sdk/core/hash.js";

const dir = mkdtempSync(join(tmpdir(), "zkvai-INSECURE-devptau-"));
let snarkjsPrepared: Buffer;

beforeAll(async () => {
  const raw = join(dir, "raw.ptau");
  const slow = join(dir, "slow.ptau");
  await writeDevPtau(raw, { power: 4, unprepared: true });
  await snarkjs.powersOfTau.preparePhase2(raw, slow);
  snarkjsPrepared = readFileSync(slow);
});
afterAll(async () => {
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
  rmSync(dir, { recursive: true, force: true });
});

// The default picks a small window at power 4; the others cross 32-bit words in the digits (11),
// use one bit (1), split every section into many tasks whose first scalar is not 1, and run on
// other thread counts.
const tunings: [string, DevPtauTuning][] = [
  ["default tuning", {}],
  ["11-bit windows, 5-point tasks, 3 threads", { window: 11, chunk: 5, workers: 3 }],
  ["1-bit windows, 7-point tasks, 1 thread", { window: 1, chunk: 7, workers: 1 }],
];
it.each(tunings)(
  "equals snarkjs prepare phase2 of the same τ, byte for byte (power 4, %s)",
  async (_, tuning) => {
    const fast = join(dir, "fast.ptau");
    await writeDevPtau(fast, { power: 4 }, tuning);
    expect(readFileSync(fast).equals(snarkjsPrepared)).toBe(true);
  },
);

interface Curve {
  Fr: { e(x: bigint): unknown; w: unknown[]; toObject(x: unknown): bigint };
  G1: Group;
  G2: Group;
}
interface Group {
  g: Uint8Array;
  F: { n8: number };
  fromRprLEM(buff: Uint8Array, offset: number): Uint8Array;
  timesFr(base: Uint8Array, s: unknown): Uint8Array;
  eq(a: Uint8Array, b: Uint8Array): boolean;
}

it("holds [s]G for the scalar of every point, by ffjavascript's own scalar multiplication (power 3)", async () => {
  const power = 3;
  const file = join(dir, "p3.ptau");
  await writeDevPtau(file, { power });
  const buff = readFileSync(file);
  const curve = (await buildBn128()) as Curve;
  const { tau, alpha, beta } = devToxicWaste();
  const n = 2 ** power;
  const geometric = (first: bigint, count: number) =>
    Array.from({ length: count }, (_, i) => (first * pow(tau, BigInt(i))) % R);
  const lagrange = (factor: bigint, top: number) =>
    Array.from({ length: top + 1 }, (_, p) =>
      lagrangeScalars(tau, p, curve.Fr.toObject(curve.Fr.w[p]), p === power + 1).map((s) => (s * factor) % R),
    ).flat();
  const expected = new Map<number, [Group, bigint[]]>([
    [2, [curve.G1, geometric(1n, 2 * n - 1)]],
    [3, [curve.G2, geometric(1n, n)]],
    [4, [curve.G1, geometric(alpha, n)]],
    [5, [curve.G1, geometric(beta, n)]],
    [6, [curve.G2, [beta]]],
    [12, [curve.G1, lagrange(1n, power + 1)]],
    [13, [curve.G2, lagrange(1n, power)]],
    [14, [curve.G1, lagrange(alpha, power)]],
    [15, [curve.G1, lagrange(beta, power)]],
  ]);
  let pos = 12;
  const seen: number[] = [];
  while (pos < buff.length) {
    const id = buff.readUInt32LE(pos);
    const size = Number(buff.readBigUInt64LE(pos + 4));
    const body = pos + 12;
    pos = body + size;
    seen.push(id);
    const entry = expected.get(id);
    if (!entry) continue;
    const [G, scalars] = entry;
    const bytes = G.F.n8 * 2;
    expect(size).toBe(scalars.length * bytes);
    scalars.forEach((s, i) => {
      const ok = G.eq(G.fromRprLEM(buff, body + i * bytes), G.timesFr(G.g, curve.Fr.e(s)));
      if (!ok) expect.fail(`section ${id}, point ${i} is not [s]G`);
    });
  }
  expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15]);
});

it("gives a zkey on which a proof verifies", async () => {
  const ptau = join(dir, "p6.ptau");
  await writeDevPtau(ptau, { power: 6 });
  const c = await compileTestCircuit("devptau-square", {
    body: "template Sq() { signal input x; signal output y; y <== x * x; }",
    template: "Sq",
  });
  const zkey = join(dir, "sq.zkey");
  await snarkjs.zKey.newZKey(c.r1csPath, ptau, zkey);
  const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
  const { proof, publicSignals } = await snarkjs.groth16.fullProve({ x: "7" }, c.wasmPath, zkey);
  expect(publicSignals).toEqual(["49"]);
  expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);
});

it("refuses out-of-range powers and tuning before writing anything", async () => {
  const file = join(dir, "never.ptau");
  await expect(writeDevPtau(file, { power: 0 })).rejects.toThrow(RangeError);
  await expect(writeDevPtau(file, { power: 28 })).rejects.toThrow(RangeError);
  await expect(writeDevPtau(file, { power: 2 }, { window: 17 })).rejects.toThrow(RangeError);
  await expect(writeDevPtau(file, { power: 2 }, { workers: 0 })).rejects.toThrow(RangeError);
  expect(() => readFileSync(file)).toThrow();
});

function pow(b: bigint, e: bigint): bigint {
  let r = 1n;
  for (; e > 0n; e >>= 1n, b = (b * b) % R) if (e & 1n) r = (r * b) % R;
  return r;
}
