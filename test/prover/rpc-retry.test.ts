// Outages versus answers: what the watcher retries and what it takes as the node's (or contract's) word.
import {
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  encodeErrorResult,
  HttpRequestError,
  InternalRpcError,
  TimeoutError,
  UnknownRpcError,
  zeroAddress,
} from "viem";
import { describe, expect, it } from "vitest";
import { TraceMismatchError } from "../../prover/claims.js";
import {
  backoffMs,
  isTransportError,
  revertName,
  RpcUnavailableError,
  withRpcRetry,
} from "../../prover/rpc-retry.js";
import { deployEscrow, deployPoseidon3, EscrowClient } from "../../sdk/chain/escrow.js";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { readArtifact } from "../../sdk/chain/artifacts.js";
import { memoryLogger } from "../../sdk/provider/log.js";

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8545"), { code: "ECONNREFUSED" });

async function escrowRevert(errorName: string, args: unknown[]) {
  const { abi } = await readArtifact("Escrow");
  const data = encodeErrorResult({ abi, errorName, args });
  const reverted = new ContractFunctionRevertedError({ abi, data, functionName: "settle" });
  return new ContractFunctionExecutionError(reverted, {
    abi,
    functionName: "settle",
    args: [5n, Array(8).fill(0n), false],
    contractAddress: zeroAddress,
  });
}

describe("isTransportError", () => {
  it("takes unreachable or failing nodes as outages, however viem wraps them", () => {
    const url = "http://127.0.0.1:8545";
    expect(isTransportError(new HttpRequestError({ url, status: 502 }))).toBe(true);
    expect(isTransportError(new TimeoutError({ body: {}, url }))).toBe(true);
    expect(isTransportError(new UnknownRpcError(refused()))).toBe(true);
    expect(isTransportError(new TypeError("fetch failed", { cause: refused() }))).toBe(true);
    expect(isTransportError(new InternalRpcError(new Error("upstream unavailable")))).toBe(true);
  });

  it("takes reverts and local errors as answers, not outages", async () => {
    const revert = await escrowRevert("ClaimNotOpen", [5n]);
    expect(revertName(revert)).toBe("ClaimNotOpen");
    expect(isTransportError(revert)).toBe(false);
    // A node reporting a revert as an internal error is still reporting a revert.
    expect(isTransportError(new InternalRpcError(new Error("execution reverted: InvalidProof()")))).toBe(
      false,
    );
    expect(isTransportError(new TraceMismatchError("final root differs"))).toBe(false);
    expect(isTransportError(new Error("boom"))).toBe(false);
    expect(revertName(new HttpRequestError({ url: "http://x" }))).toBeUndefined();
  });
});

describe("a real escrow revert", () => {
  it("reaches the watcher as the contract's error name, not as an outage", async () => {
    const chain = await embeddedChain();
    const deployer = chain.wallets[0];
    const poseidon3 = (await deployPoseidon3(chain, deployer)).address;
    const { address } = await deployEscrow(chain, deployer, {
      poseidon3,
      checkpointInterval: 10,
      registry: [],
    });
    const escrow = await EscrowClient.connect(chain, address, deployer);
    const error = await escrow.settle(999n, Array(8).fill(1n), false).catch((e: unknown) => e);
    expect(revertName(error)).toBe("ClaimNotOpen");
    expect(isTransportError(error)).toBe(false);
  });
});

describe("withRpcRetry", () => {
  const policy = { initialMs: 1, maxMs: 4, maxAttempts: 4 };

  it("retries outages with doubling, capped delays and logs each, then succeeds", async () => {
    const log = memoryLogger();
    let calls = 0;
    const value = await withRpcRetry(
      "getBlockNumber",
      async () => {
        if (++calls < 4) throw new UnknownRpcError(refused());
        return 7n;
      },
      { policy, log },
    );
    expect(value).toBe(7n);
    expect(log.entries.map((e) => [e.event, e.fields.attempt, e.fields.delayMs])).toEqual([
      ["rpc.retry", 1, 1],
      ["rpc.retry", 2, 2],
      ["rpc.retry", 3, 4],
    ]);
    expect(backoffMs(policy, 10)).toBe(4);
  });

  it("gives up after maxAttempts with RpcUnavailableError, and passes answers through at once", async () => {
    const log = memoryLogger();
    const down = withRpcRetry("getLogs", () => Promise.reject(refused()), { policy, log });
    await expect(down).rejects.toThrow(RpcUnavailableError);
    await expect(down).rejects.toThrow(/getLogs: the RPC node failed 4 times/);
    expect(log.entries).toHaveLength(3);

    let calls = 0;
    const revert = await escrowRevert("ProofWindowClosed", [1n]);
    const answered = withRpcRetry("settle", () => (calls++, Promise.reject(revert)), { policy, log });
    await expect(answered).rejects.toBe(revert);
    expect(calls).toBe(1);
  });

  it("stops retrying once aborted", async () => {
    const stop = new AbortController();
    let calls = 0;
    const op = () => {
      if (++calls === 2) stop.abort(new Error("stopping"));
      return Promise.reject(refused());
    };
    const run = withRpcRetry("getBlock", op, { policy, log: memoryLogger(), signal: stop.signal });
    await expect(run).rejects.toThrow(/stopping|ECONNREFUSED/);
    expect(calls).toBe(2);
  });
});
