// Lookup of the circuit artifacts that `npm run setup` produced, via build/manifest.json.
// The manifest is the single record of which r1cs/wasm/zkey/verifier belong together (P9); the prover
// and tests resolve paths through it instead of guessing file names, and can re-check the hashes.

import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { artifactsRoot, buildDir } from "../chain/locations.js";
import { BuildMissingError } from "../core/errors.js";
import {
  ManifestError,
  parseManifest,
  type CircuitEntry,
  type FileRef,
  type Manifest,
  type VerificationKey,
} from "./manifest-core.js";
export * from "./manifest-core.js";

/** The manifest's path relative to the artifacts root (the parent of the build directory). */
export const MANIFEST_PATH = "build/manifest.json";

/** The manifest of the configured build directory (sdk/chain/locations.ts). */
export function manifestPath(): string {
  return path.join(buildDir(), "manifest.json");
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

/** Reads and checks a manifest file: the one parser, for the prover, the build and the user-side verifier. */
export function readManifest(file: string, hint = ""): Manifest {
  if (!existsSync(file)) throw new ManifestError(`manifest ${file} does not exist${hint}`);
  return parseManifest(readFileSync(file, "utf8"), file, hint);
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
