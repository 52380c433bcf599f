// The per-instance stages of prover/artifacts/setup.ts: circom2 compile (compile.ts, into build/circuits/<name>),
// Groth16 phase 2, vkey and verifier export. Each stage is keyed by a content hash recorded in
// build/circuits/<name>/state.json only after all of its outputs are in place, so an interrupted run is
// redone rather than trusted.

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import * as snarkjs from "snarkjs";
import { compileKey, compileMain, filesMatch, type CompileJob, type CompileState } from "./compile.js";
import type { Instance } from "./instances.js";
import { mainSource, type MainSpec } from "./main-source.js";
import type { ZkeyContribution } from "../../sdk/manifest/manifest.js";
import type { Progress } from "./progress.js";
import { writeDevZkey } from "./devzkey.js";
import { snarkLogger, type PtauChoice } from "./ptau.js";
import { buildTools, readJson, ROOT } from "../../sdk/manifest/packages.js";
import { sha256File, sha256Hex, tempName, ToolError, writeFileAtomic } from "./zkfiles.js";
import { renderVerifier, verifierSource, vkeyFileText } from "../../sdk/manifest/verifier-source.js";
import { InstanceTableError } from "./errors.js";

// The build's entry points, for the scripts and tests that import them from here.
export { compileMain, sourcesHash, type Compiled, type CompileJob } from "./compile.js";
export { loadInstances, readInstances, type Instance } from "./instances.js";
export { mainSource, type MainSpec } from "./main-source.js";
export { buildTools, pkgBin, pkgVersion, readJson, rel, ROOT } from "../../sdk/manifest/packages.js";

/** Per-circuit cache record. A stage's key is written only after all of its outputs are in place. */
export interface CircuitState extends CompileState {
  zkeyKey?: string;
  zkeySha?: string;
  ptauSha256?: string;
  contributions?: ZkeyContribution[];
  exportKey?: string;
  vkeySha?: string;
  solSha?: string;
}

export interface Paths {
  dir: string;
  wrapper: string;
  r1cs: string;
  sym: string;
  jsDir: string;
  wasm: string;
  zkey: string;
  /** The INSECURE development key, named so wherever it is copied (devzkey.ts). */
  devZkey: string;
  vkey: string;
  sol: string;
  state: string;
}

export function pathsFor(name: string): Paths {
  const dir = path.join(ROOT, "build/circuits", name);
  return {
    dir,
    wrapper: path.join(dir, `${name}.circom`),
    r1cs: path.join(dir, `${name}.r1cs`),
    sym: path.join(dir, `${name}.sym`),
    jsDir: path.join(dir, `${name}_js`),
    wasm: path.join(dir, `${name}_js`, `${name}.wasm`),
    zkey: path.join(dir, `${name}.zkey`),
    devZkey: path.join(dir, `${name}.INSECURE_dev.zkey`),
    vkey: path.join(dir, `${name}.vkey.json`),
    sol: path.join(ROOT, "contracts/generated", `Verifier_${name}.sol`),
    state: path.join(dir, "state.json"),
  };
}

async function saveState(p: Paths, state: CircuitState): Promise<void> {
  await writeFileAtomic(p.state, JSON.stringify(state, null, 2) + "\n");
}

export type Status = "cached" | "built" | "re-exported";

/** What setup compiles for an instance: its family's template over its parameters, in its own folder. */
export function instanceMain(inst: Instance): MainSpec {
  return {
    origin: "scripts/setup.ts from the instance table",
    includes: [inst.source],
    template: inst.template,
    args: inst.args as number[],
    publicSignals: inst.publicSignals,
    poseidon: inst.poseidon,
  };
}

function compileJob(inst: Instance, tools: Record<string, string>): CompileJob & { dir: string } {
  return {
    name: inst.name,
    main: instanceMain(inst),
    dir: pathsFor(inst.name).dir,
    // The entry itself is keyed too: a changed params or groups field is a changed instance.
    keyParts: [JSON.stringify(inst)],
    tools: { circom2: tools.circom2!, circomlib: tools.circomlib! },
    exactPublic: true,
  };
}

