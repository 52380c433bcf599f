// circomlibjs' `poseidon_gencontract` Poseidon(3): the reference the parity test and the gas script compare the
// escrow's PoseidonT4.sol with. A dev tool: the product never deploys it.
import type { Abi, Hex } from "viem";
import { deployBytecode, type Deployed } from "../../sdk/chain/artifacts.js";
import type { ChainHandle, Wallet } from "../../sdk/chain/network.js";

interface PoseidonGen {
  createCode(nInputs: number): string;
  generateABI(nInputs: number): Abi;
}

export async function deployCircomlibPoseidon3(chain: ChainHandle, wallet: Wallet): Promise<Deployed> {
  // circomlibjs ships no types; a non-literal specifier keeps tsc from demanding them.
  const specifier = "circomlibjs";
  const { poseidonContract } = (await import(specifier)) as { poseidonContract: PoseidonGen };
  return deployBytecode(
    chain,
    wallet,
    poseidonContract.generateABI(3),
    poseidonContract.createCode(3) as Hex,
    [],
  );
}
