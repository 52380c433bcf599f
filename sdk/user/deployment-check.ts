// The contracts a claim is settled through, checked against what the package and a manifest say they must be:
// the escrow (contracts/Escrow.sol as the package ships it), its Poseidon(3) (contracts/PoseidonT4.sol), and
// each verifier (the manifest circuit's key, its regenerated source, compiled: evidence.ts). One set of checks
// for `vai verify` (verify-settlement.ts, verify-segments.ts) and `vai promise check` (check-promise.ts), so
// neither accepts what the other refuses.
import type { Address } from "viem";
import { POSEIDON3_ABI } from "../chain/escrow.js";
import { ESCROW_ABI } from "../chain/generated/escrow-abi.js";
import type { ChainHandle } from "../chain/network.js";
import { capacityOfDepth } from "../core/claim.js";
import { poseidon } from "../core/hash.js";
import type { CircuitEntry, Manifest, VerificationKey } from "../manifest/manifest.js";
import { codeAt, expectedVerifier, SettlementInvalid } from "./evidence.js";
import { packageContract, sameCode } from "./expected-code.js";

/** The escrow runs contracts/Escrow.sol as the package ships it, and its Poseidon(3) contracts/PoseidonT4.sol. */
export async function checkEscrowContracts(chain: ChainHandle, escrowAddress: Address): Promise<string[]> {
  const escrowCode = await codeAt(chain, escrowAddress);
  if (escrowCode === "0x") throw new SettlementInvalid(`there is no contract at escrow ${escrowAddress}`);
  if (!sameCode(escrowCode, packageContract("contracts/Escrow.sol", "Escrow")))
    throw new SettlementInvalid(
      `escrow ${escrowAddress} does not run the Escrow compiled from this package's contracts/Escrow.sol`,
    );
  return [
    `escrow ${escrowAddress} runs the Escrow compiled from this package's contracts/Escrow.sol`,
    await checkPoseidon3(chain, escrowAddress),
  ];
}

/**
 * The escrow folds every checkpoint with the Poseidon(3) at its POSEIDON3 immutable; a fake one (say,
 * returning 0) voids checkpoint binding. Its code must be contracts/PoseidonT4.sol compiled, and it must
 * answer one known input as sdk/core/hash.ts does.
 */
export async function checkPoseidon3(chain: ChainHandle, escrowAddress: Address): Promise<string> {
  const poseidon3 = await chain.publicClient.readContract({
    address: escrowAddress,
    abi: ESCROW_ABI,
    functionName: "POSEIDON3",
  });
  if (!sameCode(await codeAt(chain, poseidon3), packageContract("contracts/PoseidonT4.sol", "PoseidonT4")))
    throw new SettlementInvalid(
      `the escrow's Poseidon(3) at ${poseidon3} does not run contracts/PoseidonT4.sol as compiled from this package`,
    );
  const answer = await chain.publicClient.readContract({
    address: poseidon3,
    abi: POSEIDON3_ABI,
    functionName: "poseidon",
    args: [[1n, 2n, 3n]],
  });
  if (answer !== poseidon([1n, 2n, 3n]))
    throw new SettlementInvalid(`the escrow's Poseidon(3) at ${poseidon3} gives a wrong hash of (1, 2, 3)`);
  return `the escrow's Poseidon(3) ${poseidon3} runs contracts/PoseidonT4.sol and hashes (1, 2, 3) as sdk/core/hash.ts does`;
}

/** A verifier shown to be a manifest circuit's: the circuit, its entry and the key it hard-codes. */
export interface CheckedVerifier {
  circuit: string;
  entry: CircuitEntry;
  vkey: VerificationKey;
}

/**
 * The manifest circuit whose verifier is the code at `verifier`, among those of `predicate` and `capacity`
 * (records per segment for kind "segment"), with every link from the manifest's key to that code checked and
 * appended to `checks`. Throws SettlementInvalid naming the mismatch when none is.
 */
export async function checkVerifier(o: {
  chain: ChainHandle;
  manifest: Manifest;
  manifestPath: string;
  predicate: string;
  capacity: number;
  verifier: Address;
  kind: "claim" | "segment";
  checks: string[];
}): Promise<CheckedVerifier> {
  const { manifest, predicate, capacity, verifier, kind } = o;
  const role =
    kind === "segment"
      ? `segment verifier (segments of ${capacity} records)`
      : `verifier (≤ ${capacity} records)`;
  const candidates = Object.entries(manifest.circuits).filter(
    ([, c]) =>
      (c.kind === "segment") === (kind === "segment") &&
      c.predicate === predicate &&
      capacityOfDepth(Number(c.params.depth)) === capacity,
  );
  if (!candidates.length)
    throw new SettlementInvalid(
      `the manifest names no ${predicate} ${kind === "segment" ? "segment circuit of segments of" : "circuit of capacity"} ${capacity}, the one ${role} ${verifier} serves`,
    );
  const code = await codeAt(o.chain, verifier);
  if (code === "0x") throw new SettlementInvalid(`there is no contract at ${role} ${verifier}`);
  let mismatch: SettlementInvalid | undefined;
  for (const [circuit, entry] of candidates) {
    const expected = expectedVerifier(circuit, entry, o.manifestPath);
    if (sameCode(code, expected.code)) {
      o.checks.push(
        ...expected.checks,
        `${role} ${verifier} runs exactly that code: the manifest's ${circuit}`,
      );
      return { circuit, entry, vkey: expected.vkey };
    }
    mismatch = new SettlementInvalid(
      `the on-chain code of ${role} ${verifier} is not ${entry.verifierContract} compiled from ${entry.files.verifierSol.path}, the manifest's ${circuit}`,
    );
  }
  throw mismatch!;
}

/**
 * Whether the keys behind these circuits are development keys anyone can forge proofs against: an entry marked
 * insecureDevSetup (or not marked secure), or a ptau of public τ. Fail-closed: only an explicit false counts.
 */
export function insecureKeys(manifest: Manifest, entries: CircuitEntry[]): boolean {
  return manifest.ptau?.insecure !== false || entries.some((e) => e.insecureDevSetup !== false);
}

/** The sentence every verdict carries when insecureKeys holds. */
export const INSECURE_KEYS_WARNING = "INSECURE development keys: anyone can forge proofs against them";