/** The main file setup writes for an instance into build/circuits/<name>. */
export function wrapperFor(inst: Instance, p: Paths): string {
  return mainSource(instanceMain(inst), p.dir);
}

/**
 * Whether build/circuits/<name> holds the r1cs and wasm that setup would compile from today's
 * sources, so tests may use the build's own files instead of compiling again.
 */
export async function isBuildFresh(inst: Instance): Promise<boolean> {
  const state = await readJson<{ compileKey?: string }>(pathsFor(inst.name).state);
  if (!state?.compileKey || !existsSync(pathsFor(inst.name).r1cs)) return false;
  return state.compileKey === (await currentSourceHash(inst, buildTools()));
}

/** The compile key the instance would have now: a manifest entry with another one is stale. */
export function currentSourceHash(inst: Instance, tools: Record<string, string>): Promise<string> {
  const job = compileJob(inst, tools);
  return compileKey(job, mainSource(job.main, job.dir));
}

/** Compiles an instance into build/circuits/<name> unless its compile key matches; true if it compiled. */
export async function compileCircuit(
  inst: Instance,
  p: Paths,
  state: CircuitState,
  tools: Record<string, string>,
  progress: Progress,
  force: boolean,
): Promise<boolean> {
  const job = { ...compileJob(inst, tools), dir: p.dir, state, force };
  const label = `compile ${inst.name}`;
  if (!force && (await compileMain({ ...job, cacheOnly: true }))) {
    progress.skip(label);
    return false;
  }
  await progress.step(label, (h) => compileMain({ ...job, onLine: (l) => h.note(l) }));
  return true;
}

/** Where an instance's key lives: marked INSECURE in its name when built from the public τ. */
export function zkeyPath(p: Paths, ptau: Pick<PtauChoice, "source">): string {
  return ptau.source === "generated-dev" ? p.devZkey : p.zkey;
}

