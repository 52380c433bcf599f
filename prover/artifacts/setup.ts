// Reproducible build of every circuit instance in circuits/instances.json (P9, docs/PROTOCOL.md):
// circom2 → r1cs/wasm, ptau (VAI_PTAU or a local dev one), Groth16 phase 2, vkey, a renamed Solidity
// verifier per instance, hardhat compile, and build/manifest.json with the hashes of everything.
// Stages are keyed by content hashes, so an unchanged tree rebuilds nothing.

import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  embeddableKey,
  MANIFEST_PATH,
  withEmbeddedKeys,
  type CircuitEntry,
  type Manifest,
} from "../../sdk/manifest/manifest.js";
import {
  buildTools,
  compileCircuit,
  loadInstances,
  pathsFor,
  pkgBin,
  currentSourceHash,
  readJson,
  rel,
  ROOT,
  setupZkey,
  zkeyPath,
  type CircuitState,
  type Instance,
  type Status,
} from "./circuit-build.js";
import { formatSeconds, Progress } from "./progress.js";
import { DEV_BANNER, DEV_DIRECT_PATH, ptauStepCount, resolvePtau, type PtauChoice } from "./ptau.js";
import { runTool, sha256File, ToolError, writeFileAtomic, isAlive } from "./zkfiles.js";
import { BuildLockedError } from "./errors.js";
import { writeEscrowAbi } from "./escrow-abi.js";
import { BUILD_DIR_ENV, buildDir } from "../../sdk/chain/locations.js";
import { ConfigurationError, InputError } from "../../sdk/core/errors.js";

const USAGE = `usage: npx tsx scripts/setup.ts [options]

  --force             rebuild every stage even when its cache key matches
  --only <name>       build one instance (other manifest entries are kept)
  --group <name>      build the instances of one group: test, demo, bench or bench-large (others are kept)
  --instances <file>  instance table to use (default circuits/instances.json)
  --skip-contracts    do not run hardhat compile

env:
  VAI_PTAU=<file>         prepared bn128 ptau to use instead of generating an insecure dev one
  VAI_PTAU_TRUSTED=1      vouch that VAI_PTAU comes from a public multi-party ceremony`;

/** Instances below this depth (256 records) compile side by side. */
const SMALL_DEPTH = 8;

interface Built {
  inst: Instance;
  state: CircuitState;
  compiled: boolean;
  status: Status;
}

async function compileContracts(progress: Progress, skip: boolean): Promise<void> {
  const label = "hardhat compile";
  if (skip) return progress.skip(label, "skipped (--skip-contracts)");
  if (!existsSync(path.join(ROOT, "hardhat.config.cjs"))) {
    return progress.skip(label, "SKIPPED: hardhat.config.cjs not found, verifiers are not compiled");
  }
  const cli = pkgBin("hardhat");
  await progress.step(label, async (h) => {
    const args = [cli, "compile", "--config", "hardhat.config.cjs"];
    await runTool(process.execPath, args, { cwd: ROOT, onLine: (l) => h.note(l) }).catch((e: Error) => {
      throw new ToolError(`${label} failed: ${e.message}`, "", { cause: e });
    });
  });
}

/** The escrow's ABI as a TypeScript literal (escrow-abi.ts), rewritten only when contracts/Escrow.sol changed. */
async function generateEscrowAbi(progress: Progress): Promise<void> {
  await progress.step("escrow ABI (sdk/chain/generated)", async (h) => {
    h.note(writeEscrowAbi(ROOT) ? "written" : "up to date");
  });
}

function entryFor(b: Built, ptau: PtauChoice): CircuitEntry {
  const ptauSha = ptau.sha256;
  const p = pathsFor(b.inst.name);
  const s = b.state;
  const ref = (file: string, sha: string | undefined): { path: string; sha256: string } => ({
    path: rel(file),
    sha256: sha ?? "",
  });
  if (s.ptauSha256 !== ptauSha)
    throw new Error(`internal: ${b.inst.name} zkey was not built from the chosen ptau`);
  return {
    predicate: b.inst.predicate,
    template: b.inst.template,
    params: b.inst.params,
    publicSignals: b.inst.publicSignals,
    sourceHash: s.compileKey ?? "",
    constraints: s.constraints ?? 0,
    power: s.power ?? 0,
    poseidon: b.inst.poseidon ?? "circomlib",
    files: {
      r1cs: ref(p.r1cs, s.r1csSha),
      wasm: ref(p.wasm, s.wasmSha),
      zkey: ref(zkeyPath(p, ptau), s.zkeySha),
      vkey: ref(p.vkey, s.vkeySha),
      verifierSol: ref(p.sol, s.solSha),
    },
    verifierContract: `Verifier_${b.inst.name}`,
    ...(b.inst.kind ? { kind: b.inst.kind } : {}),
    zkeyContributions: s.contributions ?? [],
    // Dev keys have no contribution (δ = 1, and τ is public anyway); keys on VAI_PTAU get one local
    // contribution. Either way a real deployment needs a multi-party phase 2 (docs/CEREMONY.md).
    insecureDevSetup: true,
    verificationKey: embeddableKey(p.vkey, s.vkeySha),
  };
}

