// The per-instance stages of scripts/setup.ts: circom2 compile, Groth16 phase 2, vkey and verifier export.
// Each stage is keyed by a content hash recorded in build/circuits/<name>/state.json only after all of
// its outputs are in place, so an interrupted run is redone rather than trusted.

import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as snarkjs from "snarkjs";
import type { ZkeyContribution } from "./manifest.js";
import type { Progress } from "./progress.js";
import { writeDevZkey } from "./devzkey.js";
import {
  isPoseidonTemplate,
  POSEIDON_TEMPLATES,
  poseidonChoice,
  type PoseidonTemplate,
} from "./poseidon-choice.js";
import { snarkLogger, type PtauChoice } from "./ptau.js";
import {
  readR1csHeader,
  removeDebris,
  requiredPower,
  runTool,
  sha256File,
  sha256Hex,
  tempName,
  writeFileAtomic,
} from "./zkfiles.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const rel = (p: string): string => path.relative(ROOT, p).split(path.sep).join("/");
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Instance {
  name: string;
  predicate: string;
  source: string;
  template: string;
  params: Record<string, unknown>;
  args: unknown[];
  publicSignals: string[];
  /** Named sets of instances built together: "test" (what npm test needs), "demo", "bench". */
  groups: string[];
  /** The Poseidon template its gadgets use (circuits/gadgets/poseidon.circom); circomlib's by default. */
  poseidon?: PoseidonTemplate;
}

/** Per-circuit cache record. A stage's key is written only after all of its outputs are in place. */
export interface CircuitState {
  compileKey?: string;
  constraints?: number;
  power?: number;
  r1csSha?: string;
  wasmSha?: string;
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

export async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

async function saveState(p: Paths, state: CircuitState): Promise<void> {
  await writeFileAtomic(p.state, JSON.stringify(state, null, 2) + "\n");
}

/** A package's CLI entry from its `bin` field: .bin shims may be copies rather than links, and circom2's
 * shim must run beside its own index.js. */
export function pkgBin(name: string): string {
  const dir = path.join(ROOT, "node_modules", name);
  const bin = (
    JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
      bin?: string | Record<string, string>;
    }
  ).bin;
  const entry = typeof bin === "string" ? bin : bin?.[name];
  if (!entry) throw new Error(`${name} has no "${name}" bin entry`);
  return path.join(dir, entry);
}

export function pkgVersion(name: string): string {
  const file = path.join(ROOT, "node_modules", name, "package.json");
  if (!existsSync(file)) throw new Error(`${name} is not installed (${file} missing); run npm install`);
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

export async function loadInstances(file: string): Promise<Instance[]> {
  const table = await readJson<{ instances?: unknown }>(file);
  if (!table || !Array.isArray(table.instances)) throw new Error(`${file}: expected {"instances": [...]}`);
  const seen = new Set<string>();
  return table.instances.map((raw, i) => {
    const inst = raw as Instance;
    const where = `${rel(file)} instances[${i}]`;
    if (typeof inst.name !== "string" || !IDENT.test(inst.name)) {
      throw new Error(`${where}: name must be an identifier (it names a Solidity contract)`);
    }
    if (seen.has(inst.name)) throw new Error(`${where}: duplicate name ${inst.name}`);
    seen.add(inst.name);
    if (typeof inst.template !== "string" || !IDENT.test(inst.template))
      throw new Error(`${where}: bad template`);
    if (!Array.isArray(inst.args)) throw new Error(`${where}: args must be an array`);
    if (!Array.isArray(inst.groups) || !inst.groups.every((g) => typeof g === "string")) {
      throw new Error(`${where}: groups must be an array of group names`);
    }
    if (!Array.isArray(inst.publicSignals) || !inst.publicSignals.every((s) => IDENT.test(String(s)))) {
      throw new Error(`${where}: publicSignals must be an array of signal names`);
    }
    if (inst.poseidon !== undefined && !isPoseidonTemplate(inst.poseidon)) {
      const allowed = POSEIDON_TEMPLATES.map((t) => JSON.stringify(t)).join(" or ");
      throw new Error(`${where}: poseidon must be ${allowed}, not ${JSON.stringify(inst.poseidon)}`);
    }
    const source = path.resolve(ROOT, String(inst.source));
    // circom2 runs under WASI with the repo root as its only reachable tree.
    if (rel(source).startsWith("..")) throw new Error(`${where}: source must lie inside the repository`);
    return inst;
  });
}

async function circomFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((f) => f.endsWith(".circom")).map((f) => path.join(dir, f));
}

/**
 * The circom files an instance compiles from: its source and everything it includes, transitively,
 * resolved as circom does (the including file's folder, then the -l paths node_modules and the root).
 * circomlib's files are covered by its version in the key. Any include that resolves nowhere makes the
 * closure unknown (null), and the key then covers every circuit file, as a missing one would be unsafe.
 */
