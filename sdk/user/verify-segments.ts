// `vai verify` for a claim settled by a chain of segment proofs: the chain the settle transaction named, and
// each link's proof verified locally under the segment circuit's key, against the claim digest rebuilt from the
// escrow's storage. The proofs come from the settle transaction itself (settleChain), or, for settleSegments,
// from the transaction that recorded each step: a proveSegment (one link) or a proveSegments (a span of links).
// verify-settlement.ts does the rest (the escrow's code, the settle transaction) and hands over here.
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
  /** settleChain's flat proof words (8 a link); absent for settleSegments, whose steps were proven before. */
  proofs?: readonly bigint[];
  manifest: Manifest;
  manifestPath: string;
  checks: string[];
  progress?: (step: string) => void;
}): Promise<SettlementReport> {
  const { chain, escrow, claimId, claim, event, states, checks } = o;
  const { sessionId, promiseId } = claim;
  checks.push(
    o.proofs
      ? `settleChain transaction ${o.txHash} (block ${o.blockNumber}) carries a chain of ${states.length - 1} segments and their proofs`
      : `settleSegments transaction ${o.txHash} (block ${o.blockNumber}) names a chain of ${states.length - 1} proven steps`,
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

  const verify = async (index: number, stateIn: bigint, stateOut: bigint, words: readonly bigint[]) => {
    o.progress?.(`verifying segment ${index}'s Groth16 proof under ${circuit}'s key`);
    let ok = false;
    try {
      ok = await verifyGroth16(vkey, [digest, stateIn, stateOut], unpackProof(words));
    } catch (e) {
      throw new SettlementInvalid(`segment ${index}'s proof is malformed: ${describeError(e)}`);
    }
    if (!ok) throw new SettlementInvalid(`segment ${index}'s proof does not verify under ${circuit}'s key`);
  };
  o.progress?.(o.proofs ? `decoding the chain's links` : `scanning the escrow's logs for the proven steps`);
  const links = o.proofs
    ? linksOfChain(states, o.proofs)
    : await linksOfSteps(chain, escrow, claimId, digest, states);
  for (const [index, link] of links.entries()) await verify(index, link.stateIn, link.stateOut, link.words);
  checks.push(
    `all ${links.length} segment proofs verify locally under ${circuit}'s key, linked from 0 to the verdict`,
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

interface ProvenLink {
  stateIn: bigint;
  stateOut: bigint;
  words: readonly bigint[];
}

/** settleChain's links: link j is states[j] → states[j + 1] with proofs[8j .. 8j + 7]. */
function linksOfChain(states: readonly bigint[], proofs: readonly bigint[]): ProvenLink[] {
  if (proofs.length !== 8 * (states.length - 1))
    throw new SettlementInvalid(
      `the settleChain call carries ${proofs.length} proof words for ${states.length - 1} links`,
    );
  return states
    .slice(1)
    .map((stateOut, j) => ({ stateIn: states[j]!, stateOut, words: proofs.slice(8 * j, 8 * j + 8) }));
}

/**
 * settleSegments' steps, each a link (SegmentProven, from a proveSegment transaction) or a span (SegmentsProven,
 * from a proveSegments transaction, whose own states and proofs give its links), under `digest`.
 */
async function linksOfSteps(
  chain: ChainHandle,
  escrow: EscrowClient,
  claimId: bigint,
  digest: bigint,
  states: readonly bigint[],
): Promise<ProvenLink[]> {
  const [links, spans] = await Promise.all([escrow.segmentLinksOf(claimId), escrow.segmentSpansOf(claimId)]);
  const recorded = [...links, ...spans].filter((l) => l.args.claimDigest === digest);
  const out: ProvenLink[] = [];
  for (let j = 1; j < states.length; j++) {
    const [stateIn, stateOut] = [states[j - 1]!, states[j]!];
    const step = recorded.find((l) => l.args.stateIn === stateIn && l.args.stateOut === stateOut);
    if (!step)
      throw new SettlementInvalid(`no SegmentProven or SegmentsProven event for step ${j - 1} of the chain`);
    const tx = await chain.publicClient.getTransaction({ hash: step.txHash });
    if (!tx.to || !isAddressEqual(tx.to, escrow.address))
      throw new SettlementInvalid(
        `step ${j - 1} was proven through contract ${tx.to}, which this tool cannot decode`,
      );
    const call = decodeFunctionData({ abi: escrow.abi, data: tx.input });
    if (call.functionName === "proveSegment") {
      out.push({ stateIn, stateOut, words: call.args[3] as readonly bigint[] });
    } else if (call.functionName === "proveSegments") {
      const spanStates = call.args[1] as readonly bigint[];
      if (spanStates[0] !== stateIn || spanStates[spanStates.length - 1] !== stateOut)
        throw new SettlementInvalid(`transaction ${step.txHash} proves another span than step ${j - 1}`);
      out.push(...linksOfChain(spanStates, call.args[2] as readonly bigint[]));
    } else {
      throw new SettlementInvalid(
        `transaction ${step.txHash} calls ${call.functionName}, not proveSegment or proveSegments`,
      );
    }
  }
  return out;
}
