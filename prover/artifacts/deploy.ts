// The artifacts pipeline's last stage: puts a zkVAI escrow on a chain. The on-chain Poseidon, one verifier per
// circuit of the manifest, and the Escrow, whose verifier registry is that set, fixed at deployment.
import { EscrowClient, deployEscrow, deployPoseidon3, type SegmentEntry } from "../../sdk/chain/escrow.js";
import { deployContract } from "../../sdk/chain/artifacts.js";
import { type ChainHandle, type Wallet } from "../../sdk/chain/network.js";
import type { DeployedSegmentVerifier, DeployedVerifier, Deployment } from "../../sdk/chain/deployment.js";
import { predicateById } from "../../sdk/core/predicates/index.js";
import { capacityOfDepth } from "../../sdk/core/claim.js";
import {
  CHECKPOINT_INTERVAL,
  checkpointSlots,
  DEFAULT_RECEIPT_WINDOW_S,
} from "../../sdk/core/checkpoints.js";
import { claimCircuits, loadManifest, manifestSha256, segmentCircuits } from "../../sdk/manifest/manifest.js";

/** What deploying returns: a client for the new escrow, the deployment's record, and what each step cost. */
export interface ZkVaiDeployment {
  escrow: EscrowClient;
  record: Deployment;
  gas: { poseidon3: bigint; escrow: bigint; verifiers: Record<string, bigint> };
}

/**
 * The on-chain Poseidon, one verifier per circuit of the manifest, and the Escrow whose registry they are, with
 * the checkpoint budget's interval (CHECKPOINT_INTERVAL unless `checkpointInterval` says otherwise).
 * `rpcUrl` is recorded for later commands (empty for an in-process chain).
 */