async function includeClosure(source: string): Promise<string[] | null> {
  const seen = new Set<string>();
  const queue = [path.resolve(ROOT, source)];
  for (let file = queue.pop(); file; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await readFile(file, "utf8");
    for (const [, inc] of text.matchAll(/^\s*include\s+"([^"]+)"\s*;/gm)) {
      const found = [
        path.resolve(path.dirname(file), inc),
        path.join(ROOT, "node_modules", inc),
        path.join(ROOT, inc),
      ].find((f) => existsSync(f));
      if (!found) return null;
      if (!found.startsWith(path.join(ROOT, "node_modules", "circomlib") + path.sep)) queue.push(found);
    }
  }
  return [...seen];
}

async function compileKey(
  inst: Instance,
  wrapperText: string,
  tools: Record<string, string>,
): Promise<string> {
  // The sources this instance compiles from, so that editing one predicate does not recompile the others
  // (a 1,024-record circuit takes many minutes); every circuit file when the includes cannot be resolved.
  const parts: string[] = [JSON.stringify(inst), wrapperText, tools.circom2, tools.circomlib, "--O2"];
  parts.push(...(await sourceEntries(inst.source)));
  return sha256Hex(parts.join("\n"));
}

/** "path\0sha256" of every circom file `source` compiles from: its include closure, or all circuit files. */
async function sourceEntries(source: string): Promise<string[]> {
  const files = (await includeClosure(source)) ?? [
    ...(await circomFiles(path.join(ROOT, "circuits"))),
    ...(await circomFiles(path.dirname(path.resolve(ROOT, source)))),
  ];
  const entries: string[] = [];
  for (const f of [...new Set(files)].sort()) entries.push(`${rel(f)}\0${sha256Hex(await readFile(f))}`);
  return entries;
}

/** One hash of the sources `source` compiles from (sourceEntries). */
export async function sourcesHash(source: string): Promise<string> {
  return sha256Hex((await sourceEntries(source)).join("\n"));
}

/** Public signal names in witness order (1..nPublic), from the .sym file. */
async function publicOrder(symFile: string, nPublic: number): Promise<string[]> {
  const names: string[] = [];
  for (const line of (await readFile(symFile, "utf8")).split("\n")) {
    const [, witness, , name] = line.split(",");
    const idx = Number(witness);
    if (idx >= 1 && idx <= nPublic && name?.startsWith("main.")) names[idx - 1] = name.slice(5);
  }
  return names;
}

async function filesMatch(pairs: Array<[string, string | undefined]>): Promise<boolean> {
  for (const [file, sha] of pairs) {
    if (!sha || !existsSync(file) || (await sha256File(file)) !== sha) return false;
  }
  return true;
}

export type Status = "cached" | "built" | "re-exported";

export function wrapperFor(inst: Instance, p: Paths): string {
  // Relative to the wrapper's folder: circom resolves includes from the including file first, and it
  // cannot open absolute paths or anything outside its working directory (P1014).
  const include = path.relative(p.dir, path.resolve(ROOT, inst.source)).split(path.sep).join("/");
  return (
    `// Generated by scripts/setup.ts from the instance table; do not edit.\n` +
    `pragma circom 2.2.3;\n\ninclude "${include}";\n\n${poseidonChoice(inst.poseidon)}\n\n` +
    `component main {public [${inst.publicSignals.join(", ")}]} = ${inst.template}(${inst.args.map((a) => JSON.stringify(a)).join(", ")});\n`
  );
}

/** The compile key the instance would have now: a manifest entry with another one is stale. */
/** The tool versions every compile and key is keyed by (the manifest's `tools`). */
export function buildTools(): { circom2: string; snarkjs: string; circomlib: string; node: string } {
  return {
    circom2: pkgVersion("circom2"),
    snarkjs: pkgVersion("snarkjs"),
    circomlib: pkgVersion("circomlib"),
    node: process.versions.node,
  };
}

/**
 * Whether build/circuits/<name> holds the r1cs and wasm that setup would compile from today's
 * sources, so tests may use the build's own files instead of compiling again.
 */
export async function isBuildFresh(inst: Instance): Promise<boolean> {
  const state = await readJson<{ compileKey?: string }>(path.join(pathsFor(inst.name).dir, "state.json"));
  if (!state?.compileKey || !existsSync(pathsFor(inst.name).r1cs)) return false;
  return state.compileKey === (await currentSourceHash(inst, buildTools()));
}

export function currentSourceHash(inst: Instance, tools: Record<string, string>): Promise<string> {
  return compileKey(inst, wrapperFor(inst, pathsFor(inst.name)), tools);
}

