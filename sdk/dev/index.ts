// zkvai/dev: what development and tests need and production code must not load (Hardhat).
export { embeddedChain, devRpcChain, type DevChainHandle } from "./embedded.js";
export {
  DevNodeError,
  startHardhatNode,
  freePort,
  type HardhatNode,
  type HardhatNodeOptions,
} from "./hardhat-node.js";
