// selectCircuit (sdk/core/claim.ts) is the prover's and the verifier's copy of the escrow's rule
// (EscrowBase._verifierFor): the smallest registered capacity that holds n records. Here the two are held
// equal on a registry of three capacities, at every edge: 0 records, each capacity, one past each, and past
// the largest (where the escrow refuses and selectCircuit finds nothing).
import { beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { deployContract } from "../../sdk/chain/artifacts.js";
import { deployEscrow, deployPoseidon3, EscrowClient } from "../../sdk/chain/escrow.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { selectCircuit } from "../../sdk/core/claim.js";
import { embeddedChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { BOND, PARAMS, PAYOUT, PROFILE, sid } from "./fixture.js";

const CAPACITIES = [4, 16, 64];
let chain: DevChainHandle;
let escrow: EscrowClient;
let registry: { capacity: number; verifier: Address }[];
let promiseId: bigint;

beforeAll(async () => {
  chain = await embeddedChain();
  const provider = chain.wallets[0];
  const poseidon3 = (await deployPoseidon3(chain, provider)).address;
  registry = [];
  for (const capacity of CAPACITIES)
    registry.push({ capacity, verifier: (await deployContract(chain, provider, "MockVerifier")).address });
  const { address } = await deployEscrow(chain, provider, {
    poseidon3,
    checkpointInterval: 10,
    // Given out of order: deployEscrow sorts, as the constructor requires.
    registry: [...registry]
      .reverse()
      .map((r) => ({ predicateId: 4, checkpoints: checkpointSlots(r.capacity, 10), ...r })),
  });
  escrow = await EscrowClient.connect(chain, address, provider);
  ({ promiseId } = await escrow.registerPromise({
    predicateId: 4,
    paramsHash: PARAMS,
    profileHash: PROFILE,
    payout: PAYOUT,
    value: 20n * PAYOUT,
  }));
});

describe("selectCircuit equals the escrow's verifier choice", () => {
  it.each([0, 1, 3, 4, 5, 15, 16, 17, 63, 64])("for a session of %i records", async (n) => {
    const sessionId = sid(`select-${n}`);
    const user = chain.wallets[1];
    await escrow.openSession(sessionId, user.account.address, PROFILE);
    await escrow.closeSession(sessionId, n, 777n);
    const { claimId } = await escrow.as(user).fileClaim(sessionId, promiseId, BOND);
    const onChain = await escrow.verifierOf(claimId);
    const chosen = selectCircuit(registry, n);
    expect(chosen).toBeDefined();
    expect(onChain).toEqual({ verifier: chosen!.verifier, capacity: chosen!.capacity });
  });

  it("past the largest capacity the escrow serves no verifier, and selectCircuit finds none", async () => {
    expect(selectCircuit(registry, 65)).toBeUndefined();
    const sessionId = sid("select-65");
    const user = chain.wallets[1];
    await escrow.openSession(sessionId, user.account.address, PROFILE);
    await escrow.closeSession(sessionId, 65, 777n);
    const filed = escrow.as(user).fileClaim(sessionId, promiseId, BOND);
    const claimId = await filed.then((c) => c.claimId).catch(() => undefined);
    // The escrow refuses either the claim or the verifier lookup; it never names a verifier.
    if (claimId !== undefined) await expect(escrow.verifierOf(claimId)).rejects.toThrow(/NoVerifierForSize/);
    else await expect(filed).rejects.toThrow(/NoVerifierForSize/);
  });

  it("ties keep the given order, as the registry's first entry of a capacity", () => {
    const a = { capacity: 8, name: "a" };
    const b = { capacity: 8, name: "b" };
    expect(selectCircuit([{ capacity: 16, name: "c" }, a, b], 5)).toBe(a);
    expect(selectCircuit([b, a], 8)).toBe(b);
    expect(selectCircuit([], 0)).toBeUndefined();
  });
});
