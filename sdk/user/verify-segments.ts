// `vai verify` for a claim settled by a chain of segment proofs (settleSegments): the chain the settle
// transaction named, each link's proof taken from its proveSegment transaction and verified locally under the
// segment circuit's key, against the claim digest rebuilt from the escrow's storage. verify-settlement.ts
// does the rest (the escrow's code, the settle transaction) and hands over here.
import { verifyGroth16 } from "../chain/groth16.js";
import { decodeFunctionData, isAddressEqual, type Address, type Hex } from "viem";
import type { EscrowClient } from "../chain/escrow.js";
import type { ChainHandle } from "../chain/network.js";
import type { ClaimInfo, Payment } from "../chain/escrow-types.js";
import { describeError } from "../chain/retry.js";
import { unpackProof } from "../core/claim.js";
import { claimContext } from "../core/hash.js";
import { predicateByCode } from "../core/predicates/index.js";
import { segmentClaimDigest, SEGMENT_SATISFIED, SEGMENT_VIOLATED } from "../core/segments.js";
import type { Manifest } from "../manifest/manifest.js";
import { checkVerifier, insecureKeys } from "./deployment-check.js";
import { SettlementInvalid } from "./errors.js";
import { checkCredited, type SettlementReport } from "./settlement-report.js";

export async function verifySegmentedSettlement(o: {
  chain: ChainHandle;
  escrow: EscrowClient;
  claimId: bigint;
  claim: ClaimInfo;
  event: Payment & { violated: boolean };
  txHash: Hex;
  blockNumber: bigint;
  states: readonly bigint[];
  manifest: Manifest;
  manifestPath: string;
  checks: string[];
}): Promise<SettlementReport> {
  const { chain, escrow, claimId, claim, event, states, checks } = o;
  const { sessionId, promiseId } = claim;
  checks.push(
    `settleSegments transaction ${o.txHash} (block ${o.blockNumber}) names a chain of ${states.length - 1} segments`,
  );

  const [session, promise] = [await escrow.session(sessionId), await escrow.promise(promiseId)];
  const digest = segmentClaimDigest({
    context: claimContext(chain.chainId, escrow.address, sessionId, promiseId),
    finalRoot: session.finalRoot,
    n: session.finalN,
    checkpointAcc: session.acc,
    paramsHash: promise.paramsHash,
  });
  if ((await escrow.claimDigests(claimId)).current !== digest)
    throw new SettlementInvalid(`the escrow's claim digest differs from the one rebuilt from its storage`);
  checks.push(
    `claim digest rebuilt from the escrow's storage: context, final root, n=${session.finalN}, acc, paramsHash`,
  );

  const violated = event.violated;
  if (states[0] !== 0n) throw new SettlementInvalid(`the chain starts at ${states[0]}, not 0`);
  const verdict = states[states.length - 1];
  if (verdict !== (violated ? SEGMENT_VIOLATED : SEGMENT_SATISFIED))
    throw new SettlementInvalid(`the chain ends in ${verdict}, but the settlement says violated=${violated}`);

  const predicate = predicateByCode(promise.predicateId);
  if (!predicate)
    throw new SettlementInvalid(`promise ${promiseId} has unknown predicate id ${promise.predicateId}`);
  const segmentVerifier = await escrow.segmentVerifier(promise.predicateId);
  if (!segmentVerifier) throw new SettlementInvalid(`the escrow has no ${predicate.id} segment verifier`);
  const verifier: Address = segmentVerifier.verifier;
  const { circuit, entry, vkey } = await checkVerifier({
    chain,
    manifest: o.manifest,
    manifestPath: o.manifestPath,
    predicate: predicate.id,
    capacity: segmentVerifier.segmentSize,
    verifier,
    kind: "segment",
    checks,
  });

  // Every link of the chain: its SegmentProven event under this digest, and the proof its transaction carried.
  const links = (await escrow.segmentLinksOf(claimId)).filter((l) => l.args.claimDigest === digest);
  for (let j = 1; j < states.length; j++) {
    const [stateIn, stateOut] = [states[j - 1]!, states[j]!];
    const link = links.find((l) => l.args.stateIn === stateIn && l.args.stateOut === stateOut);
    if (!link) throw new SettlementInvalid(`no SegmentProven event for link ${j - 1} of the chain`);
    const tx = await chain.publicClient.getTransaction({ hash: link.txHash });
    if (!tx.to || !isAddressEqual(tx.to, escrow.address))
      throw new SettlementInvalid(
        `segment ${j - 1} was proven through contract ${tx.to}, which this tool cannot decode`,
      );
    const call = decodeFunctionData({ abi: escrow.abi, data: tx.input });
    if (call.functionName !== "proveSegment")
      throw new SettlementInvalid(`transaction ${link.txHash} calls ${call.functionName}, not proveSegment`);
    const words = call.args[3] as readonly bigint[];
    let ok = false;
    try {
      ok = await verifyGroth16(vkey, [digest, stateIn, stateOut], unpackProof(words));
    } catch (e) {
      throw new SettlementInvalid(`segment ${j - 1}'s proof is malformed: ${describeError(e)}`);
    }
    if (!ok) throw new SettlementInvalid(`segment ${j - 1}'s proof does not verify under ${circuit}'s key`);
  }
  checks.push(
    `all ${states.length - 1} segment proofs verify locally under ${circuit}'s key, linked from 0 to the verdict`,
  );

  const { beneficiary, amount } = checkCredited({ violated, session, promise, claim, event, checks });
  return {
    claimId,
    sessionId,
    promiseId,
    violated,
    circuit,
    verifier,
    txHash: o.txHash,
    blockNumber: o.blockNumber,
    publicInputs: [String(digest)],
    beneficiary,
    amount,
    insecureKeys: insecureKeys(o.manifest, [entry]),
    checks,
  };
}