export async function compileCircuit(
  inst: Instance,
  p: Paths,
  state: CircuitState,
  tools: Record<string, string>,
  progress: Progress,
  force: boolean,
): Promise<boolean> {
  const wrapperText = wrapperFor(inst, p);
  const key = await compileKey(inst, wrapperText, tools);
  const label = `compile ${inst.name}`;
  await removeDebris(p.dir);
  if (
    !force &&
    state.compileKey === key &&
    (await filesMatch([
      [p.r1cs, state.r1csSha],
      [p.wasm, state.wasmSha],
    ]))
  ) {
    progress.skip(label);
    return false;
  }
  if (!existsSync(path.resolve(ROOT, inst.source)))
    throw new Error(`${label}: source ${inst.source} not found`);
  await mkdir(p.dir, { recursive: true });
  // Invalidate before touching outputs, so a crash mid-way can never look like a finished build. The
  // zkey record may stay: its key covers the r1cs bytes, so an identical r1cs keeps its zkey.
  for (const k of ["compileKey", "r1csSha", "wasmSha", "constraints", "power"] as const) delete state[k];
  await saveState(p, state);
  await writeFileAtomic(p.wrapper, wrapperText);

  const tmp = tempName(path.join(p.dir, "compile"));
  await mkdir(tmp, { recursive: true });
  try {
    await progress.step(label, async (h) => {
      const cli = pkgBin("circom2");
      const args = [cli, rel(p.wrapper), "--r1cs", "--wasm", "--sym", "--O2"];
      args.push("-l", "node_modules", "-l", ".", "-o", rel(tmp));
      await runTool(process.execPath, args, { cwd: ROOT, onLine: (l) => h.note(l) }).catch((e: Error) => {
        const hint = /is not an input signal/.test(e.message)
          ? "\nhint: outputs of main are public automatically; list only inputs in the wrapper's public set"
          : "";
        throw new Error(`${label} failed: ${e.message}${hint}`);
      });
    });
    await rm(p.jsDir, { recursive: true, force: true });
    await rename(path.join(tmp, `${inst.name}_js`), p.jsDir);
    await rename(path.join(tmp, `${inst.name}.sym`), p.sym);
    await rename(path.join(tmp, `${inst.name}.r1cs`), p.r1cs);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }

  const header = await readR1csHeader(p.r1cs);
  if (header.prime !== FIELD_MODULUS) throw new Error(`${label}: r1cs is not over bn128`);
  const nPublic = header.nOutputs + header.nPubInputs;
  const order = await publicOrder(p.sym, nPublic);
  if (order.join(",") !== inst.publicSignals.join(",")) {
    // Verifier input order is outputs first, then public inputs in declaration order, whatever order
    // the public list has; the instance table must match it or provers and contracts disagree.
    throw new Error(
      `${label}: public signals of the compiled circuit are [${order.join(", ")}] (verifier order), ` +
        `but ${inst.name}.publicSignals is [${inst.publicSignals.join(", ")}]; fix the instance table or the template`,
    );
  }
  Object.assign(state, {
    compileKey: key,
    constraints: header.nConstraints,
    power: requiredPower(header),
    r1csSha: await sha256File(p.r1cs),
    wasmSha: await sha256File(p.wasm),
  });
  await saveState(p, state);
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
      throw new Error(`${label} failed: ${(e as Error).message}${detail}`);
    };
    try {
      await progress
        .step(labels[0], async (h) => {
          if (dev) return writeDevZkey(p.r1cs, initial, { onProgress: (m) => h.note(m) });
          const r = await snarkjs.zKey.newZKey(p.r1cs, ptau.file, initial, snarkLogger(h, errors));
          // newZKey reports problems (ptau too small, not prepared) by logging and returning -1.
          if (r === -1) throw new Error("snarkjs zkey new returned an error");
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
    ]));
  if (!force && status === "cached" && exportOk) {
    progress.skip(labels[2]);
    return status;
  }
  await progress
    .step(labels[2], async (h) => {
      const errors: string[] = [];
      const logger = snarkLogger(h, errors);
      const vkey = (await snarkjs.zKey.exportVerificationKey(zkey, logger)) as { nPublic: number };
      if (vkey.nPublic !== inst.publicSignals.length) {
        throw new Error(
          `vkey has ${vkey.nPublic} public inputs, ${inst.name}.publicSignals lists ${inst.publicSignals.length}`,
        );
      }
      const template = await readFile(
        path.join(ROOT, "node_modules/snarkjs/templates/verifier_groth16.sol.ejs"),
        "utf8",
      );
      const sol = (await snarkjs.zKey.exportSolidityVerifier(zkey, { groth16: template }, logger)) as string;
      // Every snarkjs verifier is called Groth16Verifier; one contract name per instance keeps the
      // hardhat artifacts apart.
      const matches = sol.match(/\bcontract Groth16Verifier\b/g) ?? [];
      if (matches.length !== 1)
        throw new Error(`expected one "contract Groth16Verifier" in the export, found ${matches.length}`);
      const renamed =
        `// Generated by scripts/setup.ts for circuit ${inst.name} (zkey sha256 ${state.zkeySha}); do not edit.\n` +
        sol.replace(/\bcontract Groth16Verifier\b/, `contract Verifier_${inst.name}`);
      await mkdir(path.dirname(p.sol), { recursive: true });
      await writeFileAtomic(p.vkey, JSON.stringify(vkey, null, 2) + "\n");
      await writeFileAtomic(p.sol, renamed);
    })
    .catch((e: Error) => {
      throw new Error(`${labels[2]} failed: ${e.message}`);
    });
  Object.assign(state, {
    exportKey: state.zkeySha,
    vkeySha: await sha256File(p.vkey),
    solSha: await sha256File(p.sol),
  });
  await saveState(p, state);
  return status === "built" ? "built" : "re-exported";
}
