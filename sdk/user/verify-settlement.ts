// Checks a settlement trusting only the chain, a manifest and the package: the proof the settle transaction
// carried is re-verified locally, against the public inputs rebuilt from the escrow's storage and the
// verification key the manifest holds; and the verifier the escrow called is shown to be that key's contract,
// through a chain of hashes and byte comparisons: key → Solidity source regenerated from it → solc-js output →
// on-chain code (deployment-check.ts, evidence.ts). No build folder is needed. Any broken link is the reason the
// settlement is not valid; a claim no proof settled is reported as such, not as invalid. docs/PROTOCOL.md
// "Verifying a settlement" lists the checks.
import { verifyGroth16 } from "../chain/groth16.js";
import { decodeFunctionData, formatEther, isAddressEqual, type Address } from "viem";
import { ClaimStatus, EscrowClient } from "../chain/escrow.js";
import type { ClaimInfo } from "../chain/escrow-types.js";
import type { ChainHandle } from "../chain/network.js";
import { describeError } from "../chain/retry.js";
import { PUBLIC_INPUTS, unpackProof, type PublicInputName } from "../core/claim.js";
import { claimContext } from "../core/hash.js";
import { predicateByCode } from "../core/predicates/index.js";
import { manifestPath as defaultManifestPath, type Manifest, readManifest } from "../manifest/manifest.js";
import { checkEscrowContracts, checkVerifier, insecureKeys } from "./deployment-check.js";
import { ClaimNotSettled, NoSuchClaim, SettlementInvalid, SettlementUncheckable } from "./errors.js";
import { checkCredited, type SettlementReport } from "./settlement-report.js";
import { verifySegmentedSettlement } from "./verify-segments.js";
export type { SettlementReport } from "./settlement-report.js";
export { checkEscrowContracts, checkPoseidon3, checkVerifier } from "./deployment-check.js";
export { SettlementUncheckable } from "./errors.js";

/**
 * The claim, which must exist and have been settled by a proof: NoSuchClaim when there is none, ClaimNotSettled
 * while it is open (within its proof window, or past it with no claimDefault yet) and once it defaulted.
 */
async function settledClaim(escrow: EscrowClient, claimId: bigint): Promise<ClaimInfo> {
  const claim = await escrow.claim(claimId).catch((e) => {
    if (/UnknownClaim/.test(describeError(e))) throw new NoSuchClaim(claimId, escrow.address);
    throw new SettlementUncheckable(
      `claim ${claimId} cannot be read from escrow ${escrow.address}: ${describeError(e)}`,
    );
  });
  if (claim.status === ClaimStatus.Settled) return claim;
  if (claim.status === ClaimStatus.Defaulted) {
    const [paid] = await escrow.defaultsOf(claimId);
    const to = paid ? `: ${formatEther(paid.args.amount)} ETH went to ${paid.args.beneficiary}` : "";
    throw new ClaimNotSettled(
      claimId,
      "defaulted",
      `claim ${claimId} was not settled by a proof: it defaulted, no proof came within its proof window${to}`,
    );
  }
  if (claim.status !== ClaimStatus.Open) throw new NoSuchClaim(claimId, escrow.address);
  const { proofWindow } = await escrow.constants();
  const endsAt = claim.filedAt + proofWindow;
  const now = (await escrow.chain.publicClient.getBlock()).timestamp;
  const end = new Date(Number(endsAt) * 1000).toISOString();
  if (now < endsAt)
    throw new ClaimNotSettled(
      claimId,
      "open",
      `claim ${claimId} is not settled yet: it is open, and its proof window runs until ${end}`,
    );
  throw new ClaimNotSettled(
    claimId,
    "overdue",
    `claim ${claimId} is not settled: no proof came within its proof window (ended ${end}); anyone may now call claimDefault (\`vai claim default ${claimId}\`) to pay the user`,
  );
}

export async function verifySettlement(opts: {
  chain: ChainHandle;
  escrow: Address;
  fromBlock: bigint;
  claimId: bigint;
  /** The manifest the escrow's verifiers were built from; default: the configured build's (ZKVAI_BUILD_DIR). */
  manifest?: Manifest;
  manifestPath?: string;
  /**
   * Kept for callers written before every check compiled from source: the verifier's code is now always
   * compiled from its source with solc-js (cached) and compared with the chain, trusting no build output.
   */
  recompile?: boolean;
  /** Told each step as it starts (the page shows them): log scans, the verifier check, the proof. */
  progress?: (step: string) => void;
}): Promise<SettlementReport> {
  const { chain, claimId } = opts;
  const progress = opts.progress ?? (() => {});
  const manifestPath = opts.manifestPath ?? defaultManifestPath();
  const manifest = opts.manifest ?? readManifest(manifestPath);
  progress(`checking the code of escrow ${opts.escrow} and its Poseidon(3)`);
  const checks = await checkEscrowContracts(chain, opts.escrow);
  const escrow = await EscrowClient.connect(chain, opts.escrow, undefined, { fromBlock: opts.fromBlock });

  progress(`reading claim ${claimId}`);
  const claim = await settledClaim(escrow, claimId);
  const { sessionId, promiseId } = claim;

  progress(`scanning the escrow's logs from block ${opts.fromBlock} for claim ${claimId}'s settlement`);
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
  if (call.functionName === "settleSegments" || call.functionName === "settleChain")
    return verifySegmentedSettlement({
      chain,
      escrow,
      claimId,
      claim,
      event,
      txHash,
      blockNumber: receipt.blockNumber,
      states: call.args[1] as readonly bigint[],
      ...(call.functionName === "settleChain" ? { proofs: call.args[2] as readonly bigint[] } : {}),
      manifest,
      manifestPath,
      checks,
      progress,
    });
  if (call.functionName !== "settle")
    throw new SettlementInvalid(
      `transaction ${txHash} calls ${call.functionName}, not settle, settleChain or settleSegments`,
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

  // The verifier the escrow called, and the manifest circuit whose compiled source it runs.
  const { verifier, capacity } = await escrow.verifierOf(claimId);
  progress(`checking verifier ${verifier} against the manifest`);
  const predicate = predicateByCode(promise.predicateId);
  if (!predicate)
    throw new SettlementInvalid(`promise ${promiseId} has unknown predicate id ${promise.predicateId}`);
  const { circuit, entry, vkey } = await checkVerifier({
    chain,
    manifest,
    manifestPath,
    predicate: predicate.id,
    capacity,
    verifier,
    kind: "claim",
    checks,
  });

  const proof = unpackProof(words);
  progress(`verifying the Groth16 proof under ${circuit}'s key`);
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
    insecureKeys: insecureKeys(manifest, [entry]),
    checks,
  };
}