export async function deployZkVai(
  chain: ChainHandle,
  deployer: Wallet,
  opts: {
    rpcUrl?: string;
    checkpointInterval?: number;
    /**
     * Seconds after close before a claim can be proven: the user's time to post a receipt the provider signed
     * (docs/PROTOCOL.md "Receipts"). Default: 0 on a development chain (sdk/dev: embeddedChain, devRpcChain,
     * `vai node`), where the provider and the user are the same developer, so a claim settles right after
     * close; DEFAULT_RECEIPT_WINDOW_S (an hour) on any other chain.
     */
    receiptWindow?: number;
    /** false: register no segment verifier, so long sessions cannot settle (tests of that path). */
    segments?: boolean;
    /**
     * Records a segment for the segment verifiers: each predicate's built segment circuit of that size (none for
     * a predicate without one). Default: the largest built per predicate, as the escrow takes one. Tests and the
     * demo name their size, so that a tree where the benchmark built 1,024-record segments deploys the same.
     */
    segmentSize?: number;
  } = {},
): Promise<ZkVaiDeployment> {
  const manifest = loadManifest();
  const circuits = claimCircuits(manifest);
  if (!circuits.length)
    throw new Error(
      "the manifest lists no whole-claim circuit (the escrow needs one; segment circuits alone do not deploy): run `npm run setup -- --group test`",
    );
  const checkpointInterval = opts.checkpointInterval ?? CHECKPOINT_INTERVAL;
  const receiptWindow = opts.receiptWindow ?? defaultReceiptWindow(chain);
  // Each circuit must fold exactly the entries the budget lets a session of its capacity reach, or the escrow's
  // constructor reverts (CheckpointsMismatch). Checked here first, so a stale build spends no gas.
  const planned = circuits.map(([name, c]) => {
    const capacity = capacityOfDepth(Number(c.params.depth));
    const checkpoints = Number(c.params.checkpoints);
    const slots = checkpointSlots(capacity, checkpointInterval);
    if (checkpoints !== slots)
      throw new Error(
        `circuit ${name} folds ${checkpoints} checkpoints, but a session of ${capacity} records takes ${slots} under a checkpoint every ${checkpointInterval} records: rebuild the circuits (\`npm run setup\`)`,
      );
    return { name, c, capacity, checkpoints };
  });
  const poseidon = await deployPoseidon3(chain, deployer);
  const verifiers: DeployedVerifier[] = [];
  const verifierGas: Record<string, bigint> = {};
  for (const { name, c, capacity, checkpoints } of planned) {
    const v = await deployContract(chain, deployer, c.verifierContract);
    verifierGas[name] = v.gasUsed;
    verifiers.push({
      circuit: name,
      predicate: c.predicate,
      capacity,
      checkpoints,
      address: v.address,
      vkeySha256: c.files.vkey.sha256,
    });
  }
  // One segment verifier per predicate: the manifest's segment circuit of that predicate, of the size asked
  // for or the largest built.
  const segmentVerifiers: DeployedSegmentVerifier[] = [];
  const built = opts.segments === false ? [] : segmentCircuits(manifest);
  const sized =
    opts.segmentSize === undefined
      ? built
      : built.filter(([, c]) => capacityOfDepth(Number(c.params.depth)) === opts.segmentSize);
  if (opts.segmentSize !== undefined && sized.length === 0)
    throw new Error(
      `no segment circuit of ${opts.segmentSize} records is built (built: ${built.map(([n]) => n).join(", ") || "none"}): run \`npm run setup\``,
    );
  const largest = new Map<string, [string, (typeof circuits)[number][1]]>();
  for (const [name, c] of sized) {
    const seen = largest.get(c.predicate);
    if (!seen || Number(seen[1].params.depth) < Number(c.params.depth)) largest.set(c.predicate, [name, c]);
  }
  for (const [name, c] of largest.values()) {
    const segmentSize = capacityOfDepth(Number(c.params.depth));
    const checkpoints = Number(c.params.checkpoints);
    if (checkpoints !== checkpointSlots(segmentSize, checkpointInterval))
      throw new Error(
        `segment circuit ${name} folds ${checkpoints} entries a segment, not checkpointSlots(${segmentSize}) under a checkpoint every ${checkpointInterval} records: rebuild the circuits (\`npm run setup\`)`,
      );
    const v = await deployContract(chain, deployer, c.verifierContract);
    verifierGas[name] = v.gasUsed;
    segmentVerifiers.push({
      circuit: name,
      predicate: c.predicate,
      segmentSize,
      checkpoints,
      address: v.address,
      vkeySha256: c.files.vkey.sha256,
    });
  }
  const segments: SegmentEntry[] = segmentVerifiers.map((v) => ({
    predicateId: predicateById(v.predicate).code,
    segmentSize: v.segmentSize,
    checkpoints: v.checkpoints,
    verifier: v.address,
  }));
  const registry = verifiers.map((v) => ({
    predicateId: predicateById(v.predicate).code,
    capacity: v.capacity,
    checkpoints: v.checkpoints,
    verifier: v.address,
  }));
  const escrow = await deployEscrow(chain, deployer, {
    poseidon3: poseidon.address,
    checkpointInterval,
    receiptWindow,
    registry,
    segments,
  });
  const startBlock = await chain.publicClient.getBlockNumber();
  const record: Deployment = {
    version: 2,
    chainId: chain.chainId,
    rpcUrl: opts.rpcUrl ?? "",
    escrow: escrow.address,
    fromBlock: Number(startBlock),
    poseidon3: poseidon.address,
    checkpointInterval,
    receiptWindow,
    verifiers,
    segmentVerifiers,
    manifestSha256: manifestSha256(),
    deployer: deployer.account.address,
    deployedAt: new Date().toISOString(),
  };
  return {
    escrow: await EscrowClient.connect(chain, escrow.address, deployer, { fromBlock: startBlock }),
    record,
    gas: { poseidon3: poseidon.gasUsed, escrow: escrow.gasUsed, verifiers: verifierGas },
  };
}

/** The receipt window a deployment gets unless told: none on a development chain, an hour elsewhere. */
export function defaultReceiptWindow(chain: ChainHandle): number {
  // Development handles carry a test client (sdk/dev): their clock is the developer's to move.
  return "testClient" in chain ? 0 : DEFAULT_RECEIPT_WINDOW_S;
}
