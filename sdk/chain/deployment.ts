// The deployment file: where one zkVAI escrow lives (chain, addresses, the block to scan logs from) and which
// circuits its verifiers were built from, so later commands can refuse a store, manifest or node that no
// longer matches it. Version 2 is protocol v2's escrow (checkpoint budget, receipts); a version 1 file names
// an escrow of protocol v1 (a fixed checkpoint cap, no receipts), which no v2 circuit or SDK can use, so it is
// refused with the way out rather than migrated: nothing in the file can turn that escrow into a v2 one.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getAddress, isAddress, type Address } from "viem";
import { InputError } from "../core/errors.js";

/** A deployment file that is missing, unreadable or malformed. */
export class DeploymentError extends InputError {
  static override readonly code: string = "BAD_DEPLOYMENT";
  override name = "DeploymentError";
}

export interface DeployedVerifier {
  circuit: string;
  predicate: string;
  capacity: number;
  /** Fold entries the circuit holds: the escrow's checkpointSlots(capacity). */
  checkpoints: number;
  address: Address;
  /** sha256 of the circuit's verification key when it was deployed (from the manifest). */
  vkeySha256: string;
}

/** A segment verifier (docs/PROTOCOL.md "Segmented settlement"): one per predicate, at most. */
export interface DeployedSegmentVerifier {
  circuit: string;
  predicate: string;
  /** Records per segment. */
  segmentSize: number;
  /** Fold entries each segment holds: the escrow's checkpointSlots(segmentSize). */
  checkpoints: number;
  address: Address;
  vkeySha256: string;
}

/** The one record of a deployment: written by `vai node` / `vai deploy`, read by every later command. */
export interface Deployment {
  version: 2;
  chainId: number;
  rpcUrl: string;
  escrow: Address;
  /** The escrow's deployment block: log scans start here. */
  fromBlock: number;
  poseidon3: Address;
  /** The escrow's CHECKPOINT_INTERVAL: the k-th checkpoint of a session needs more than interval·(k−1) records. */
  checkpointInterval: number;
  /** The escrow's RECEIPT_WINDOW (seconds): settle waits this long after a session's close. */
  receiptWindow: number;
  verifiers: DeployedVerifier[];
  /** The escrow's segment verifiers (none in files written before segmented settlement). */
  segmentVerifiers: DeployedSegmentVerifier[];
  /** sha256 of build/manifest.json as it was when the verifiers were deployed. */
  manifestSha256: string;
  deployer: Address;
  deployedAt: string;
}

export function writeDeployment(file: string, d: Deployment): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(d, null, 2) + "\n");
}

export function readDeployment(file: string): Deployment {
  if (!existsSync(file)) {
    throw new DeploymentError(
      `deployment file ${file} not found: run \`vai node\` or \`vai deploy\` first, or point VAI_DEPLOYMENT at one`,
    );
  }
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new DeploymentError(`deployment file ${file} is not readable JSON: ${(e as Error).message}`);
  }
  const bad = (what: string) => new DeploymentError(`deployment file ${file}: ${what}`);
  if (typeof raw !== "object" || raw === null) throw bad("expected a JSON object");
  if (raw.version === 1)
    throw bad(
      "version 1 names a protocol v1 escrow (a fixed checkpoint cap, no receipts), which this version cannot use: deploy a v2 escrow with `vai deploy --force` (or `vai node`)",
    );
  if (raw.version !== 2) throw bad(`expected version 2, found ${JSON.stringify(raw.version)}`);
  const address = (value: unknown, what: string): Address => {
    if (typeof value !== "string" || !isAddress(value, { strict: false }))
      throw bad(`${what} is not an address`);
    return getAddress(value);
  };
  const int = (value: unknown, what: string): number => {
    if (!Number.isSafeInteger(value) || (value as number) < 0) throw bad(`${what} is not an integer`);
    return value as number;
  };
  const positive = (value: unknown, what: string): number => {
    if (int(value, what) === 0) throw bad(`${what} is 0`);
    return value as number;
  };
  if (!Array.isArray(raw.verifiers)) throw bad("verifiers is not a list");
  if (raw.segmentVerifiers !== undefined && !Array.isArray(raw.segmentVerifiers))
    throw bad("segmentVerifiers is not a list");
  return {
    version: 2,
    chainId: int(raw.chainId, "chainId"),
    rpcUrl: typeof raw.rpcUrl === "string" ? raw.rpcUrl : "",
    escrow: address(raw.escrow, "escrow"),
    fromBlock: int(raw.fromBlock, "fromBlock"),
    poseidon3: address(raw.poseidon3, "poseidon3"),
    checkpointInterval: positive(raw.checkpointInterval, "checkpointInterval"),
    receiptWindow: int(raw.receiptWindow, "receiptWindow"),
    verifiers: (raw.verifiers as Record<string, unknown>[]).map((v, i) => ({
      circuit: String(v.circuit),
      predicate: String(v.predicate),
      capacity: int(v.capacity, `verifiers[${i}].capacity`),
      checkpoints: int(v.checkpoints, `verifiers[${i}].checkpoints`),
      address: address(v.address, `verifiers[${i}].address`),
      vkeySha256: String(v.vkeySha256 ?? ""),
    })),
    segmentVerifiers: ((raw.segmentVerifiers ?? []) as Record<string, unknown>[]).map((v, i) => ({
      circuit: String(v.circuit),
      predicate: String(v.predicate),
      segmentSize: positive(v.segmentSize, `segmentVerifiers[${i}].segmentSize`),
      checkpoints: int(v.checkpoints, `segmentVerifiers[${i}].checkpoints`),
      address: address(v.address, `segmentVerifiers[${i}].address`),
      vkeySha256: String(v.vkeySha256 ?? ""),
    })),
    manifestSha256: String(raw.manifestSha256 ?? ""),
    deployer: address(raw.deployer, "deployer"),
    deployedAt: String(raw.deployedAt ?? ""),
  };
}
