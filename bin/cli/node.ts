// vai node / vai deploy: a local chain with zkVAI deployed on it, or zkVAI deployed onto a configured chain.
// Both write the deployment file every other command reads.
import { existsSync } from "node:fs";
import { formatEther } from "viem";
import { loadManifest, manifestPath } from "../../sdk/manifest/manifest.js";
import { checkoutBuilder } from "./setup.js";
import { DevNodeError, startHardhatNode } from "../../sdk/dev/hardhat-node.js";
import { ChainStateError } from "../../sdk/chain/escrow-errors.js";
import { Progress } from "../../prover/artifacts/progress.js";
import {
  CHAIN_OPTIONS,
  InputError,
  output,
  parseCommand,
  parseInteger,
  runCommand,
  type Command,
} from "./common.js";
import { USAGE } from "./usage.js";
import { loadConfig, rpcUrlFor } from "./config.js";
import { abortOnSignals, openChain, walletFor } from "./connect.js";
import { writeDeployment, type Deployment } from "../../sdk/chain/deployment.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { DEFAULT_RECEIPT_WINDOW_S } from "../../sdk/core/checkpoints.js";

export const nodeCommand: Command = {
  usage: USAGE.node,
  run: (argv) =>
    runCommand("node", USAGE.node, async () => {
      const { values } = parseCommand(argv, {
        port: { type: "string", default: "8545" },
        deployment: CHAIN_OPTIONS.deployment,
        config: CHAIN_OPTIONS.config,
        json: CHAIN_OPTIONS.json,
        verbose: { type: "boolean", default: false },
        // A local node is a developer's: claims settle right after close unless a window is asked for.
        "receipt-window": { type: "string", default: "0" },
      });
      const receiptWindow = parseInteger(values["receipt-window"]!, "--receipt-window", 0, 3 * 86_400 - 1);
      const port = parseInteger(values.port!, "--port", 1, 65535);
      const config = loadConfig({ deployment: values.deployment, config: values.config });
      // A fresh checkout has built nothing: the demo's circuits (about a minute) give a node whose promises
      // settle, AAP-4 by whole-claim proofs and AAP-3 by segments; `vai setup` builds the rest.
      const build = checkoutBuilder();
      if (!existsSync(manifestPath()) && build) {
        process.stderr.write(
          "vai node: no circuits built yet; building the demo group first (vai setup --group demo)\n",
        );
        await build(["--group", "demo"]);
      }
      loadManifest();
      // Before the node starts: a signal must stop it, never kill this process and orphan the node.
      const stop = abortOnSignals();
      const progress = new Progress({ total: 2 });
      const node = await progress.step(`start hardhat node on port ${port}`, () =>
        startHardhatNode({
          port,
          onLine: values.verbose ? (line) => process.stderr.write(`[node] ${line}\n`) : undefined,
        }),
      );
      if (stop.signal.aborted) return node.stop();
      stop.signal.addEventListener("abort", () => void node.stop());
      try {
        const chain = await openChain(node.url);
        const { record: file } = await progress.step("deploy Poseidon, verifiers and escrow", () =>
          deployZkVai(chain, chain.wallets[0], { rpcUrl: node.url, receiptWindow }),
        );
        writeDeployment(config.deployment, file);
        output(values.json, { ...file, deploymentFile: config.deployment }, () => [
          ...describeDeployment(file, config.deployment),
          `node: ${node.url} (pid ${node.pid}); Ctrl-C stops it`,
        ]);
      } catch (e) {
        await node.stop();
        if (stop.signal.aborted) return;
        throw e;
      }
      const code = await node.exited;
      // A terminal's Ctrl-C reaches the node too, and its exit may be seen before our own SIGINT handler runs.
      await new Promise((r) => setTimeout(r, 200));
      if (!stop.signal.aborted)
        throw new DevNodeError(`the hardhat node exited on its own (code ${code})`, {
          details: { exitCode: code },
        });
    }),
};

export const deployCommand: Command = {
  usage: USAGE.deploy,
  run: (argv) =>
    runCommand("deploy", USAGE.deploy, async () => {
      const { values } = parseCommand(argv, {
        "rpc-url": CHAIN_OPTIONS["rpc-url"],
        deployment: CHAIN_OPTIONS.deployment,
        config: CHAIN_OPTIONS.config,
        json: CHAIN_OPTIONS.json,
        force: { type: "boolean", default: false },
        "receipt-window": { type: "string", default: String(DEFAULT_RECEIPT_WINDOW_S) },
      });
      const receiptWindow = parseInteger(values["receipt-window"]!, "--receipt-window", 0, 3 * 86_400 - 1);
      const config = loadConfig(values);
      if (existsSync(config.deployment) && !values.force)
        throw new InputError(`deployment file ${config.deployment} exists; pass --force to replace it`);
      loadManifest();
      const rpcUrl = rpcUrlFor(config);
      const chain = await openChain(rpcUrl);
      const wallet = walletFor(chain, config, "provider", rpcUrl);
      const balance = await chain.publicClient.getBalance({ address: wallet.account.address });
      if (balance === 0n)
        throw new ChainStateError(
          `deployer ${wallet.account.address} has no funds on chain ${chain.chainId}`,
          {
            details: { deployer: wallet.account.address, chainId: chain.chainId },
          },
        );
      const progress = new Progress({ total: 1 });
      const { record: file } = await progress.step(
        `deploy onto chain ${chain.chainId} from ${wallet.account.address} (${formatEther(balance)} ETH)`,
        () => deployZkVai(chain, wallet, { rpcUrl, receiptWindow }),
      );
      writeDeployment(config.deployment, file);
      output(values.json, { ...file, deploymentFile: config.deployment }, () =>
        describeDeployment(file, config.deployment),
      );
    }),
};

function describeDeployment(d: Deployment, path: string): string[] {
  return [
    `chain ${d.chainId} at ${d.rpcUrl}`,
    `escrow     ${d.escrow} (from block ${d.fromBlock}, a checkpoint per ${d.checkpointInterval} records a session, settle ${d.receiptWindow} s after close)`,
    `poseidon3  ${d.poseidon3}`,
    ...d.verifiers.map(
      (v) => `verifier   ${v.address}  ${v.circuit} (${v.predicate}, ≤ ${v.capacity} records)`,
    ),
    `deployment file: ${path}`,
  ];
}
