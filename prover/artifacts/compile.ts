// The one circom2 pipeline: setup's instances, the bench's compile-only counts and every test circuit go
// through compileMain, keyed by a content hash of the main file, the circom files it includes, the
// compiler versions and the flags, so an unchanged circuit is never compiled twice.
//
// Two cache layouts, one key:
// - a fixed folder (setup: build/circuits/<name>), whose state.json also holds the key stages' records,
//   which the prover and the manifest read; outputs are replaced in place, the key written last;
// - by default a folder per key, build/compiled/<name>-<key>, published whole by one rename once
//   complete, so concurrent test workers share one compile (the others wait on its lock).

import { existsSync } from "node:fs";
import { link, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import { mainSource, type MainSpec } from "./main-source.js";
import { pkgBin, pkgVersion, readJson, rel, ROOT } from "../../sdk/manifest/packages.js";
import {
  readR1csHeader,
  removeDebris,
  requiredPower,
  runTool,
  sha256File,
  sha256Hex,
  tempName,
  ToolError,
  writeFileAtomic,
  isAlive,
} from "./zkfiles.js";
import { InstanceTableError } from "./errors.js";

/** What a compile leaves in its folder's state.json (setup adds its key stages' fields beside these). */
export interface CompileState {
  compileKey?: string;
  constraints?: number;
  power?: number;
  r1csSha?: string;
  wasmSha?: string;
  compileSeconds?: number;
}

export interface CompileJob {
  /** Names the outputs: <name>.circom, <name>.r1cs, <name>.sym, <name>_js/<name>.wasm. */
  name: string;
  main: MainSpec;
  /** A fixed output folder (setup's build/circuits/<name>); default: build/compiled/<name>-<key>. */
  dir?: string;
  /** With `dir`: its state record, updated in place and saved to <dir>/state.json. */
  state?: CompileState;
  /** Inputs beyond the main file that the outputs belong to (setup: the instance entry). */
  keyParts?: string[];
  /** The versions keyed by; default the installed ones. */
  tools?: { circom2: string; circomlib: string };
  /** The r1cs alone, deleted once counted: only the count is kept (the bench's large capacities). */
  countOnly?: boolean;
  /** Look in the cache only: undefined where a compile would be needed. */
  cacheOnly?: boolean;
  force?: boolean;
  /** Refuse a circuit whose public signals, in verifier order, are not main.publicSignals exactly. */
  exactPublic?: boolean;
  onLine?: (line: string) => void;
}

export interface Compiled {
  dir: string;
  key: string;
  /** Found in the cache: no compile ran. */
  cached: boolean;
  wrapper: string;
  r1cs: string;
  sym: string;
  wasm: string;
  constraints: number;
  power: number;
  compileSeconds: number;
}

const CIRCOMLIB = path.join(ROOT, "node_modules", "circomlib") + path.sep;

async function circomFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((f) => f.endsWith(".circom")).map((f) => path.join(dir, f));
}

/**
 * The circom files `files` compile from: themselves and everything they include, transitively, resolved
 * as circom does (the including file's folder, then the -l paths node_modules and the root). circomlib's
 * files are covered by its version in the key. An include that resolves nowhere makes the closure
 * unknown (null), and the key then covers every circuit file, as a missing one would be unsafe.
 */
async function includeClosure(files: readonly string[]): Promise<string[] | null> {
  const seen = new Set<string>();
  const queue = files.map((f) => path.resolve(ROOT, f)).filter((f) => !f.startsWith(CIRCOMLIB));
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
      if (!found.startsWith(CIRCOMLIB)) queue.push(found);
    }
  }
  return [...seen];
}

/** "path\0sha256" of every circom file `files` compile from: their include closure, or all circuit files. */
async function sourceEntries(files: readonly string[]): Promise<string[]> {
  const closure = (await includeClosure(files)) ?? [
    ...(await circomFiles(path.join(ROOT, "circuits"))),
    ...(await Promise.all(files.map((f) => circomFiles(path.dirname(path.resolve(ROOT, f)))))).flat(),
  ];
  const entries: string[] = [];
  for (const f of [...new Set(closure)].sort()) entries.push(`${rel(f)}\0${sha256Hex(await readFile(f))}`);
  return entries;
}

/** One hash of the sources `source` compiles from. */
export async function sourcesHash(source: string): Promise<string> {
  return sha256Hex((await sourceEntries([source])).join("\n"));
}

