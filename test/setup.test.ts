// Checks that build/manifest.json (written by `npm run setup`, which `npm test` runs first) agrees with the
// files on disk, so a stale or hand-edited artifact cannot silently pair with the wrong verifier (P9).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  circuitArtifacts,
  loadManifest,
  MANIFEST_PATH,
  verifyArtifactHashes,
  type Manifest,
} from "../sdk/manifest/manifest.js";
import { readInstances } from "../prover/artifacts/instances.js";
import { PREDICATES } from "../sdk/core/predicates/index.js";

const manifest = loadManifest();
const names = Object.keys(manifest.circuits);

describe("build manifest", () => {
  it("covers every test-group instance of circuits/instances.json (what npm test builds)", () => {
    const testGroup = readInstances().filter((i) => i.groups.includes("test"));
    const predicateCount = Object.keys(PREDICATES).length;
    expect(testGroup.length).toBeGreaterThanOrEqual(predicateCount);
    for (const { name } of testGroup) expect(names).toContain(name);
    // Every predicate has a circuit that the on-chain tests settle through.
    expect(new Set(testGroup.map((i) => i.predicate)).size).toBe(predicateCount);
  });

  it("marks development setups insecure", () => {
    const dev = manifest.ptau.source === "generated-dev";
    if (dev) {
      expect(manifest.ptau.insecure).toBe(true);
      expect(manifest.ptau.path).toMatch(/INSECURE/);
    }
    for (const c of Object.values(manifest.circuits)) {
      expect(c.insecureDevSetup).toBe(true);
      // Dev keys are built directly with δ = 1 and no contribution; keys on VAI_PTAU get one.
      expect(c.zkeyContributions.length).toBe(dev ? 0 : 1);
      // The key file itself says what it is, wherever it is copied.
      if (dev) expect(c.files.zkey.path).toMatch(/\.INSECURE_dev\.zkey$/);
      expect(c.power).toBeLessThanOrEqual(manifest.ptau.power);
    }
  });

  it.each(names)("%s: artifact hashes match the files", async (name) => {
    await verifyArtifactHashes(name);
  });

  it.each(names)("%s: verifier contract is renamed", (name) => {
    const a = circuitArtifacts(name);
    expect(a.verifierContract).toBe(`Verifier_${name}`);
    const sol = readFileSync(a.verifierSol, "utf8");
    expect(sol).toMatch(new RegExp(`\\bcontract Verifier_${name}\\s*\\{`));
    expect(sol).not.toMatch(/\bcontract Groth16Verifier\b/);
  });

  it.each(names)("%s: vkey has one input per public signal", (name) => {
    const a = circuitArtifacts(name);
    const vkey = JSON.parse(readFileSync(a.vkey, "utf8")) as {
      protocol: string;
      curve: string;
      nPublic: number;
    };
    expect(vkey).toMatchObject({ protocol: "groth16", curve: "bn128", nPublic: a.publicSignals.length });
    expect(path.isAbsolute(a.wasm) && path.isAbsolute(a.zkey)).toBe(true);
  });
});

describe("verifyArtifactHashes", () => {
  const root = mkdtempSync(path.join(tmpdir(), "zkvai-manifest-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // A miniature root with fake artifacts, so the failure path is tested without touching the real build.
  const files = ["r1cs", "wasm", "zkey", "vkey", "verifierSol"] as const;
  const sha = "0".repeat(64);
  const fake: Manifest = {
    ...manifest,
    circuits: {
      fake: {
        ...Object.values(manifest.circuits)[0],
        files: Object.fromEntries(
          files.map((k) => [k, { path: `out/${k}`, sha256: sha }]),
        ) as Manifest["circuits"][string]["files"],
      },
    },
  };
  mkdirSync(path.join(root, "build"), { recursive: true });
  mkdirSync(path.join(root, "out"), { recursive: true });
  writeFileSync(path.join(root, MANIFEST_PATH), JSON.stringify(fake));

  it("names a missing file", async () => {
    await expect(verifyArtifactHashes("fake", root)).rejects.toThrow(/r1cs file out\/r1cs is missing/);
  });

  it("names a mismatching file", async () => {
    for (const k of files) writeFileSync(path.join(root, "out", k), k);
    await expect(verifyArtifactHashes("fake", root)).rejects.toThrow(
      /r1cs file out\/r1cs has sha256 [0-9a-f]{64}/,
    );
  });

  it("rejects an unknown circuit and a missing manifest with a hint to run setup", () => {
    expect(() => circuitArtifacts("nope", root)).toThrow(/not in build\/manifest.json/);
    expect(() => loadManifest(path.join(root, "out"))).toThrow(/run `npm run setup`/);
  });
});