export async function setupZkey(
  inst: Instance,
  p: Paths,
  state: CircuitState,
  ptau: PtauChoice,
  tools: Record<string, string>,
  progress: Progress,
  force: boolean,
): Promise<Status> {
  const key = sha256Hex(
    Buffer.concat([await readFile(p.r1cs), Buffer.from(`\n${ptau.sha256}\nsnarkjs ${tools.snarkjs}`)]),
  );
  const dev = ptau.source === "generated-dev";
  const zkey = zkeyPath(p, ptau);
  const labels = [
    dev ? `INSECURE dev zkey ${inst.name} (direct from the public τ)` : `groth16 setup ${inst.name}`,
    `zkey contribute ${inst.name}`,
    `export vkey+verifier ${inst.name}`,
  ];
  let status: Status = "cached";
  if (!force && state.zkeyKey === key && (await filesMatch([[zkey, state.zkeySha]]))) {
    progress.skip(labels[0]);
    progress.skip(labels[1]);
  } else {
    for (const k of ["zkeyKey", "zkeySha", "contributions", "exportKey", "ptauSha256"] as const)
      delete state[k];
    await saveState(p, state);
    const initial = tempName(path.join(p.dir, `${inst.name}_0000.zkey`));
    const contributed = tempName(zkey);
    const errors: string[] = [];
    const fail = (label: string, e: unknown): never => {
      const detail = errors.length ? `\nsnarkjs: ${errors.join("\nsnarkjs: ")}` : "";
      throw new ToolError(`${label} failed: ${(e as Error).message}${detail}`, "", { cause: e });
    };
    try {
      await progress
        .step(labels[0], async (h) => {
          if (dev) return writeDevZkey(p.r1cs, initial, { onProgress: (m) => h.note(m) });
          const r = await snarkjs.zKey.newZKey(p.r1cs, ptau.file, initial, snarkLogger(h, errors));
          // newZKey reports problems (ptau too small, not prepared) by logging and returning -1.
          if (r === -1) throw new ToolError("snarkjs zkey new returned an error", "");
        })
        .catch((e) => fail(labels[0], e));
      // A contribution to a key on a public τ would add cost and randomness, not security: dev keys stay
      // deterministic (the same r1cs gives the same key everywhere).
      if (dev) progress.skip(labels[1], "none: INSECURE dev key (δ = 1)");
      const hash = dev
        ? undefined
        : await progress
            .step(labels[1], async (h) => {
              const name = "zkVAI local dev phase-2 contribution";
              const entropy = randomBytes(64).toString("hex");
              const r = (await snarkjs.zKey.contribute(
                initial,
                contributed,
                name,
                entropy,
                snarkLogger(h, errors),
              )) as Uint8Array;
              return { name, hash: Buffer.from(r).toString("hex") };
            })
            .catch((e) => fail(labels[1], e));
      await rename(dev ? initial : contributed, zkey);
      // The other kind of key, from an earlier run, must not be mistaken for this one.
      await rm(dev ? p.zkey : p.devZkey, { force: true });
      Object.assign(state, {
        zkeyKey: key,
        zkeySha: await sha256File(zkey),
        ptauSha256: ptau.sha256,
        contributions: hash ? [hash] : [],
      });
      await saveState(p, state);
      status = "built";
    } finally {
      await Promise.all([initial, contributed].map((f) => rm(f, { force: true })));
    }
  }

  const exportOk =
    state.exportKey === state.zkeySha &&
    (await filesMatch([
      [p.vkey, state.vkeySha],
      [p.sol, state.solSha],
    ])) &&
    (await renderedAsToday(p, inst.name, state.zkeySha!));
  if (!force && status === "cached" && exportOk) {
    progress.skip(labels[2]);
    return status;
  }
  await progress
    .step(labels[2], async (h) => {
      const errors: string[] = [];
      const logger = snarkLogger(h, errors);
      const vkey = await exportVerificationKey(zkey, logger);
      if (vkey.nPublic !== inst.publicSignals.length) {
        throw new InstanceTableError(
          `vkey has ${vkey.nPublic} public inputs, ${inst.name}.publicSignals lists ${inst.publicSignals.length}`,
        );
      }
      // The user's check regenerates this file from the key the manifest embeds (verifier-source.ts): one writer.
      await mkdir(path.dirname(p.sol), { recursive: true });
      await writeFileAtomic(p.vkey, vkeyFileText(vkey));
      await writeFileAtomic(p.sol, verifierSource(vkey, inst.name, state.zkeySha!));
    })
    .catch((e: Error) => {
      throw new ToolError(`${labels[2]} failed: ${e.message}`, "", { cause: e });
    });
  Object.assign(state, {
    exportKey: state.zkeySha,
    vkeySha: await sha256File(p.vkey),
    solSha: await sha256File(p.sol),
  });
  await saveState(p, state);
  return status === "built" ? "built" : "re-exported";
}

/**
 * Whether the verifier on disk is what verifierSource renders from the key on disk today: a changed template
 * (snarkjs', or contracts/templates/ for segment circuits) re-exports the verifier without a new key.
 */
async function renderedAsToday(p: Paths, name: string, zkeySha: string): Promise<boolean> {
  const vkey = JSON.parse(await readFile(p.vkey, "utf8")) as object;
  return verifierSource(vkey, name, zkeySha) === (await readFile(p.sol, "utf8"));
}

type ExportedKey = { nPublic: number } & Record<string, unknown>;

async function exportVerificationKey(zkey: string, logger?: unknown): Promise<ExportedKey> {
  return (await snarkjs.zKey.exportVerificationKey(zkey, logger as never)) as ExportedKey;
}

/**
 * A zkey's verification key and its Solidity verifier, from snarkjs' own template (verifier-source.ts renders it
 * as `snarkjs zkey export solidityverifier` does). Every snarkjs verifier is called Groth16Verifier; renaming it
 * (`contract`) keeps one Hardhat artifact per circuit.
 */
export async function exportVerifier(
  zkey: string,
  contract: string | undefined,
  logger?: unknown,
): Promise<{ vkey: ExportedKey; sol: string }> {
  const vkey = await exportVerificationKey(zkey, logger);
  return { vkey, sol: renderVerifier(vkey, contract) };
}
