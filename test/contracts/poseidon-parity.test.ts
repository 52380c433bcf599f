// The escrow's checkpoint accumulator (circomlibjs Poseidon contract) must equal sdk/hash.ts `accumulate`,
// which the circuits mirror: a single disagreement makes every honest proof fail to verify.
import { beforeAll, describe, expect, it } from "vitest";
import { keccak256, toHex, type Address, type Hex } from "viem";
import {
  deployEscrow,
  deployPoseidon3,
  embeddedChain,
  EscrowClient,
  type ChainHandle,
  type Wallet,
} from "../../sdk/chain.js";
import { accumulate, FIELD_MODULUS, foldCheckpoint, poseidon } from "../../sdk/hash.js";

const R = FIELD_MODULUS;
const U32_MAX = 2 ** 32 - 1;
const POSEIDON3_ABI = [
  {
    type: "function",
    name: "poseidon",
    stateMutability: "pure",
    inputs: [{ name: "input", type: "uint256[3]" }],
    outputs: [{ name: "", type: "uint256" }],
  },
] as const;

let chain: ChainHandle;
let provider: Wallet, user: Wallet;
let poseidon3: Address;
let escrow: EscrowClient;
let sessions = 0;

/** Deterministic field elements spread over the whole range (xorshift, so failures reproduce). */
function* randomFields(seed: bigint): Generator<bigint> {
  let x = seed;
  for (;;) {
    let v = 0n;
    for (let i = 0; i < 4; i++) {
      x ^= (x << 13n) & 0xffffffffffffffffn;
      x ^= x >> 7n;
      x ^= (x << 17n) & 0xffffffffffffffffn;
      v = (v << 64n) | x;
    }
    yield v % R;
  }
}

async function runSession(checkpoints: { n: number; root: bigint }[]): Promise<Hex> {
  const sessionId = keccak256(toHex(`parity-${sessions++}`));
  await escrow.openSession(sessionId, user.account.address, 1n);
  let acc = 0n;
  for (const c of checkpoints) {
    const r = await escrow.checkpoint(sessionId, c.n, c.root);
    acc = foldCheckpoint(acc, c.n, c.root);
    expect(r.acc, `acc after checkpoint n=${c.n}`).toBe(acc);
  }
  return sessionId;
}

beforeAll(async () => {
  chain = await embeddedChain();
  [provider, user] = chain.wallets;
  poseidon3 = (await deployPoseidon3(chain, provider)).address;
  const { address } = await deployEscrow(chain, provider, { poseidon3, maxCheckpoints: 64 });
  escrow = await EscrowClient.connect(chain, address, provider);
});

describe("Poseidon(3) contract", () => {
  it.each([
    [0n, 0n, 0n],
    [1n, 2n, 3n],
    [R - 1n, R - 1n, R - 1n],
    [R - 1n, 0n, R - 2n],
    [2n ** 253n, BigInt(U32_MAX), R - 1n],
  ])("poseidon(%s, %s, %s) equals sdk/hash.ts", async (a, b, c) => {
    const onChain = await chain.publicClient.readContract({
      address: poseidon3,
      abi: POSEIDON3_ABI,
      functionName: "poseidon",
      args: [[a, b, c]],
    });
    expect(onChain).toBe(poseidon([a, b, c]));
  });
});

describe("checkpoint accumulator", () => {
  it("matches accumulate() over several checkpoints, roots near r-1 and n up to 2^32-1", async () => {
    const cps = [
      { n: 1, root: 0n },
      { n: 2, root: R - 1n },
      { n: 3, root: R - 2n },
      { n: 1000, root: 1n },
      { n: 65536, root: 2n ** 253n },
      { n: U32_MAX, root: R - 1n },
    ];
    const sessionId = await runSession(cps);
    const s = await escrow.session(sessionId);
    expect(s.acc).toBe(accumulate(cps));
    expect(s.checkpointCount).toBe(cps.length);
    expect((await escrow.checkpointsOf(sessionId)).map(({ n, root }) => ({ n, root }))).toEqual(cps);
  });

  it("matches accumulate() on random traces, and closing leaves it as is", async () => {
    const rand = randomFields(0x9e3779b97f4a7c15n);
    for (let t = 0; t < 3; t++) {
      let n = 0;
      const cps = Array.from({ length: 5 + 4 * t }, () => ({
        n: (n += 1 + ((t + n) % 7)),
        root: rand.next().value!,
      }));
      const sessionId = await runSession(cps);
      await escrow.closeSession(sessionId, n + 1, rand.next().value!);
      expect((await escrow.session(sessionId)).acc).toBe(accumulate(cps));
    }
  });

  it("is 0 with no checkpoints, and refuses a root of r", async () => {
    const sessionId = await runSession([]);
    expect((await escrow.session(sessionId)).acc).toBe(accumulate([]));
    await expect(escrow.checkpoint(sessionId, 1, R)).rejects.toThrow(/NotFieldElement/);
  });
});