async function writeManifest(
  built: Built[],
  ptau: Awaited<ReturnType<typeof resolvePtau>>,
  tools: Manifest["tools"],
  table: Instance[],
  progress: Progress,
): Promise<Manifest> {
  const file = path.join(ROOT, MANIFEST_PATH);
  const old = await readJson<Manifest>(file);
  const circuits: Record<string, CircuitEntry> = {};
  // Entries from earlier runs (--only) stay only if they belong to the same table and the same ptau.
  for (const [name, entry] of old?.version === 1 ? Object.entries(old.circuits) : []) {
    if (built.some((b) => b.inst.name === name)) continue;
    const inst = table.find((i) => i.name === name);
    if (!inst) progress.log(`manifest: dropping ${name}, it is not in the instance table`);
    else if (old?.ptau.sha256 !== ptau.sha256) {
      progress.log(`manifest: dropping ${name}, it was set up with another ptau; rerun setup without --only`);
    } else if ((await currentSourceHash(inst, tools)) !== entry.sourceHash) {
      // Its verifier would no longer match the circuit the prover builds inputs for.
      progress.log(`manifest: dropping ${name}, its circuit sources changed; rebuild it with --only ${name}`);
    } else circuits[name] = entry;
  }
  // Entries kept from a manifest written before keys were embedded get their key now.
  Object.assign(circuits, withEmbeddedKeys(circuits, ROOT));
  for (const b of built) circuits[b.inst.name] = entryFor(b, ptau);
  const ptauPath =
    ptau.file === DEV_DIRECT_PATH || rel(ptau.file).startsWith("..") ? ptau.file : rel(ptau.file);
  const body = {
    version: 1 as const,
    tools,
    ptau: {
      path: ptauPath,
      sha256: ptau.sha256,
      power: ptau.power,
      source: ptau.source,
      insecure: ptau.insecure,
    },
    circuits: Object.fromEntries(Object.entries(circuits).sort(([a], [b]) => a.localeCompare(b))),
  };
  // Keep generatedAt stable when nothing changed, so a no-op run leaves the manifest byte-identical.
  const same =
    old &&
    JSON.stringify({ ...old, generatedAt: undefined }) ===
      JSON.stringify({ ...body, generatedAt: undefined });
  const manifest: Manifest = {
    ...body,
    generatedAt: same && old ? old.generatedAt : new Date().toISOString(),
  };
  const { version, ...rest } = body;
  if (!same)
    await writeFileAtomic(
      file,
      JSON.stringify({ version, generatedAt: manifest.generatedAt, ...rest }, null, 2) + "\n",
    );
  return manifest;
}

function printSummary(manifest: Manifest, built: Built[], started: number): void {
  const rows = Object.entries(manifest.circuits).map(([name, c]) => {
    const b = built.find((x) => x.inst.name === name);
    const status = b ? (b.compiled && b.status === "cached" ? "recompiled" : b.status) : "kept";
    return [name, String(c.constraints), `2^${c.power}`, c.files.zkey.sha256.slice(0, 12), status];
  });
  const header = ["circuit", "constraints", "needs", "zkey sha256", "status"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  const out = [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
  const p = manifest.ptau;
  out.push("", `ptau: ${p.path} (2^${p.power}, ${p.source}, sha256 ${p.sha256.slice(0, 12)})`);
  out.push(`manifest: ${MANIFEST_PATH}, total ${formatSeconds(Date.now() - started)}`);
  if (p.source === "generated-dev") out.push(DEV_BANNER);
  else {
    if (p.insecure)
      out.push(
        "WARNING: ptau provenance not vouched for (set VAI_PTAU_TRUSTED=1 for a public ceremony file).",
      );
    out.push(
      "WARNING: each zkey has a single local phase-2 contribution: development setup, insecure for real money.",
    );
  }
  console.log(out.join("\n"));
}

/** Two setups at once (a dev run and `npm test`) would rebuild the same files under each other. */
async function acquireLock(): Promise<() => Promise<void>> {
  const file = path.join(ROOT, "build/.setup.lock");
  await mkdir(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: "wx" });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = Number(await readFile(file, "utf8").catch(() => ""));
      if (pid && isAlive(pid))
        throw new BuildLockedError(`another setup (pid ${pid}) is running; wait for it to finish`, {
          details: { pid, lock: rel(file) },
        });
      await rm(file, { force: true });
    }
  }
  throw new BuildLockedError(`could not take the setup lock ${rel(file)}`, { details: { lock: rel(file) } });
}

