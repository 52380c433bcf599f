// Development chains: Hardhat's in-process network (the demo's and the tests' embedded chain) and a test client
// (snapshots, time travel) over it or over a `vai node`. Only this entry point loads Hardhat.
import {
  createTestClient,
  custom,
  http,
  type Chain,
  type EIP1193RequestFn,
  type TestClient,
  type Transport,
} from "viem";
import { hardhatConfigPath } from "../chain/locations.js";
import { handleFor, rpcChain, withRevertCode, type ChainHandle } from "../chain/network.js";

export interface DevChainHandle extends ChainHandle {
  testClient: TestClient<"hardhat", Transport, Chain>;
}

function withTestClient(handle: ChainHandle, transport: Transport): DevChainHandle {
  const { publicClient } = handle;
  const testClient = createTestClient({
    mode: "hardhat",
    chain: publicClient.chain,
    transport,
    pollingInterval: publicClient.pollingInterval,
  });
  return { ...handle, testClient };
}

let embedded: Promise<DevChainHandle> | undefined;

/**
 * Hardhat's in-process network. It is one chain per process (Hardhat keeps a singleton runtime), so every call
 * returns the same handle; isolate tests with `testClient.snapshot()` / `revert()`.
 */
export function embeddedChain(): Promise<DevChainHandle> {
  embedded ??= (async () => {
    // Hardhat finds its config by walking up from the cwd; pin the package's so it runs from anywhere.
    process.env.HARDHAT_CONFIG ??= hardhatConfigPath();
    process.env.HARDHAT_NETWORK ??= "hardhat";
    // Dynamic import: Hardhat is CommonJS and slow to load, and only development chains need it.
    const hre = (await import("hardhat")).default;
    const provider = hre.network.provider as unknown as { request: EIP1193RequestFn };
    // No retries: in-process there is no flaky network, and viem would retry every revert with backoff (~1 s).
    const transport = custom({ request: withRevertCode(provider.request.bind(provider)) }, { retryCount: 0 });
    return withTestClient(await handleFor(transport, "http://127.0.0.1:8545", 10), transport);
  })();
  return embedded;
}

/** A development node over JSON-RPC (`vai node`, `hardhat node`), with its test client. */
export async function devRpcChain(url: string): Promise<DevChainHandle> {
  return withTestClient(await rpcChain(url), http(url));
}
