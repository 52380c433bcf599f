// The artifacts pipeline's last stage: puts a zkVAI escrow on a chain. The on-chain Poseidon, one verifier per
// circuit of the manifest, and the Escrow, whose verifier registry is that set. Later, the deployer may add a
// predicate the escrow does not serve yet, from the manifest (appendPredicateFromManifest); no entry, once
// written, ever changes.
import { isAddressEqual } from "viem";
import {
  EscrowClient,
  deployEscrow,
  deployPoseidon3,
  type SegmentEntry,
  type VerifierEntry,
} from "../../sdk/chain/escrow.js";
import { deployContract } from "../../sdk/chain/artifacts.js";
import { type ChainHandle, type Wallet } from "../../sdk/chain/network.js";
import type { DeployedSegmentVerifier, DeployedVerifier, Deployment } from "../../sdk/chain/deployment.js";
import { predicateById } from "../../sdk/core/predicates/index.js";
import { capacityOfDepth } from "../../sdk/core/claim.js";
import { BuildMissingError, InputError } from "../../sdk/core/errors.js";
import {
  CHECKPOINT_INTERVAL,
  checkpointSlots,
  DEFAULT_RECEIPT_WINDOW_S,
} from "../../sdk/core/checkpoints.js";
import {
  claimCircuits,
  loadManifest,
  manifestSha256,
  segmentCircuits,
  type CircuitEntry,
  type Manifest,
} from "../../sdk/manifest/manifest.js";

/** What deploying returns: a client for the new escrow, the deployment's record, and what each step cost. */
export interface ZkVaiDeployment {
  escrow: EscrowClient;
  record: Deployment;
  gas: { poseidon3: bigint; escrow: bigint; verifiers: Record<string, bigint> };
}

/** Which segment circuits to deploy: none (false), or one per predicate, of `segmentSize` or the largest built. */
interface SegmentChoice {
  segments?: boolean;
  segmentSize?: number;
}

/**
 * The on-chain Poseidon, one verifier per circuit of the manifest, and the Escrow whose registry they are, with
 * the checkpoint budget's interval (CHECKPOINT_INTERVAL unless `checkpointInterval` says otherwise).
 * `rpcUrl` is recorded for later commands (empty for an in-process chain).
 */
