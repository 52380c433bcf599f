// Lookup of the circuit artifacts that `npm run setup` produced, via build/manifest.json.
// The manifest is the single record of which r1cs/wasm/zkey/verifier belong together (P9); the prover
// and tests resolve paths through it instead of guessing file names, and can re-check the hashes.

import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { artifactsRoot, buildDir } from "../chain/locations.js";
import { BuildMissingError, InputError } from "../core/errors.js";

/** The manifest's path relative to the artifacts root (the parent of the build directory). */
export const MANIFEST_PATH = "build/manifest.json";

/** The manifest of the configured build directory (sdk/chain/locations.ts). */
export function manifestPath(): string {
  return path.join(buildDir(), "manifest.json");
}

export interface FileRef {
  /** Relative to the artifacts root: the project setup ran in, the parent of its build/. */
  path: string;
  sha256: string;
}

export interface ZkeyContribution {
  name: string;
  /** snarkjs contribution hash (blake2b-512, hex), as `snarkjs zkey verify` prints it. */
  hash: string;
}

export interface CircuitEntry {
  predicate: string;
  template: string;
  params: Record<string, unknown>;
  publicSignals: string[];
  /** Compile cache key: circuit sources, the instance entry and the compiler versions. */
  sourceHash: string;
  constraints: number;
  /** The ptau power this circuit needs at least. */
  power: number;
  /** The Poseidon template its gadgets were compiled with (circuits/gadgets/poseidon.circom). */
  poseidon?: "circomlib" | "lean";
  files: { r1cs: FileRef; wasm: FileRef; zkey: FileRef; vkey: FileRef; verifierSol: FileRef };
  verifierContract: string;
  zkeyContributions: ZkeyContribution[];
  insecureDevSetup: boolean;
  /** "segment": a segment circuit (proveSegment's verifier); absent: a whole-claim circuit (settle's). */
  kind?: "segment";
  /**
   * The verification key itself (files.vkey's content, whose sha256 that entry records), so that a user checks a
   * deployment with the manifest alone: the verifier's source is regenerated from it (verifier-source.ts).
   * Absent in manifests written before it was added; the user's check then needs the build's key file.
   */
  verificationKey?: VerificationKey;
}

/** A snarkjs Groth16 verification key (`snarkjs zkey export verificationkey`). */
export interface VerificationKey {
  protocol: string;
  curve: string;
  nPublic: number;
  vk_alpha_1: string[];
  vk_beta_2: string[][];
  vk_gamma_2: string[][];
  vk_delta_2: string[][];
  IC: string[][];
}

export interface Manifest {
  version: 1;
  generatedAt: string;
  tools: { circom2: string; snarkjs: string; circomlib: string; node: string };
  ptau: {
    /** Relative to the repository root when inside it, absolute otherwise (e.g. a shared ceremony file). */
    path: string;
    sha256: string;
    power: number;
    source: "VAI_PTAU" | "generated-dev";
    insecure: boolean;
  };
  circuits: Record<string, CircuitEntry>;
}

export interface CircuitArtifacts {
  name: string;
  wasm: string;
  zkey: string;
  vkey: string;
  r1cs: string;
  verifierSol: string;
  verifierContract: string;
  constraints: number;
  publicSignals: string[];
}

/** sha256 of the manifest, as a deployment records it (a later command can tell it changed since). */
export function manifestSha256(root: string = artifactsRoot()): string {
  return createHash("sha256")
    .update(readFileSync(path.resolve(root, MANIFEST_PATH)))
    .digest("hex");
}

/** A manifest file that is missing or is not a zkVAI manifest (bad input: nothing was built or sent). */
export class ManifestError extends InputError {
  static override readonly code: string = "BAD_MANIFEST";
  override name = "ManifestError";
}

/** Reads and checks a manifest file: the one parser, for the prover, the build and the user-side verifier. */
export function readManifest(file: string, hint = ""): Manifest {
  if (!existsSync(file)) throw new ManifestError(`manifest ${file} does not exist${hint}`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(file, "utf8")) as Manifest;
  } catch (error) {
    throw new ManifestError(`manifest ${file} is not readable JSON (${(error as Error).message})${hint}`);
  }
  if (manifest?.version !== 1 || typeof manifest.circuits !== "object" || manifest.circuits === null)
    throw new ManifestError(`manifest ${file} is not a version 1 zkVAI manifest${hint}`);
  return manifest;
}

