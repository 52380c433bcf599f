// Hardhat's first default account: the provider (and deployer) of every in-process test chain, so a
// session id scoped to it (sdk/chain/escrow.ts scopedSessionId) can be written before the chain starts.
import type { Address } from "viem";

export const HARDHAT_ACCOUNT_0: Address = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
