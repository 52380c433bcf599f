// Chain handles: viem clients over any JSON-RPC node, and wallets that sign locally. Hardhat's in-process
// network and the test client (time travel, snapshots) live in the development entry point (sdk/dev), so a
// provider's production code never loads Hardhat.
import {
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  http,
  type Account,
  type Address,
  type Chain,
  type EIP1193RequestFn,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";

export type Wallet = WalletClient<Transport, Chain, Account>;

export interface ChainHandle {
  publicClient: PublicClient<Transport, Chain>;
  /** One client per unlocked account of the node, in the node's order (Hardhat's default accounts). */
  wallets: Wallet[];
  chainId: number;
}

function localChain(id: number, url: string): Chain {
  return defineChain({
    id,
    name: id === 31337 ? "hardhat" : `local-${id}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
}

/** The handle for a transport; exported for sdk/dev, which wraps Hardhat's provider in one. */
export async function handleFor(
  transport: Transport,
  url: string,
  pollingInterval: number,
): Promise<ChainHandle> {
  const probe = createPublicClient({ transport, pollingInterval });
  const chainId = await probe.getChainId();
  const chain = localChain(chainId, url);
  const publicClient = createPublicClient({ chain, transport, pollingInterval });
  // Public RPC endpoints hold no accounts, and some refuse eth_accounts outright: then there is no unlocked wallet.
  const addresses = await createWalletClient({ chain, transport })
    .getAddresses()
    .catch(() => [] as Address[]);
  const wallets = addresses.map((account) =>
    createWalletClient({ chain, transport, account, pollingInterval }),
  );
  return { publicClient, wallets, chainId };
}

/**
 * Hardhat 2 reports a revert it can trace as a bare SolidityError (message, `data`, no RPC `code`), which viem
 * files as an "unknown RPC error" and never decodes. Giving it EIP-1474's "execution reverted" code (3) lets
 * viem decode the custom error against the ABI, so messages name it (e.g. "CheckpointBudget(uint32 n, ...)").
 */
export function withRevertCode(request: EIP1193RequestFn): EIP1193RequestFn {
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

/** An external JSON-RPC node, e.g. `vai node` or any provider's endpoint. */
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