export async function deployZkVai(
  chain: ChainHandle,
  deployer: Wallet,
  opts: SegmentChoice & {
    rpcUrl?: string;
    checkpointInterval?: number;
    /**
     * Seconds after close before a claim can be proven: the user's time to post a receipt the provider signed
     * (docs/PROTOCOL.md "Receipts"). Default: 0 on a development chain (sdk/dev: embeddedChain, devRpcChain,
     * `vai node`), where the provider and the user are the same developer, so a claim settles right after
     * close; DEFAULT_RECEIPT_WINDOW_S (an hour) on any other chain.
     */
    receiptWindow?: number;
    /**
     * The predicates served from the start ("AAP-1", …); default: every predicate the manifest has circuits for.
     * The others can be added later by the deployer (appendPredicateFromManifest).
     */
    predicates?: readonly string[];
    /**
     * segments false: register no segment verifier, so long sessions cannot settle (tests of that path).
     * segmentSize: records a segment for the segment verifiers: each predicate's built segment circuit of that
     * size (none for a predicate without one). Default: the largest built per predicate, as the escrow takes one.
     * Tests and the demo name their size, so that a tree where the benchmark built 1,024-record segments deploys
     * the same.
     */
  } = {},
): Promise<ZkVaiDeployment> {
  const manifest = loadManifest();
  const served = opts.predicates?.map((p) => predicateById(p).id);
  const circuits = claimCircuits(manifest).filter(([, c]) => !served || served.includes(c.predicate));
  if (!circuits.length)
    throw new BuildMissingError(
      `the manifest lists no whole-claim circuit${served ? ` of ${served.join(", ")}` : ""} (the escrow needs one; segment circuits alone do not deploy): run \`npm run setup -- --group test\``,
    );
  const checkpointInterval = opts.checkpointInterval ?? CHECKPOINT_INTERVAL;
  const receiptWindow = opts.receiptWindow ?? defaultReceiptWindow(chain);
  // Checked before anything is deployed, so a stale build spends no gas.
  const claimPlan = planClaimCircuits(circuits, checkpointInterval);
  const segmentPlan = planSegmentCircuits(manifest, checkpointInterval, opts, served);
  const poseidon = await deployPoseidon3(chain, deployer);
  const verifierGas: Record<string, bigint> = {};
  const verifiers = await deployVerifiers(chain, deployer, claimPlan, verifierGas);
  const segmentVerifiers = (await deployVerifiers(chain, deployer, segmentPlan, verifierGas)).map(asSegment);
  const escrow = await deployEscrow(chain, deployer, {
    poseidon3: poseidon.address,
    checkpointInterval,
    receiptWindow,
    registry: verifiers.map(registryEntry),
    segments: segmentVerifiers.map(segmentEntry),
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

/**
 * Adds `predicate` ("AAP-3", …) to a deployed escrow: deploys the verifiers of the manifest's circuits of that
 * predicate (every whole-claim one, and one segment circuit as deployZkVai picks it) and registers them with
 * appendPredicateVerifiers. `escrow` must send as the escrow's deployer (anyone else: NotDeployer), and the escrow
 * must serve no verifier of the predicate yet: its entries never change, so that every promise keeps the
 * verifiers it registered with (docs/PROTOCOL.md "Verifier registry"). Returns the deployment record with the new
 * verifiers (and the current manifest's sha256; each verifier keeps its own key's), for writeDeployment.
 */
export async function appendPredicateFromManifest(
  escrow: EscrowClient,
  record: Deployment,
  predicate: string,
  opts: SegmentChoice = {},
): Promise<{ record: Deployment; gas: { append: bigint; verifiers: Record<string, bigint> } }> {
  const wallet = escrow.wallet;
  if (!wallet)
    throw new InputError("appending verifiers needs the escrow deployer's wallet: use escrow.as(wallet)");
  if (!isAddressEqual(record.escrow, escrow.address))
    throw new InputError(`the deployment record names escrow ${record.escrow}, not ${escrow.address}`);
  // The escrow would refuse anyone else (NotDeployer): checked first, so no verifier is deployed for nothing.
  if (!isAddressEqual(record.deployer, wallet.account.address))
    throw new InputError(
      `only the escrow's deployer ${record.deployer} may append verifiers, not ${wallet.account.address}`,
    );
  const { id, code } = predicateById(predicate);
  const manifest = loadManifest();
  const interval = record.checkpointInterval;
  const claimPlan = planClaimCircuits(
    claimCircuits(manifest).filter(([, c]) => c.predicate === id),
    interval,
  );
  const segmentPlan = planSegmentCircuits(manifest, interval, opts, [id]);
  if (!claimPlan.length && !segmentPlan.length)
    throw new BuildMissingError(
      `the manifest lists no ${id} circuit: run \`npm run setup\` with ${id}'s circuits`,
    );
  // The escrow would refuse it (PredicateExists): checked first, so no verifier is deployed for nothing.
  const [set, segment] = await Promise.all([escrow.verifierSet(code), escrow.segmentVerifier(code)]);
  if (set.capacities.length || segment)
    throw new InputError(
      `escrow ${escrow.address} serves ${id} already: a predicate's verifiers never change, and only a predicate it does not serve can be appended`,
    );
  const gas: Record<string, bigint> = {};
  const verifiers = await deployVerifiers(escrow.chain, wallet, claimPlan, gas);
  const segmentVerifiers = (await deployVerifiers(escrow.chain, wallet, segmentPlan, gas)).map(asSegment);
  const appended = await escrow.appendPredicateVerifiers(
    code,
    verifiers.map(registryEntry),
    segmentVerifiers.map(segmentEntry)[0],
  );
  return {
    record: {
      ...record,
      verifiers: [...record.verifiers, ...verifiers],
      segmentVerifiers: [...record.segmentVerifiers, ...segmentVerifiers],
      manifestSha256: manifestSha256(),
    },
    gas: { append: appended.gasUsed, verifiers: gas },
  };
}

/** The receipt window a deployment gets unless told: none on a development chain, an hour elsewhere. */
export function defaultReceiptWindow(chain: ChainHandle): number {
  // Development handles carry a test client (sdk/dev): their clock is the developer's to move.
  return "testClient" in chain ? 0 : DEFAULT_RECEIPT_WINDOW_S;
}

/** A circuit to deploy a verifier of: its records (capacity, or records per segment) and fold entries. */
interface Planned {
  name: string;
  c: CircuitEntry;
  size: number;
  checkpoints: number;
}

/**
 * Each circuit must fold exactly the entries the budget lets a session of its capacity reach, or the escrow
 * reverts (CheckpointsMismatch).
 */
function planClaimCircuits(circuits: [string, CircuitEntry][], interval: number): Planned[] {
  return circuits.map(([name, c]) => {
    const size = capacityOfDepth(Number(c.params.depth));
    const checkpoints = Number(c.params.checkpoints);
    const slots = checkpointSlots(size, interval);
    if (checkpoints !== slots)
      throw new BuildMissingError(
        `circuit ${name} folds ${checkpoints} checkpoints, but a session of ${size} records takes ${slots} under a checkpoint every ${interval} records: rebuild the circuits (\`npm run setup\`)`,
      );
    return { name, c, size, checkpoints };
  });
}

/**
 * One segment verifier per predicate (of `predicates`, default all): the manifest's segment circuit of that
 * predicate, of the size asked for or the largest built.
 */
function planSegmentCircuits(
  manifest: Manifest,
  interval: number,
  opts: SegmentChoice,
  predicates?: readonly string[],
): Planned[] {
  const built =
    opts.segments === false
      ? []
      : segmentCircuits(manifest).filter(([, c]) => !predicates || predicates.includes(c.predicate));
  const sized =
    opts.segmentSize === undefined
      ? built
      : built.filter(([, c]) => capacityOfDepth(Number(c.params.depth)) === opts.segmentSize);
  if (opts.segmentSize !== undefined && sized.length === 0)
    throw new BuildMissingError(
      `no segment circuit of ${opts.segmentSize} records is built (built: ${built.map(([n]) => n).join(", ") || "none"}): run \`npm run setup\``,
    );
  const largest = new Map<string, [string, CircuitEntry]>();
  for (const [name, c] of sized) {
    const seen = largest.get(c.predicate);
    if (!seen || Number(seen[1].params.depth) < Number(c.params.depth)) largest.set(c.predicate, [name, c]);
  }
  return [...largest.values()].map(([name, c]) => {
    const size = capacityOfDepth(Number(c.params.depth));
    const checkpoints = Number(c.params.checkpoints);
    if (checkpoints !== checkpointSlots(size, interval))
      throw new BuildMissingError(
        `segment circuit ${name} folds ${checkpoints} entries a segment, not checkpointSlots(${size}) under a checkpoint every ${interval} records: rebuild the circuits (\`npm run setup\`)`,
      );
    return { name, c, size, checkpoints };
  });
}

/** Deploys each planned circuit's verifier, in order, recording its gas by circuit name. */
async function deployVerifiers(
  chain: ChainHandle,
  deployer: Wallet,
  planned: Planned[],
  gas: Record<string, bigint>,
): Promise<DeployedVerifier[]> {
  const deployed: DeployedVerifier[] = [];
  for (const { name, c, size, checkpoints } of planned) {
    const v = await deployContract(chain, deployer, c.verifierContract);
    gas[name] = v.gasUsed;
    deployed.push({
      circuit: name,
      predicate: c.predicate,
      capacity: size,
      checkpoints,
      address: v.address,
      vkeySha256: c.files.vkey.sha256,
    });
  }
  return deployed;
}

function asSegment({ capacity, ...v }: DeployedVerifier): DeployedSegmentVerifier {
  return {
    circuit: v.circuit,
    predicate: v.predicate,
    segmentSize: capacity,
    checkpoints: v.checkpoints,
    address: v.address,
    vkeySha256: v.vkeySha256,
  };
}

function registryEntry(v: DeployedVerifier): VerifierEntry {
  return {
    predicateId: predicateById(v.predicate).code,
    capacity: v.capacity,
    checkpoints: v.checkpoints,
    verifier: v.address,
  };
}

function segmentEntry(v: DeployedSegmentVerifier): SegmentEntry {
  return {
    predicateId: predicateById(v.predicate).code,
    segmentSize: v.segmentSize,
    checkpoints: v.checkpoints,
    verifier: v.address,
  };
}
