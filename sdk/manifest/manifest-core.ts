// The manifest's shape and its parser, with no I/O: shared by the Node side (manifest.ts reads the file) and the
// page, which fetches the manifest its build bundled (or one from a URL the user gives) and parses it here.
import { InputError } from "../core/errors.js";

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

/** A manifest file that is missing or is not a zkVAI manifest (bad input: nothing was built or sent). */
export class ManifestError extends InputError {
  static override readonly code: string = "BAD_MANIFEST";
  override name = "ManifestError";
}

/** Parses and checks a manifest's text; `where` names it in messages (a file, a URL). */
export function parseManifest(text: string, where: string, hint = ""): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch (error) {
    throw new ManifestError(`manifest ${where} is not readable JSON (${(error as Error).message})${hint}`);
  }
  if (manifest?.version !== 1 || typeof manifest.circuits !== "object" || manifest.circuits === null)
    throw new ManifestError(`manifest ${where} is not a version 1 zkVAI manifest${hint}`);
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