/** The whole setup for `args` (this script's flags); `vai setup` calls it too. Undefined for --help. */
/**
 * Setup builds into the build/ of the zkvai tree it runs in. circom2 runs under WASI and reaches only files below
 * that tree, circomlib included, which is why an installed package (whose dependencies npm hoists out of it)
 * does not build: a provider builds in a checkout and points ZKVAI_BUILD_DIR at that build.
 */
function assertBuildableHere(): void {
  const here = path.join(ROOT, "build");
  if (buildDir() !== here)
    throw new InputError(
      `setup writes ${here}, but ${BUILD_DIR_ENV} names ${buildDir()}: unset it to build here, or run setup in the tree it names`,
    );
  if (!existsSync(path.join(ROOT, "node_modules", "circomlib", "circuits")))
    throw new InputError(
      `setup compiles circuits inside a checkout of zkvai, with its own node_modules (circom reaches only files under ${ROOT}); ` +
        "clone zkvai, run `npm ci && npm run setup` there, and point ZKVAI_BUILD_DIR at its build/",
    );
}

export async function runSetup(args: string[]): Promise<Manifest | undefined> {
  const started = Date.now();
  const { values } = parseArgs({
    args,
    options: {
      force: { type: "boolean", default: false },
      only: { type: "string" },
      group: { type: "string" },
      instances: { type: "string", default: "circuits/instances.json" },
      "skip-contracts": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return undefined;
  }
  assertBuildableHere();

  const table = await loadInstances(path.resolve(values.instances));
  const selected = table.filter(
    (i) => (!values.only || i.name === values.only) && (!values.group || i.groups.includes(values.group)),
  );
  if (selected.length === 0) {
    throw new ConfigurationError(
      `--only ${values.only ?? "*"} --group ${values.group ?? "*"}: no such instance (known: ${table
        .map((i) => `${i.name} [${i.groups.join(",")}]`)
        .join(", ")})`,
    );
  }
  const tools = buildTools();
  const release = await acquireLock();
  try {
    return await build(table, selected, tools, values.force, values["skip-contracts"], started);
  } finally {
    await release();
  }
}

async function build(
  table: Instance[],
  selected: Instance[],
  tools: Manifest["tools"],
  force: boolean,
  skipContracts: boolean,
  started: number,
): Promise<Manifest> {
  const progress = new Progress({ total: selected.length * 4 + ptauStepCount() + 2 });
  await mkdir(path.join(ROOT, "build/circuits"), { recursive: true });

  // circom2 runs on one core: small circuits compile two at a time on a 2-core machine (the test group's
  // five take half the wall time). Large ones (≥ 256 records, 1–4 GB each) compile alone.
  const built: Built[] = new Array(selected.length);
  const compileOne = async (i: number) => {
    const inst = selected[i]!;
    const p = pathsFor(inst.name);
    const state = (await readJson<CircuitState>(p.state)) ?? {};
    const compiled = await compileCircuit(inst, p, state, tools, progress, force);
    built[i] = { inst, state, compiled, status: "cached" };
  };
  const small = selected.flatMap((inst, i) => (Number(inst.params.depth) < SMALL_DEPTH ? [i] : []));
  const large = selected.flatMap((inst, i) => (Number(inst.params.depth) >= SMALL_DEPTH ? [i] : []));
  const lanes = Math.max(1, Math.min(2, availableParallelism()));
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < small.length) await compileOne(small[next++]!);
    }),
  );
  for (const i of large) await compileOne(i);

  const needPower = Math.max(...built.map((b) => b.state.power ?? 0));
  const ptau = await resolvePtau({ root: ROOT, needPower, progress });

  for (const b of built) {
    b.status = await setupZkey(b.inst, pathsFor(b.inst.name), b.state, ptau, tools, progress, force);
  }
  // The manifest goes first: it describes the circuit artifacts, which are complete even if a contract
  // elsewhere in contracts/ fails to compile.
  const manifest = await writeManifest(built, ptau, tools, table, progress);
  await compileContracts(progress, skipContracts);
  await generateEscrowAbi(progress);
  for (const name of Object.keys(manifest.circuits)) {
    const f = manifest.circuits[name].files.zkey;
    if (built.some((b) => b.inst.name === name)) continue;
    const file = path.join(ROOT, f.path);
    if (!existsSync(file) || (await sha256File(file)) !== f.sha256) {
      progress.log(
        `warning: ${name} (kept from an earlier run) no longer matches its manifest hash; rerun setup`,
      );
    }
  }
  printSummary(manifest, built, started);
  return manifest;
}