/** The content key of `job`: what its outputs are a function of. */
export async function compileKey(job: CompileJob, wrapperText: string): Promise<string> {
  const tools = job.tools ?? { circom2: pkgVersion("circom2"), circomlib: pkgVersion("circomlib") };
  // Only the sources this circuit includes, so that editing one predicate does not recompile the others
  // (a 1,024-record circuit takes many minutes).
  const parts = [...(job.keyParts ?? []), wrapperText, tools.circom2, tools.circomlib, "--O2"];
  if (job.countOnly) parts.push("r1cs only");
  parts.push(...(await sourceEntries(job.main.includes)));
  return sha256Hex(parts.join("\n"));
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

/** Whether every file exists with the recorded sha256. */
export async function filesMatch(pairs: Array<[string, string | undefined]>): Promise<boolean> {
  for (const [file, sha] of pairs) {
    if (!sha || !existsSync(file) || (await sha256File(file)) !== sha) return false;
  }
  return true;
}

const outputs = (dir: string, name: string) => ({
  wrapper: path.join(dir, `${name}.circom`),
  r1cs: path.join(dir, `${name}.r1cs`),
  sym: path.join(dir, `${name}.sym`),
  jsDir: path.join(dir, `${name}_js`),
  wasm: path.join(dir, `${name}_js`, `${name}.wasm`),
});

async function isCached(job: CompileJob, dir: string, key: string, state: CompileState): Promise<boolean> {
  if (job.force || state.compileKey !== key) return false;
  if (job.countOnly) return state.constraints !== undefined;
  const o = outputs(dir, job.name);
  return filesMatch([
    [o.r1cs, state.r1csSha],
    [o.wasm, state.wasmSha],
  ]);
}

function result(job: CompileJob, dir: string, key: string, state: CompileState, cached: boolean): Compiled {
  const { jsDir: _, ...files } = outputs(dir, job.name);
  return {
    dir,
    key,
    cached,
    ...files,
    constraints: state.constraints!,
    power: state.power!,
    compileSeconds: state.compileSeconds ?? 0,
  };
}

/** Runs circom2 on `wrapper` into `out` and returns the state record of what it wrote there. */
async function runCircom(job: CompileJob, wrapper: string, out: string, key: string): Promise<CompileState> {
  const label = `compile ${job.name}`;
  const started = performance.now();
  const args = [pkgBin("circom2"), rel(wrapper), "--r1cs", ...(job.countOnly ? [] : ["--wasm", "--sym"])];
  args.push("--O2", "-l", "node_modules", "-l", ".", "-o", rel(out));
  await runTool(process.execPath, args, { cwd: ROOT, onLine: job.onLine }).catch((e: Error) => {
    const hint = /is not an input signal/.test(e.message)
      ? "\nhint: outputs of main are public automatically; list only inputs in its public set"
      : "";
    throw new ToolError(`${label} failed: ${e.message}${hint}`, "", { cause: e });
  });
  const o = outputs(out, job.name);
  const header = await readR1csHeader(o.r1cs);
  if (header.prime !== FIELD_MODULUS) throw new ToolError(`${label}: r1cs is not over bn128`, "");
  if (job.exactPublic) {
    // Verifier input order is outputs first, then public inputs in declaration order, whatever order
    // the public list has; the list must match it or provers and contracts disagree.
    const order = await publicOrder(o.sym, header.nOutputs + header.nPubInputs);
    const listed = job.main.publicSignals ?? [];
    if (order.join(",") !== listed.join(",")) {
      throw new InstanceTableError(
        `${label}: public signals of the compiled circuit are [${order.join(", ")}] (verifier order), ` +
          `but ${job.name}.publicSignals is [${listed.join(", ")}]; fix the instance table or the template`,
      );
    }
  }
  return {
    compileKey: key,
    constraints: header.nConstraints,
    power: requiredPower(header),
    ...(job.countOnly ? {} : { r1csSha: await sha256File(o.r1cs), wasmSha: await sha256File(o.wasm) }),
    compileSeconds: Number(((performance.now() - started) / 1000).toFixed(2)),
  };
}

const COMPILE_FIELDS = [
  "compileKey",
  "r1csSha",
  "wasmSha",
  "constraints",
  "power",
  "compileSeconds",
] as const;

/** Setup's layout: outputs replaced in place in a folder other stages share. */
async function compileInPlace(job: CompileJob & { dir: string }, key: string, text: string) {
  const state = job.state ?? (await readJson<CompileState>(path.join(job.dir, "state.json"))) ?? {};
  const save = () => writeFileAtomic(path.join(job.dir, "state.json"), JSON.stringify(state, null, 2) + "\n");
  await removeDebris(job.dir);
  if (await isCached(job, job.dir, key, state)) return result(job, job.dir, key, state, true);
  if (job.cacheOnly) return undefined;
  await mkdir(job.dir, { recursive: true });
  // Invalidate before touching outputs, so a crash mid-way can never look like a finished build. Other
  // records may stay: setup's zkey key covers the r1cs bytes, so an identical r1cs keeps its zkey.
  for (const k of COMPILE_FIELDS) delete state[k];
  await save();
  const o = outputs(job.dir, job.name);
  await writeFileAtomic(o.wrapper, text);
  const tmp = tempName(path.join(job.dir, "compile"));
  await mkdir(tmp, { recursive: true });
  try {
    const fresh = await runCircom(job, o.wrapper, tmp, key);
    const t = outputs(tmp, job.name);
    if (!job.countOnly) {
      await rm(o.jsDir, { recursive: true, force: true });
      await rename(t.jsDir, o.jsDir);
      await rename(t.sym, o.sym);
    }
    await rename(t.r1cs, o.r1cs);
    if (job.countOnly) await rm(o.r1cs, { force: true });
    Object.assign(state, fresh);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  await save();
  return result(job, job.dir, key, state, false);
}

/** The default layout: one folder per key, published whole, with one compiler per key at a time. */
async function compileKeyed(job: CompileJob, key: string, text: string): Promise<Compiled | undefined> {
  const cacheRoot = path.join(ROOT, "build", "compiled");
  const dir = path.join(cacheRoot, `${job.name}-${key.slice(0, 16)}`);
  const lock = `${dir}.lock`;
  await mkdir(cacheRoot, { recursive: true });
  for (;;) {
    const state = (await readJson<CompileState>(path.join(dir, "state.json"))) ?? {};
    if (await isCached(job, dir, key, state)) return result(job, dir, key, state, true);
    if (job.cacheOnly) return undefined;
    // The lock appears by link(), complete with its holder's pid, so no one reads a half-written one.
    const mine = `${lock}.${process.pid}`;
    await writeFile(mine, String(process.pid));
    try {
      await link(mine, lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // Another process compiles this key: wait for its folder, or take over if it died.
      const holder = Number(await readFile(lock, "utf8").catch(() => "gone"));
      if (Number.isNaN(holder)) continue; // released meanwhile: look again
      if (isAlive(holder)) await new Promise((r) => setTimeout(r, 250));
      else await rm(lock, { force: true });
    } finally {
      await rm(mine, { force: true });
    }
  }
  const tmp = tempName(dir);
  try {
    // Rechecked under the lock: the holder that made us wait may have published it.
    const state = (await readJson<CompileState>(path.join(dir, "state.json"))) ?? {};
    if (await isCached(job, dir, key, state)) return result(job, dir, key, state, true);
    await mkdir(tmp, { recursive: true });
    // The tmp folder is the final one's sibling, so the include paths written for `dir` resolve from it.
    const wrapper = outputs(tmp, job.name).wrapper;
    await writeFile(wrapper, text);
    const fresh = await runCircom(job, wrapper, tmp, key);
    if (job.countOnly) await rm(outputs(tmp, job.name).r1cs, { force: true });
    await writeFile(path.join(tmp, "state.json"), JSON.stringify(fresh, null, 2) + "\n");
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    return result(job, dir, key, fresh, false);
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await rm(lock, { force: true });
  }
}

/**
 * Compiles `job.main` with circom2 --O2 unless a compile with the same content key is in the cache, and
 * returns where its r1cs, sym and wasm are and its constraint count. With `cacheOnly`, undefined when it
 * is not cached.
 */
export async function compileMain(job: CompileJob & { cacheOnly: true }): Promise<Compiled | undefined>;
export async function compileMain(job: CompileJob & { cacheOnly?: false }): Promise<Compiled>;
export async function compileMain(job: CompileJob): Promise<Compiled | undefined>;
export async function compileMain(job: CompileJob): Promise<Compiled | undefined> {
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(job.name))
    throw new InstanceTableError(`bad circuit name ${job.name}`);
  for (const inc of job.main.includes) {
    // circom2 runs under WASI with the repo root as its only reachable tree.
    if (rel(path.resolve(ROOT, inc)).startsWith(".."))
      throw new InstanceTableError(`${inc} lies outside the repository`);
    if (!existsSync(path.resolve(ROOT, inc)))
      throw new InstanceTableError(`compile ${job.name}: ${inc} not found`);
  }
  // The keyed layout's folder sits two levels under build/, as build/circuits/<name> does.
  const dir = job.dir ?? path.join(ROOT, "build", "compiled", job.name);
  const text = mainSource(job.main, dir);
  const key = await compileKey(job, text);
  return job.dir ? compileInPlace({ ...job, dir: job.dir }, key, text) : compileKeyed(job, key, text);
}
