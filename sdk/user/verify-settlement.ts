// Checks a settlement trusting only the chain and a manifest: the proof the settle transaction carried is
// re-verified locally, against the public inputs rebuilt from the escrow's storage and the verification key
// the manifest names; and the verifier the escrow called is shown to be that key's contract, through a chain
// of hashes and byte comparisons: vkey file → constants in the Solidity source → compiler input → artifact →
// on-chain code (the file links live in evidence.ts). Any broken link is the reason the settlement is not valid;
// docs/PROTOCOL.md "Verifying a settlement" lists them.
import path from "node:path";
import { verifyGroth16 } from "../chain/groth16.js";
import { decodeFunctionData, getAddress, isAddressEqual, type Abi, type Address, type Hex } from "viem";
import { ClaimStatus, EscrowClient, POSEIDON3_ABI } from "../chain/escrow.js";
import { ESCROW_ABI } from "../chain/generated/escrow-abi.js";
import { artifactsRoot, hardhatArtifactsDir } from "../chain/locations.js";
import type { ChainHandle } from "../chain/network.js";
import { describeError } from "../chain/retry.js";
import {
  PUBLIC_INPUTS,
  PUBLIC_INPUT_COUNT,
  capacityOfDepth,
  unpackProof,
  type PublicInputName,
} from "../core/claim.js";
import { claimContext, poseidon } from "../core/hash.js";
import { predicateByCode } from "../core/predicates/index.js";
import {
  manifestPath as defaultManifestPath,
  type CircuitEntry,
  type Manifest,
  readManifest,
} from "../../prover/artifacts/manifest.js";
import {
  checkVkeyInSource,
  codeAt,
  compiled,
  manifestFile,
  recompiledBytecode,
  rel,
  sameCode,
  SettlementInvalid,
  type VerificationKey,
} from "./evidence.js";
import { ZkvaiError } from "../core/errors.js";
import { verifySegmentedSettlement } from "./verify-segments.js";

/** The settlement could not be examined (e.g. settle was called through another contract). */
export class SettlementUncheckable extends ZkvaiError {
  static override readonly code: string = "SETTLEMENT_UNCHECKABLE";
  override name = "SettlementUncheckable";
}

export interface SettlementReport {
  claimId: bigint;
  sessionId: Hex;
  promiseId: bigint;
  violated: boolean;
  circuit: string;
  verifier: Address;
  txHash: Hex;
  blockNumber: bigint;
  publicInputs: string[];
  beneficiary: Address;
  amount: bigint;
  /** What was established, in order. */
  checks: string[];
}

/** The escrow runs contracts/Escrow.sol as built, and its Poseidon(3) is contracts/PoseidonT4.sol: two checks. */
export async function checkEscrowContracts(chain: ChainHandle, escrowAddress: Address): Promise<string[]> {
  const escrowCode = await codeAt(chain, escrowAddress);
  if (escrowCode === "0x") throw new SettlementInvalid(`there is no contract at escrow ${escrowAddress}`);
  if (!sameCode(escrowCode, compiled("contracts/Escrow.sol", "Escrow")))
    throw new SettlementInvalid(
      `escrow ${escrowAddress} does not run the Escrow compiled from contracts/Escrow.sol`,
    );
  return [
    `escrow ${escrowAddress} runs contracts/Escrow.sol as compiled here`,
    await checkPoseidon3(chain, escrowAddress),
  ];
}

/**
 * The manifest circuit whose compiled verifier is the code at `verifier`, among those of `predicate` and
 * `capacity`; throws SettlementInvalid naming the last mismatch when none is.
 */
export async function manifestCircuitAt(
  chain: ChainHandle,
  manifest: Manifest,
  predicate: string,
  capacity: number,
  verifier: Address,
  kind: "claim" | "segment" = "claim",
): Promise<[string, CircuitEntry]> {
  const candidates = Object.entries(manifest.circuits).filter(
    ([, c]) =>
      (c.kind === "segment") === (kind === "segment") &&
      c.predicate === predicate &&
      capacityOfDepth(Number(c.params.depth)) === capacity,
  );
  if (!candidates.length)
    throw new SettlementInvalid(
      `the manifest names no ${predicate} ${kind === "segment" ? "segment circuit of segments of" : "circuit of capacity"} ${capacity}, the one verifier ${verifier} serves`,
    );
  const code = await codeAt(chain, verifier);
  let lastMismatch: SettlementInvalid | undefined;
  for (const [name, entry] of candidates) {
    const c = compiled(entry.files.verifierSol.path, entry.verifierContract);
    if (sameCode(code, c)) return [name, entry];
    lastMismatch = new SettlementInvalid(
      `the on-chain code of verifier ${verifier} differs from ${rel(c.artifactFile)}, the ${entry.verifierContract} the manifest names for ${name}`,
    );
  }
  throw lastMismatch!;
}

/**
 * The escrow folds every checkpoint with the Poseidon(3) at its POSEIDON3 immutable; a fake one (say,
 * returning 0) voids checkpoint binding. Its code must be contracts/PoseidonT4.sol as built, and it must
 * answer one known input as sdk/core/hash.ts does.
 */