/** The manifest's whole-claim circuits (settle's verifiers), by name. */
export function claimCircuits(manifest: Manifest): [string, CircuitEntry][] {
  return Object.entries(manifest.circuits).filter(([, c]) => c.kind !== "segment");
}

/** The manifest's segment circuits (proveSegment's verifiers), by name. */
export function segmentCircuits(manifest: Manifest): [string, CircuitEntry][] {
  return Object.entries(manifest.circuits).filter(([, c]) => c.kind === "segment");
}

// Not cached: the file is small and setup may rewrite it while a long-lived process (a test run) is alive.
export function loadManifest(root: string = artifactsRoot()): Manifest {
  return readManifest(path.resolve(root, MANIFEST_PATH), ": run `npm run setup` to build the circuits");
}

function entry(name: string, root: string): CircuitEntry {
  const manifest = loadManifest(root);
  const circuit = manifest.circuits[name];
  if (!circuit) {
    const known = Object.keys(manifest.circuits).join(", ") || "none";
    throw new BuildMissingError(
      `circuit "${name}" is not in ${MANIFEST_PATH} (known: ${known}); run \`npm run setup\``,
      { details: { circuit: name, known: Object.keys(manifest.circuits) } },
    );
  }
  return circuit;
}

export function circuitArtifacts(name: string, root: string = artifactsRoot()): CircuitArtifacts {
  const c = entry(name, root);
  const abs = (ref: FileRef): string => path.resolve(root, ref.path);
  return {
    name,
    wasm: abs(c.files.wasm),
    zkey: abs(c.files.zkey),
    vkey: abs(c.files.vkey),
    r1cs: abs(c.files.r1cs),
    verifierSol: abs(c.files.verifierSol),
    verifierContract: c.verifierContract,
    constraints: c.constraints,
    publicSignals: [...c.publicSignals],
  };
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Recomputes every artifact hash of `name`; throws naming the first missing or mismatching file. */
export async function verifyArtifactHashes(name: string, root: string = artifactsRoot()): Promise<void> {
  const c = entry(name, root);
  for (const [kind, ref] of Object.entries(c.files)) {
    const file = path.resolve(root, ref.path);
    if (!existsSync(file)) {
      throw new BuildMissingError(`${name}: ${kind} file ${ref.path} is missing; run \`npm run setup\``, {
        details: { circuit: name, kind, file: ref.path },
      });
    }
    const actual = await sha256File(file);
    if (actual !== ref.sha256) {
      throw new BuildMissingError(
        `${name}: ${kind} file ${ref.path} has sha256 ${actual}, manifest says ${ref.sha256}; run \`npm run setup\``,
        { details: { circuit: name, kind, file: ref.path, sha256: actual, expected: ref.sha256 } },
      );
    }
  }
}

/**
 * A verification key file's content, to embed in a manifest entry: only when its bytes hash to `sha256`, the
 * entry's files.vkey.sha256 (a user checks the two against each other; sdk/user/evidence.ts).
 */
export function embeddableKey(file: string, sha256: string | undefined): VerificationKey | undefined {
  if (!sha256 || !existsSync(file)) return undefined;
  const bytes = readFileSync(file);
  if (createHash("sha256").update(bytes).digest("hex") !== sha256) return undefined;
  return JSON.parse(bytes.toString("utf8")) as VerificationKey;
}

/**
 * Circuit entries with every verification key embedded from the build under `root` where it is missing: what
 * setup does for entries it keeps from a manifest written before keys were embedded.
 */
export function withEmbeddedKeys(
  circuits: Record<string, CircuitEntry>,
  root: string = artifactsRoot(),
): Record<string, CircuitEntry> {
  return Object.fromEntries(
    Object.entries(circuits).map(([name, entry]) => [
      name,
      {
        ...entry,
        verificationKey:
          entry.verificationKey ??
          embeddableKey(path.resolve(root, entry.files.vkey.path), entry.files.vkey.sha256),
      },
    ]),
  );
}
