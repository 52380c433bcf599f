// Groth16 proving and local verification with snarkjs, in-process.
import { readFileSync } from "node:fs";
import * as snarkjs from "snarkjs";
import { packProof, type Groth16ProofJson } from "../sdk/core/claim.js";
import type { CircuitArtifacts } from "../sdk/manifest/manifest.js";
import { warmProver } from "./warm-prover.js";
import { verifyGroth16, withCurveThreads } from "../sdk/chain/groth16.js";
import type { CircuitInput } from "./witness.js";
import { ZkvaiError } from "../sdk/core/errors.js";

export interface ProofResult {
  /** snarkjs' proof object, typed in the core so the package's types need no @types/snarkjs. */
  proof: Groth16ProofJson;
  publicSignals: bigint[];
  /** [a0, a1, b00, b01, b10, b11, c0, c1] in the EVM's limb order. */
  words: bigint[];
  proveSeconds: number;
}

export class ProofError extends ZkvaiError {
  static override readonly code: string = "PROOF_FAILED";
  override name = "ProofError";
}

export function prove(artifacts: CircuitArtifacts, input: CircuitInput): Promise<ProofResult> {
  return withCurveThreads(() => proveHeld(artifacts, input));
}

async function proveHeld(artifacts: CircuitArtifacts, input: CircuitInput): Promise<ProofResult> {
  await warmProver();
  const started = performance.now();
  let out: { proof: snarkjs.Groth16Proof; publicSignals: snarkjs.PublicSignals };
  try {
    out = await snarkjs.groth16.fullProve(input as never, artifacts.wasm, artifacts.zkey);
  } catch (e) {
    // The witness calculator refuses inputs that break a constraint: a trace that does not
    // reproduce its commitments, or an outcome the circuit does not compute.
    throw new ProofError(`${artifacts.name}: no witness satisfies the circuit (${firstLine(e)})`);
  }
  const proveSeconds = (performance.now() - started) / 1000;
  return {
    proof: out.proof,
    publicSignals: out.publicSignals.map(BigInt),
    words: packProof(out.proof),
    proveSeconds,
  };
}

export async function verifyLocally(artifacts: CircuitArtifacts, result: ProofResult): Promise<boolean> {
  const vkey = JSON.parse(readFileSync(artifacts.vkey, "utf8"));
  return withCurveThreads(async () => {
    await warmProver();
    return verifyGroth16(vkey, result.publicSignals, result.proof);
  });
}

/**
 * Ends snarkjs' worker threads now. Optional: they no longer hold the process open between proofs
 * (sdk/chain/groth16.ts), but a long-lived process that is done proving may free their memory.
 */
export async function releaseProver(): Promise<void> {
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0];
}
