// The page's twin of artifacts.ts: a page deploys nothing and has no Hardhat artifacts; it keeps receiptOf.
import type { Abi, Hex } from "viem";
import { BuildMissingError } from "../core/errors.js";
export { receiptOf } from "./tx-receipt.js";

const noArtifacts = (): never => {
  throw new BuildMissingError("a page has no contract artifacts and deploys nothing");
};
export const readArtifact = noArtifacts as (name: string) => Promise<{ abi: Abi; bytecode: Hex }>;
export const deployBytecode = noArtifacts;
export const deployContract = noArtifacts;
