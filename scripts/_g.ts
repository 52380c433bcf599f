import { deployContract, deployPoseidon3, deployEscrow, embeddedChain, EscrowClient } from "../sdk/chain.js";
import { poseidon } from "../sdk/hash.js";
import { keccak256, toHex } from "viem";
const abi = [
  {
    type: "function",
    name: "poseidon",
    stateMutability: "pure",
    inputs: [{ name: "input", type: "uint256[3]" }],
    outputs: [{ name: "", type: "uint256" }],
  },
] as const;
const chain = await embeddedChain();
const w = chain.wallets[0];
const c = await deployPoseidon3(chain, w);
const h = await deployContract(chain, w, "PoseidonT4");
console.log("deploy", c.gasUsed, h.gasUsed);
const R = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
const args = [R - 5n, 123456n, R - 7n] as const;
for (const a of [c.address, h.address]) {
  const v = await chain.publicClient.readContract({
    address: a,
    abi,
    functionName: "poseidon",
    args: [[...args]],
  });
  console.log(v === poseidon([...args]));
  const g = await chain.publicClient.estimateGas({
    to: a,
    data: (await import("viem")).encodeFunctionData({ abi, functionName: "poseidon", args: [[...args]] }),
    account: w.account,
  });
  console.log("tx gas", g);
}
for (const a of [c.address, h.address]) {
  const e = await deployEscrow(chain, w, { poseidon3: a, maxCheckpoints: 64 });
  const esc = await EscrowClient.connect(chain, e.address, w);
  const sid = keccak256(toHex("x" + a));
  await esc.openSession(sid, chain.wallets[1].account.address, 1n);
  const r1 = await esc.checkpoint(sid, 1, R - 1n);
  const r2 = await esc.checkpoint(sid, 2, R - 2n);
  console.log("checkpoint", r1.gasUsed, r2.gasUsed);
}
process.exit(0);
