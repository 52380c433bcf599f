// vai ceremony on a tiny circuit: a chain of two contributions and a beacon verifies against the r1cs and
// the ptau, its exported keys prove; a zkey changed by one byte, or one from another ptau, does not verify.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBn128 } from "ffjavascript";
import * as snarkjs from "snarkjs";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runCeremony } from "../../bin/cli/ceremony.js";
import { compileTestCircuit, type TestCircuit } from "../helpers/circuit.js";

const dir = mkdtempSync(join(tmpdir(), "zkvai-ceremony-"));
const f = (name: string) => join(dir, name);
let circuit: TestCircuit;

async function ptau(file: string, entropy: string): Promise<void> {
  const curve = await buildBn128();
  await snarkjs.powersOfTau.newAccumulator(curve, 4, f(`${file}.raw`));
  await snarkjs.powersOfTau.contribute(f(`${file}.raw`), f(`${file}.c1`), "test", entropy);
  await snarkjs.powersOfTau.preparePhase2(f(`${file}.c1`), f(file));
}

/** Runs `vai ceremony …` in-process; returns the exit code and the JSON it printed. */
async function ceremony(...argv: string[]): Promise<{ code: number; out: Record<string, unknown> }> {
  const logs: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((m: string) => void logs.push(m));
  const err = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const code = await runCeremony(argv);
    return { code, out: logs.length ? (JSON.parse(logs.join("\n")) as Record<string, unknown>) : {} };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

/** Offset of a section's data in an iden3 binary file: magic, version, count, then (type u32, size u64, data). */
function sectionStart(file: Buffer, type: number): number {
  let pos = 12;
  for (let i = 0; i < file.readUInt32LE(8); i++) {
    const size = Number(file.readBigUInt64LE(pos + 4));
    if (file.readUInt32LE(pos) === type) return pos + 12;
    pos += 12 + size;
  }
  throw new Error(`no section ${type}`);
}

afterEach(() => vi.restoreAllMocks());

beforeAll(async () => {
  circuit = await compileTestCircuit("ceremony-cube", {
    body: "template Cube() { signal input x; signal x2 <== x * x; signal output y <== x2 * x; }",
    template: "Cube",
  });
  await ptau("a.ptau", "entropy-a");
  await ptau("b.ptau", "entropy-b");
}, 120_000);

describe("vai ceremony", () => {
  it("contribute twice + beacon + verify passes, and the exported keys prove", async () => {
    const r1cs = circuit.r1csPath;
    expect((await ceremony("new", "--r1cs", r1cs, "--ptau", f("a.ptau"), "--out", f("0.zkey"))).code).toBe(0);
    const alice = await ceremony("contribute", "--in", f("0.zkey"), "--out", f("1.zkey"), "--name", "alice");
    expect(alice.code).toBe(0);
    const bob = await ceremony(
      "contribute",
      "--in",
      f("1.zkey"),
      "--out",
      f("2.zkey"),
      "--name",
      "bob",
      "--entropy",
      "bob's dice",
    );
    expect(bob.code).toBe(0);
    expect(bob.out.contributionHash).not.toBe(alice.out.contributionHash);
    const beacon = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
    expect(
      (await ceremony("beacon", "--in", f("2.zkey"), "--out", f("3.zkey"), "--beacon", beacon)).code,
    ).toBe(0);

    const verified = await ceremony("verify", "--r1cs", r1cs, "--ptau", f("a.ptau"), "--zkey", f("3.zkey"));
    expect(verified.code).toBe(0);
    expect(verified.out.ok).toBe(true);
    const names = (verified.out.contributions as Array<{ name: string }>).map((c) => c.name);
    expect(names).toEqual(["alice", "bob", "final beacon"]);

    const exported = await ceremony(
      "export",
      "--zkey",
      f("3.zkey"),
      "--vkey",
      f("vkey.json"),
      "--verifier",
      f("V.sol"),
      "--contract",
      "Verifier_cube",
    );
    expect(exported.code).toBe(0);
    expect(readFileSync(f("V.sol"), "utf8")).toMatch(/contract Verifier_cube\b/);
    const vkey = JSON.parse(readFileSync(f("vkey.json"), "utf8"));
    const { proof, publicSignals } = await snarkjs.groth16.fullProve(
      { x: "3" },
      circuit.wasmPath,
      f("3.zkey"),
    );
    expect(publicSignals).toEqual(["27"]);
    expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);
  }, 120_000);

  it("a zkey changed by one byte fails verify", async () => {
    const tampered = Buffer.from(readFileSync(f("3.zkey")));
    // One byte of the first point of section 8 (the C / L points that the contributions rescale).
    tampered[sectionStart(tampered, 8) + 5] ^= 0x01;
    writeFileSync(f("tampered.zkey"), tampered);
    const r = await ceremony(
      "verify",
      "--r1cs",
      circuit.r1csPath,
      "--ptau",
      f("a.ptau"),
      "--zkey",
      f("tampered.zkey"),
    );
    expect(r.code).toBe(1);
    expect(r.out.ok).toBe(false);
  }, 60_000);

  it("a valid zkey checked against another ptau fails verify", async () => {
    const r = await ceremony(
      "verify",
      "--r1cs",
      circuit.r1csPath,
      "--ptau",
      f("b.ptau"),
      "--zkey",
      f("3.zkey"),
    );
    expect(r.code).toBe(1);
  }, 60_000);

  it("refuses bad arguments with exit 2 and writes nothing", async () => {
    copyFileSync(f("3.zkey"), f("keep.zkey"));
    expect((await ceremony("contribute", "--in", f("keep.zkey"), "--out", f("x.zkey"))).code).toBe(2); // no --name
    expect(
      (await ceremony("beacon", "--in", f("keep.zkey"), "--out", f("y.zkey"), "--beacon", "xyz")).code,
    ).toBe(2);
    expect(
      (await ceremony("verify", "--r1cs", "missing.r1cs", "--ptau", f("a.ptau"), "--zkey", f("keep.zkey")))
        .code,
    ).toBe(2);
    expect((await ceremony("frobnicate")).code).toBe(2);
    expect(() => readFileSync(f("x.zkey"))).toThrow();
    expect(() => readFileSync(f("y.zkey"))).toThrow();
  });
});