export async function checkPoseidon3(chain: ChainHandle, escrowAddress: Address): Promise<string> {
  const poseidon3 = await chain.publicClient.readContract({
    address: escrowAddress,
    abi: ESCROW_ABI,
    functionName: "POSEIDON3",
  });
  if (!sameCode(await codeAt(chain, poseidon3), compiled("contracts/PoseidonT4.sol", "PoseidonT4")))
    throw new SettlementInvalid(
      `the escrow's Poseidon(3) at ${poseidon3} does not run contracts/PoseidonT4.sol as compiled here`,
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

/**
 * The verification key of the manifest circuit `entry`, once the verifier at `verifier` is shown to be its
 * contract: artifact compiled from the manifest's source (optionally recompiled and compared with the
 * on-chain code), and the key in the manifest is the one hard-coded in that source. Appends each link to
 * `checks`.
 */
export async function verifiedKey(o: {
  chain: ChainHandle;
  verifier: Address;
  entry: CircuitEntry;
  manifestPath: string;
  recompile?: boolean;
  checks: string[];
}): Promise<VerificationKey> {
  const { chain, verifier, entry, manifestPath, checks } = o;
  const code = await codeAt(chain, verifier);
  const solSource = manifestFile(entry.files.verifierSol, "verifier source", manifestPath).toString("utf8");
  const artifact = compiled(entry.files.verifierSol.path, entry.verifierContract);
  if (artifact.sourceSha256 !== entry.files.verifierSol.sha256)
    throw new SettlementInvalid(
      `${entry.verifierContract} was compiled from a source whose sha256 is not the manifest's ${entry.files.verifierSol.sha256}`,
    );
  checks.push(
    `that artifact was compiled from ${entry.files.verifierSol.path}, sha256 ${entry.files.verifierSol.sha256} as the manifest records`,
  );
  if (o.recompile) {
    const bytecode = recompiledBytecode(artifact);
    if (bytecode === undefined)
      throw new SettlementUncheckable(
        `the installed solc is not ${artifact.solcLongVersion}, which built ${entry.verifierContract}`,
      );
    if (bytecode.toLowerCase() !== code.toLowerCase())
      throw new SettlementInvalid(
        `${entry.files.verifierSol.path} compiled with solc ${artifact.solcLongVersion} does not give verifier ${verifier}'s code`,
      );
    checks.push(`compiling that source again with solc ${artifact.solcLongVersion} gives the on-chain code`);
  }
  const vkeyBytes = manifestFile(entry.files.vkey, "verification key", manifestPath);
  let vkey: VerificationKey;
  try {
    vkey = JSON.parse(vkeyBytes.toString("utf8")) as VerificationKey;
  } catch {
    throw new SettlementInvalid(`verification key ${entry.files.vkey.path} is not JSON`);
  }
  const nPublic = entry.publicSignals.length;
  if (vkey.protocol !== "groth16" || vkey.curve !== "bn128" || vkey.nPublic !== nPublic)
    throw new SettlementInvalid(
      `verification key ${entry.files.vkey.path} is not a bn128 Groth16 key for ${nPublic} public inputs`,
    );
  checkVkeyInSource(
    vkey,
    solSource,
    path.resolve(artifactsRoot(), entry.files.verifierSol.path),
    path.resolve(artifactsRoot(), entry.files.vkey.path),
  );
  checks.push(
    `verification key ${entry.files.vkey.path} (sha256 ${entry.files.vkey.sha256}) is the key hard-coded in that source`,
  );
  return vkey;
}

/**
 * The money followed the verdict: the settlement credited payout + bond to the session's user for violated,
 * the bond to its provider for satisfied (one rule for `settle` and `settleSegments`).
 */
export function checkCredited(o: {
  violated: boolean;
  session: { user: Address; provider: Address };
  promise: { payout: bigint };
  claim: { bond: bigint };
  event: { beneficiary: Address; amount: bigint };
  checks: string[];
}): { beneficiary: Address; amount: bigint } {
  const { violated, session, promise, claim, event, checks } = o;
  const [beneficiary, amount] = violated
    ? [session.user, promise.payout + claim.bond]
    : [session.provider, claim.bond];
  if (!isAddressEqual(event.beneficiary, beneficiary) || event.amount !== amount)
    throw new SettlementInvalid(
      `the settlement credited ${event.amount} wei to ${event.beneficiary}, not ${amount} to ${beneficiary}`,
    );
  checks.push(
    `the escrow credited ${amount} wei to ${violated ? "the user" : "the provider"} ${getAddress(beneficiary)}`,
  );
  return { beneficiary, amount };
}

export async function verifySettlement(opts: {
  chain: ChainHandle;
  escrow: Address;
  fromBlock: bigint;
  claimId: bigint;
  /** The manifest the escrow's verifiers were built from; default: the configured build's (ZKVAI_BUILD_DIR). */
  manifest?: Manifest;
  manifestPath?: string;
  /** Also compile the verifier source again and compare with the on-chain code (a few seconds). */
  recompile?: boolean;
}): Promise<SettlementReport> {
  const { chain, claimId } = opts;
  const manifestPath = opts.manifestPath ?? defaultManifestPath();
  const manifest = opts.manifest ?? readManifest(manifestPath);
  const checks = await checkEscrowContracts(chain, opts.escrow);
  const escrow = await EscrowClient.connect(chain, opts.escrow, undefined, { fromBlock: opts.fromBlock });

  const claim = await escrow.claim(claimId).catch((e) => {
    throw new SettlementInvalid(
      `claim ${claimId} cannot be read from escrow ${opts.escrow}: ${describeError(e)}`,
    );
  });
  if (claim.status !== ClaimStatus.Settled)
    throw new SettlementInvalid(
      `claim ${claimId} is ${ClaimStatus[claim.status].toLowerCase()}, not settled by a proof`,
    );
  const { sessionId, promiseId } = claim;

  const logs = await escrow.settlementsOf(claimId);
  if (logs.length !== 1)
    throw new SettlementInvalid(`expected one ClaimSettled event for claim ${claimId}, found ${logs.length}`);
  const event = logs[0].args;
  const txHash = logs[0].txHash;
  const tx = await chain.publicClient.getTransaction({ hash: txHash });
  const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash });
  if (receipt.status !== "success") throw new SettlementInvalid(`settle transaction ${txHash} reverted`);
  if (!tx.to || !isAddressEqual(tx.to, escrow.address))
    throw new SettlementUncheckable(
      `settle was called through contract ${tx.to}, whose calldata this tool cannot decode`,
    );
  const call = decodeFunctionData({ abi: escrow.abi, data: tx.input });
  if (call.functionName === "settleSegments")
    return verifySegmentedSettlement({
      chain,
      escrow,
      claimId,
      claim,
      event,
      txHash,
      blockNumber: receipt.blockNumber,
      states: call.args[1] as readonly bigint[],
      manifest,
      manifestPath,
      recompile: opts.recompile,
      checks,
    });
  if (call.functionName !== "settle")
    throw new SettlementInvalid(
      `transaction ${txHash} calls ${call.functionName}, not settle or settleSegments`,
    );
  // Narrowed by the ABI: settle(claimId, proof, violated).
  const [callClaimId, words, violated] = call.args;
  if (callClaimId !== claimId)
    throw new SettlementInvalid(`transaction ${txHash} settles claim ${callClaimId}`);
  if (violated !== event.violated)
    throw new SettlementInvalid(`the settle calldata says violated=${violated}, the event ${event.violated}`);
  checks.push(`settle transaction ${txHash} (block ${receipt.blockNumber}) carries the proof`);

  // Public inputs: the escrow's own view, each cross-checked against the storage it is built from.
  const inputs = await escrow.publicInputs(claimId, violated);
  const [session, promise] = [await escrow.session(sessionId), await escrow.promise(promiseId)];
  const context = claimContext(chain.chainId, escrow.address, sessionId, promiseId);
  const fromStorage: Record<PublicInputName, bigint> = {
    context,
    finalRoot: session.finalRoot,
    n: BigInt(session.finalN),
    checkpointAcc: session.acc,
    paramsHash: promise.paramsHash,
    outcome: violated ? 1n : 0n,
  };
  const differs = PUBLIC_INPUTS.find((name, i) => fromStorage[name] !== inputs[i]);
  if (differs !== undefined)
    throw new SettlementInvalid(
      `public input ${differs} from publicInputsOf differs from the escrow's storage`,
    );
  checks.push(
    `public inputs rebuilt from the escrow's storage: context, final root, n=${session.finalN}, acc, paramsHash, outcome`,
  );

  // The verifier the escrow called, and the manifest circuit whose artifact it runs.
  const { verifier, capacity } = await escrow.verifierOf(claimId);
  const predicate = predicateByCode(promise.predicateId);
  if (!predicate)
    throw new SettlementInvalid(`promise ${promiseId} has unknown predicate id ${promise.predicateId}`);
  const [circuit, entry] = await manifestCircuitAt(chain, manifest, predicate.id, capacity, verifier);
  checks.push(
    `verifier ${verifier} (≤ ${capacity} records) runs ${entry.verifierContract} from ${rel(path.join(hardhatArtifactsDir(), entry.files.verifierSol.path))}`,
  );
  const vkey = await verifiedKey({ chain, verifier, entry, manifestPath, recompile: opts.recompile, checks });

  const proof = unpackProof(words);
  let ok = false;
  try {
    ok = await verifyGroth16(vkey, inputs, proof);
  } catch (e) {
    throw new SettlementInvalid(`the proof is malformed: ${describeError(e)}`);
  }
  if (!ok)
    throw new SettlementInvalid(
      `the proof does not verify under ${circuit}'s verification key with the escrow's public inputs`,
    );
  checks.push(`the Groth16 proof verifies locally under ${circuit}'s key with those public inputs`);

  const { beneficiary, amount } = checkCredited({ violated, session, promise, claim, event, checks });

  return {
    claimId,
    sessionId,
    promiseId,
    violated,
    circuit,
    verifier,
    txHash,
    blockNumber: receipt.blockNumber,
    publicInputs: inputs.map(String),
    beneficiary,
    amount,
    checks,
  };
}
