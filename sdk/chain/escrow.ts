// The one chain layer: viem clients over Hardhat's in-process network or any JSON-RPC node, artifact loading,
// deployment, and a typed client for contracts/Escrow.sol. Everything else talks to the chain through here.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  custom,
  defineChain,
  getAddress,
  isAddressEqual,
  http,
  keccak256,
  parseEventLogs,
  toHex,
  type Abi,
  type Account,
  type Address,
  type Chain,
  type EIP1193RequestFn,
  type Hex,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const HARDHAT_CONFIG = path.join(REPO_ROOT, "hardhat.config.cjs");
export const ARTIFACTS_DIR = path.join(REPO_ROOT, "build", "hardhat", "artifacts");
const COMPILE_HINT = "run `npx hardhat compile --config hardhat.config.cjs` (or `npm run setup`) first";

export type Wallet = WalletClient<Transport, Chain, Account>;

export interface ChainHandle {
  publicClient: PublicClient<Transport, Chain>;
  testClient: TestClient<"hardhat", Transport, Chain>;
  /** One client per unlocked account of the node, in the node's order (Hardhat's default accounts). */
  wallets: Wallet[];
  chainId: number;
}

// ------------------------------------------------------------------------------------------------ networks

function localChain(id: number, url: string): Chain {
  return defineChain({
    id,
    name: id === 31337 ? "hardhat" : `local-${id}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
}

async function handleFor(transport: Transport, url: string, pollingInterval: number): Promise<ChainHandle> {
  const probe = createPublicClient({ transport, pollingInterval });
  const chainId = await probe.getChainId();
  const chain = localChain(chainId, url);
  const publicClient = createPublicClient({ chain, transport, pollingInterval });
  const testClient = createTestClient({ mode: "hardhat", chain, transport, pollingInterval });
  // Public RPC endpoints hold no accounts, and some refuse eth_accounts outright: then there is no unlocked wallet.
  const addresses = await createWalletClient({ chain, transport })
    .getAddresses()
    .catch(() => [] as Address[]);
  const wallets = addresses.map((account) =>
    createWalletClient({ chain, transport, account, pollingInterval }),
  );
  return { publicClient, testClient, wallets, chainId };
}

/**
 * Hardhat 2 reports a revert it can trace as a bare SolidityError (message, `data`, no RPC `code`), which viem
 * files as an "unknown RPC error" and never decodes. Giving it EIP-1474's "execution reverted" code (3) lets
 * viem decode the custom error against the ABI, so messages name it (e.g. "TooManyCheckpoints(uint32 max)").
 */
function withRevertCode(request: EIP1193RequestFn): EIP1193RequestFn {
  return (async (args: Parameters<EIP1193RequestFn>[0]) => {
    try {
      return await request(args);
    } catch (e) {
      const err = e as { code?: unknown; data?: unknown };
      if (err && typeof err === "object" && err.code === undefined && typeof err.data === "string")
        err.code = 3;
      throw e;
    }
  }) as EIP1193RequestFn;
}

let embedded: Promise<ChainHandle> | undefined;

/**
 * Hardhat's in-process network. It is one chain per process (Hardhat keeps a singleton runtime), so every call
 * returns the same handle; isolate tests with `testClient.snapshot()` / `revert()`.
 */
export function embeddedChain(): Promise<ChainHandle> {
  embedded ??= (async () => {
    // Hardhat finds its config by walking up from the cwd; pin it so scripts and tests run from anywhere.
    process.env.HARDHAT_CONFIG ??= HARDHAT_CONFIG;
    process.env.HARDHAT_NETWORK ??= "hardhat";
    // Dynamic import: Hardhat is CommonJS and slow to load, and rpcChain() users never need it.
    const hre = (await import("hardhat")).default;
    const provider = hre.network.provider as unknown as { request: EIP1193RequestFn };
    // No retries: in-process there is no flaky network, and viem would retry every revert with backoff (~1 s).
    const transport = custom({ request: withRevertCode(provider.request.bind(provider)) }, { retryCount: 0 });
    return handleFor(transport, "http://127.0.0.1:8545", 10);
  })();
  return embedded;
}

/** An external JSON-RPC node, e.g. `npx hardhat node --config hardhat.config.cjs`. */
export function rpcChain(url: string): Promise<ChainHandle> {
  return handleFor(http(url), url, 250);
}

/**
 * A wallet that signs locally with `privateKey` and sends raw transactions through `chain`'s own client: the way
 * to send on a chain whose node holds no unlocked account (any public chain), or as an account of one's choice.
 */
export function privateKeyWallet(chain: ChainHandle, privateKey: Hex): Wallet {
  const account = privateKeyToAccount(privateKey);
  const { publicClient } = chain;
  // The public client already retries per its transport; a second layer of retries would multiply them.
  const transport = custom({ request: publicClient.request }, { retryCount: 0 });
  return createWalletClient({
    chain: publicClient.chain,
    transport,
    account,
    pollingInterval: publicClient.pollingInterval,
  });
}

// ------------------------------------------------------------------------------------------------ artifacts

export interface Artifact {
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
}

async function findArtifactFiles(dir: string, file: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "build-info" ? [] : findArtifactFiles(p, file);
      return e.name === file ? [p] : [];
    }),
  );
  return nested.flat();
}

/** `build/hardhat/artifacts/**\/<name>.json`; a name compiled from two sources is an error, not a guess. */
export async function readArtifact(name: string): Promise<Artifact> {
  const files = await findArtifactFiles(ARTIFACTS_DIR, `${name}.json`);
  if (files.length === 0)
    throw new Error(`artifact ${name} not found under ${ARTIFACTS_DIR}: ${COMPILE_HINT}`);
  if (files.length > 1) throw new Error(`artifact ${name} is ambiguous: ${files.join(", ")}`);
  const { contractName, sourceName, abi, bytecode } = JSON.parse(
    await readFile(files[0], "utf8"),
  ) as Artifact;
  return { contractName, sourceName, abi, bytecode };
}

// ------------------------------------------------------------------------------------------------ deployment

export interface Deployed {
  address: Address;
  gasUsed: bigint;
}

async function receiptOf(chain: ChainHandle, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

async function deployRaw(
  chain: ChainHandle,
  wallet: Wallet,
  abi: Abi,
  bytecode: Hex,
  args: readonly unknown[],
) {
  const hash = await wallet.deployContract({ abi, bytecode, args });
  const receipt = await receiptOf(chain, hash);
  if (!receipt.contractAddress) throw new Error(`deployment ${hash} created no contract`);
  return { address: getAddress(receipt.contractAddress), gasUsed: receipt.gasUsed };
}

export async function deployContract(
  chain: ChainHandle,
  wallet: Wallet,
  name: string,
  args: readonly unknown[] = [],
): Promise<Deployed> {
  const { abi, bytecode } = await readArtifact(name);
  return deployRaw(chain, wallet, abi, bytecode, args);
}

/** The `poseidon(uint256[3])` overload both Poseidon(3) contracts expose (circomlibjs' and PoseidonT4.sol). */
export const POSEIDON3_ABI = [
  {
    type: "function",
    name: "poseidon",
    stateMutability: "pure",
    inputs: [{ name: "input", type: "uint256[3]" }],
    outputs: [{ name: "", type: "uint256" }],
  },
] as const;

interface PoseidonGen {
  createCode(nInputs: number): string;
  generateABI(nInputs: number): Abi;
}

/**
 * The escrow's Poseidon(3): contracts/PoseidonT4.sol, generated by scripts/gen-poseidon3.ts from circomlibjs'
 * optimised constants (the same generator family as the circuits', so they cannot drift; the parity test holds
 * it to sdk/core/hash.ts). About 24k gas a hash, against 45k for circomlibjs' bytecode.
 */
export async function deployPoseidon3(chain: ChainHandle, wallet: Wallet): Promise<Deployed> {
  return deployContract(chain, wallet, "PoseidonT4");
}

/** circomlibjs' `poseidon_gencontract` Poseidon(3): the reference the parity test and gas script compare with. */
export async function deployCircomlibPoseidon3(chain: ChainHandle, wallet: Wallet): Promise<Deployed> {
  // circomlibjs ships no types; a non-literal specifier keeps tsc from demanding them.
  const specifier = "circomlibjs";
  const { poseidonContract } = (await import(specifier)) as { poseidonContract: PoseidonGen };
  return deployRaw(chain, wallet, poseidonContract.generateABI(3), poseidonContract.createCode(3) as Hex, []);
}

/** One entry of the escrow's verifier registry: the circuit (predicate, capacity, checkpoints) a verifier serves. */
export interface VerifierEntry {
  predicateId: number;
  capacity: number;
  checkpoints: number;
  verifier: Address;
}

/**
 * Deploys an Escrow whose verifiers are `registry`, fixed for its lifetime: promises name a predicate and
 * settle() calls that predicate's smallest fitting verifier from here, never an address a provider gave.
 * Entries are sorted here by (predicate, capacity), as the constructor requires.
 */
export async function deployEscrow(
  chain: ChainHandle,
  wallet: Wallet,
  opts: { poseidon3: Address; maxCheckpoints: number; registry: readonly VerifierEntry[] },
): Promise<Deployed> {
  const registry = [...opts.registry].sort(
    (a, b) => a.predicateId - b.predicateId || a.capacity - b.capacity,
  );
  return deployContract(chain, wallet, "Escrow", [opts.poseidon3, opts.maxCheckpoints, registry]);
}

/**
 * A session id the escrow accepts from `provider`: its address in the top 20 bytes, then 12 bytes of `label`'s
 * keccak (random when no label is given). The escrow refuses an id whose top bytes are another account's, so a
 * copied openSession transaction cannot take a provider's id.
 */
export function scopedSessionId(provider: Address, label?: string): Hex {
  const tail = label === undefined ? toHex(randomBytes(12)) : keccak256(toHex(label)).slice(0, 26);
  return `${provider.toLowerCase()}${tail.slice(2)}` as Hex;
}

/** The provider a session id is scoped to (its top 20 bytes). */
export function sessionIdProvider(sessionId: Hex): Address {
  return getAddress(sessionId.slice(0, 42));
}

// ------------------------------------------------------------------------------------------------ escrow client

export enum ClaimStatus {
  None = 0,
  Open = 1,
  Settled = 2,
  Defaulted = 3,
}

export interface PromiseInfo {
  provider: Address;
  predicateId: number;
  nonce: bigint;
  paramsHash: bigint;
  profileHash: bigint;
  payout: bigint;
  reserve: bigint;
  capacities: readonly number[];
  verifiers: readonly Address[];
  /** Block time of retirePromise; 0n while the promise is active. */
  retiredAt: bigint;
  retiredNonce: bigint;
  /** Claims filed and not yet settled, defaulted or withdrawn. */
  openClaims: number;
  reserveWithdrawn: boolean;
}

export interface SessionInfo {
  provider: Address;
  user: Address;
  profileHash: bigint;
  lastN: number;
  checkpointCount: number;
  acc: bigint;
  closed: boolean;
  finalN: number;
  finalRoot: bigint;
  closedAt: bigint;
  nonce: bigint;
}

export interface ClaimInfo {
  sessionId: Hex;
  promiseId: bigint;
  claimant: Address;
  bond: bigint;
  filedAt: bigint;
  status: ClaimStatus;
}

export interface TxResult {
  gasUsed: bigint;
  txHash: Hex;
}

type Sent<T> = Promise<TxResult & T>;

/** What settle() and claimDefault() credited, and to whom (withdrawn later with withdraw()). */
export interface Payment {
  beneficiary: Address;
  amount: bigint;
}

/** [a0, a1, b00, b01, b10, b11, c0, c1], as snarkjs `exportSolidityCallData` orders them. */
export type ProofWords = readonly bigint[];

export type PublicInputs = readonly [bigint, bigint, bigint, bigint, bigint, bigint];

export interface RegisterPromiseArgs {
  predicateId: number;
  paramsHash: bigint;
  profileHash: bigint;
  payout: bigint;
  /** Initial reserve, at least `payout`; defaults to `payout`. */
  value?: bigint;
}

export class EscrowClient {
  private constructor(
    readonly chain: ChainHandle,
    readonly address: Address,
    readonly abi: Abi,
    readonly wallet: Wallet | undefined,
    /** First block worth scanning for logs (the deployment block, when known). */
    readonly fromBlock: bigint,
  ) {}

  static async connect(
    chain: ChainHandle,
    address: Address,
    wallet?: Wallet,
    opts: { fromBlock?: bigint } = {},
  ): Promise<EscrowClient> {
    const { abi } = await readArtifact("Escrow");
    return new EscrowClient(chain, address, abi, wallet, opts.fromBlock ?? 0n);
  }

  /** The same escrow, sending from another account (e.g. the user rather than the provider). */
  as(wallet: Wallet): EscrowClient {
    return new EscrowClient(this.chain, this.address, this.abi, wallet, this.fromBlock);
  }

  // -------------------------------------------------------------------------------------------- writes
  // Each returns the gas, the hash and the values of the event the call emits.

  registerPromise(a: RegisterPromiseArgs): Sent<{ promiseId: bigint; nonce: bigint; reserve: bigint }> {
    const args = [a.predicateId, a.paramsHash, a.profileHash, a.payout];
    return this.send("registerPromise", args, "PromiseRegistered", a.value ?? a.payout);
  }

  fund(promiseId: bigint, value: bigint): Sent<{ amount: bigint; reserve: bigint }> {
    return this.send("fund", [promiseId], "PromiseFunded", value);
  }

  openSession(sessionId: Hex, user: Address, profileHash: bigint): Sent<{ nonce: bigint }> {
    return this.send("openSession", [sessionId, user, profileHash], "SessionOpened");
  }

  checkpoint(sessionId: Hex, n: number, root: bigint): Sent<{ n: number; root: bigint; acc: bigint }> {
    return this.send("checkpoint", [sessionId, n, root], "Checkpointed");
  }

  closeSession(
    sessionId: Hex,
    n: number,
    root: bigint,
  ): Sent<{ finalN: number; finalRoot: bigint; acc: bigint }> {
    return this.send("closeSession", [sessionId, n, root], "SessionClosed");
  }

  fileClaim(sessionId: Hex, promiseId: bigint, bond: bigint): Sent<{ claimId: bigint; bond: bigint }> {
    return this.send("fileClaim", [sessionId, promiseId], "ClaimFiled", bond);
  }

  settle(claimId: bigint, proof: ProofWords, violated: boolean): Sent<Payment & { violated: boolean }> {
    if (proof.length !== 8) throw new RangeError(`a proof is 8 words, got ${proof.length}`);
    return this.send("settle", [claimId, proof, violated], "ClaimSettled");
  }

  claimDefault(claimId: bigint): Sent<Payment> {
    return this.send("claimDefault", [claimId], "ClaimDefaulted");
  }

  /** The claimant takes its bond back from a claim the reserve cannot pay (after the proof window). */
  /** Provider only: ends new coverage; claims on earlier sessions close 30 days later at the latest. */
  retirePromise(promiseId: bigint): Sent<{ retiredAt: bigint; nonce: bigint }> {
    return this.send("retirePromise", [promiseId], "PromiseRetired");
  }

  /** Provider only, once, 30 days after retirement with no claim open: credits the rest of the reserve. */
  withdrawReserve(promiseId: bigint): Sent<{ provider: Address; amount: bigint }> {
    return this.send("withdrawReserve", [promiseId], "ReserveWithdrawn");
  }

  withdraw(): Sent<{ account: Address; amount: bigint }> {
    return this.send("withdraw", [], "Withdrawn");
  }

  // -------------------------------------------------------------------------------------------- reads

  async promise(promiseId: bigint): Promise<PromiseInfo> {
    return (await this.read("getPromise", [promiseId])) as PromiseInfo;
  }

  async session(sessionId: Hex): Promise<SessionInfo> {
    return (await this.read("getSession", [sessionId])) as SessionInfo;
  }

  async claim(claimId: bigint): Promise<ClaimInfo> {
    const c = (await this.read("getClaim", [claimId])) as Omit<ClaimInfo, "status"> & { status: number };
    return { ...c, status: c.status as ClaimStatus };
  }

  async credits(account: Address): Promise<bigint> {
    return (await this.read("credits", [account])) as bigint;
  }

  /** The promise's reserve not earmarked for open claims: a new claim needs at least the payout. */
  async availableReserve(promiseId: bigint): Promise<bigint> {
    return (await this.read("availableReserve", [promiseId])) as bigint;
  }

  /** The registry's verifiers for a predicate, by ascending capacity (fixed when the escrow was deployed). */
  async verifierSet(predicateId: number): Promise<{ capacities: number[]; verifiers: Address[] }> {
    const [capacities, verifiers] = (await this.read("verifierSet", [predicateId])) as [
      readonly number[],
      readonly Address[],
    ];
    return { capacities: [...capacities], verifiers: [...verifiers] };
  }

  async pair(sessionId: Hex, promiseId: bigint): Promise<{ openClaimId: bigint; resolved: boolean }> {
    const [openClaimId, resolved] = (await this.read("pairOf", [sessionId, promiseId])) as [bigint, boolean];
    return { openClaimId, resolved };
  }

  /** Last second (inclusive) at which the pair can be claimed; null while unbounded (no close, no retirement). */
  async claimDeadline(sessionId: Hex, promiseId: bigint): Promise<bigint | null> {
    const d = (await this.read("claimDeadline", [sessionId, promiseId])) as bigint;
    return d === 2n ** 256n - 1n ? null : d;
  }

  async context(sessionId: Hex, promiseId: bigint): Promise<bigint> {
    return (await this.read("contextOf", [sessionId, promiseId])) as bigint;
  }

  /** Exactly what settle() passes to the verifier: [context, finalRoot, finalN, acc, paramsHash, violated]. */
  async publicInputs(claimId: bigint, violated: boolean): Promise<PublicInputs> {
    return (await this.read("publicInputsOf", [claimId, violated])) as PublicInputs;
  }

  async verifierOf(claimId: bigint): Promise<{ verifier: Address; capacity: number }> {
    const [verifier, capacity] = (await this.read("verifierOf", [claimId])) as [Address, number];
    return { verifier, capacity };
  }

  /** The session's checkpoints in chain order, from `Checkpointed` logs (storage keeps only their fold). */
  async checkpointsOf(sessionId: Hex): Promise<{ n: number; root: bigint; acc: bigint }[]> {
    const logs = await this.chain.publicClient.getContractEvents({
      address: this.address,
      abi: this.abi,
      eventName: "Checkpointed",
      args: { sessionId },
      fromBlock: this.fromBlock,
      toBlock: "latest",
    });
    return logs
      .sort((x, y) => Number(x.blockNumber - y.blockNumber) || x.logIndex - y.logIndex)
      .map((l) => {
        const a = l.args as { n: number; root: bigint; acc: bigint };
        return { n: a.n, root: a.root, acc: a.acc };
      });
  }

  // -------------------------------------------------------------------------------------------- plumbing

  private read(functionName: string, args: readonly unknown[]): Promise<unknown> {
    return this.chain.publicClient.readContract({ address: this.address, abi: this.abi, functionName, args });
  }

  /**
   * No eth_call simulation first: Hardhat runs calls at the latest block's time, not at a time set with
   * setNextBlockTimestamp, so a simulation would misjudge time fences. A revert still surfaces as viem's
   * ContractFunctionExecutionError naming the custom error (e.g. "TooManyCheckpoints(uint32 max)"), from gas
   * estimation or from the automined transaction.
   */
  private async send<T>(
    functionName: string,
    args: readonly unknown[],
    eventName: string,
    value?: bigint,
  ): Sent<T> {
    const wallet = this.wallet;
    if (!wallet) throw new Error(`EscrowClient.${functionName} needs a wallet: use .as(wallet)`);
    const { address, abi } = this;
    const hash = await wallet.writeContract({ address, abi, functionName, args, value });
    const receipt = await receiptOf(this.chain, hash);
    const logs = parseEventLogs({ abi, logs: receipt.logs, eventName }).filter((l) =>
      isAddressEqual(l.address, address),
    );
    if (logs.length !== 1) throw new Error(`expected one ${eventName} in ${hash}`);
    return { gasUsed: receipt.gasUsed, txHash: hash, ...(logs[0].args as T) };
  }
}
