// Writes sdk/chain/generated/escrow-abi.ts (the escrow's ABI, `as const`) when contracts/Escrow.sol changed.
import { ESCROW_ABI_FILE, writeEscrowAbi } from "../prover/artifacts/escrow-abi.js";

const started = performance.now();
const wrote = writeEscrowAbi();
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`${ESCROW_ABI_FILE}: ${wrote ? "written" : "up to date"} (${seconds} s)`);
