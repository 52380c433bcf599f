// From configuration to live handles: the node, the escrow of the deployment file, the account to send from,
// the trace store. Refuses (InputError) a node on another chain or without the escrow, before anything is sent.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { EscrowClient } from "../../sdk/chain/escrow.js";
import { privateKeyWallet, rpcChain, type ChainHandle, type Wallet } from "../../sdk/chain/network.js";
import { StoreSchemaError, TraceStore } from "../../sdk/provider/store.js";
import { isPostgresUrl, redactUrl } from "../../sdk/provider/store-postgres.js";
import { describeError, InputError } from "./common.js";
import { loadConfig, rpcUrlFor, type ConfigFlags, type VaiConfig } from "./config.js";
import { readDeployment, type Deployment } from "../../sdk/chain/deployment.js";
import { ZkvaiError } from "../../sdk/core/errors.js";

export type Role = "provider" | "user";

export function parseRole(value: string | undefined, fallback: Role): Role {
  if (value === undefined) return fallback;
  if (value !== "provider" && value !== "user") throw new InputError(`--as must be provider or user`);
  return value;
}

export interface Connection {
  config: VaiConfig;
  deployment: Deployment;
  rpcUrl: string;
  chain: ChainHandle;
  /** Sends as the chosen role when a wallet was asked for; read-only otherwise. */
  escrow: EscrowClient;
  wallet?: Wallet;
}

/** No JSON-RPC node answers at the configured URL (flags > environment > config file > deployment file). */
export class NodeUnreachableError extends ZkvaiError {
  static override readonly code: string = "NODE_UNREACHABLE";
  override name = "NodeUnreachableError";
}

export async function openChain(rpcUrl: string): Promise<ChainHandle> {
  try {
    return await rpcChain(rpcUrl);
  } catch (e) {
    throw new NodeUnreachableError(`cannot reach a JSON-RPC node at ${rpcUrl}: ${describeError(e)}`, {
      cause: e,
      details: { rpcUrl },
    });
  }
}

/** The account `role` sends from: its private key from the configuration, else the node's unlocked account. */
export function walletFor(chain: ChainHandle, config: VaiConfig, role: Role, rpcUrl: string): Wallet {
  const key = role === "provider" ? config.privateKey : config.userPrivateKey;
  if (key) return privateKeyWallet(chain, key);
  const index = role === "provider" ? 0 : 1;
  const wallet = chain.wallets[index];
  if (!wallet) {
    const env = role === "provider" ? "VAI_PRIVATE_KEY" : "VAI_USER_PRIVATE_KEY";
    throw new InputError(
      `no ${role} account: set ${env}, or use a node with at least ${index + 1} unlocked account(s) (${rpcUrl} has ${chain.wallets.length})`,
    );
  }
  return wallet;
}

export async function connect(
  flags: ConfigFlags,
  opts: { role?: Role; wallet: boolean },
): Promise<Connection> {
  // --as names who sends; a command that sends nothing refuses it rather than ignoring it.
  const as = (flags as { as?: string }).as;
  if (as !== undefined) {
    parseRole(as, "provider");
    if (!opts.wallet) throw new InputError(`--as names who sends a transaction, and this command sends none`);
  }
  const config = loadConfig(flags);
  const deployment = readDeployment(config.deployment);
  const rpcUrl = rpcUrlFor(config, deployment.rpcUrl || undefined);
  const chain = await openChain(rpcUrl);
  if (chain.chainId !== deployment.chainId) {
    throw new InputError(
      `${rpcUrl} is chain ${chain.chainId}, but deployment file ${config.deployment} is for chain ${deployment.chainId}`,
    );
  }
  const code = await chain.publicClient.getCode({ address: deployment.escrow });
  if (!code || code === "0x") {
    throw new InputError(
      `no contract at escrow ${deployment.escrow} on ${rpcUrl} (was the node restarted? deploy again with \`vai node\` or \`vai deploy\`)`,
    );
  }
  const wallet = opts.wallet ? walletFor(chain, config, opts.role ?? "provider", rpcUrl) : undefined;
  const escrow = await EscrowClient.connect(chain, deployment.escrow, wallet, {
    fromBlock: BigInt(deployment.fromBlock),
  });
  return { config, deployment, rpcUrl, chain, escrow, wallet };
}

/**
 * The provider's trace store: a SQLite file, or a Postgres database for a postgres:// URL. `create` makes a
 * missing file (and its folder); otherwise a missing file is undefined, so read-only commands do not leave an
 * empty database behind. A Postgres database is never made here: `vai store migrate` makes its schema.
 */
export function openStore(config: VaiConfig, create: true): TraceStore;
export function openStore(config: VaiConfig, create: false): TraceStore | undefined;
export function openStore(config: VaiConfig, create: boolean): TraceStore | undefined {
  if (!isPostgresUrl(config.store) && !existsSync(config.store)) {
    if (!create) return undefined;
    mkdirSync(path.dirname(config.store), { recursive: true });
  }
  try {
    return TraceStore.open(config.store);
  } catch (e) {
    // A schema behind this vai's is the user's to migrate: bad configuration, not a failure of the store.
    if (e instanceof StoreSchemaError) throw new InputError(e.message);
    // better-sqlite3 says "file is not a database" without naming the file.
    throw new InputError(`trace store ${storeName(config)}: ${(e as Error).message}`);
  }
}

/** The store's location for messages and output: a URL's password redacted. */
export function storeName(config: VaiConfig): string {
  return isPostgresUrl(config.store) ? redactUrl(config.store) : config.store;
}

/** Aborts on the first SIGINT or SIGTERM, which then no longer kill the process: the command winds down itself. */
export function abortOnSignals(): AbortController {
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  return stop;
}
