// End to end on the in-process chain: records → store → checkpoints → claim →
// Groth16 proof → escrow settlement, with the real verifier and real proofs.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, parseEther, toHex, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { type ChainHandle } from "../../sdk/chain/network.js";
import { type EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { Session } from "../../sdk/session.js";
import { TraceStore } from "../../sdk/store.js";
import { answerClaim, prepareClaim, TraceMismatchError } from "../../prover/claims.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { registerPromise } from "../../sdk/promises.js";
import { ProofError, prove, releaseProver, verifyLocally } from "../../prover/prove.js";
import { claimInput } from "../../prover/witness.js";
import { aap4Recipients } from "../../sdk/core/predicates/aap4/definition.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";

const PROFILE: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
const THETA = { outboundTools: ["send_email"], allowlist: ["alice@a.example", "bob@a.example"] };
const PAYOUT = parseEther("1");
const BOND = parseEther("0.25");

let chain: ChainHandle;
let deployment: ZkVaiDeployment;
let escrow: EscrowClient;
let asUser: EscrowClient;
let store: TraceStore;
let user: `0x${string}`;
let promiseId: bigint;
let twinPromiseId: bigint;

const sid = (label: string): Hex => scopedSessionId(HARDHAT_ACCOUNT_0, label);

type Step = { tool: string; to?: string | string[] } | { checkpoint: true };
async function session(label: string, steps: Step[], secret?: bigint): Promise<Hex> {
  const sessionId = sid(label);
  const session = await Session.open({ store, escrow, sessionId, user, profile: PROFILE, secret });
  for (const s of steps) {
    if ("checkpoint" in s) await session.checkpointNow();
    else await session.call(s.tool, s.to === undefined ? {} : { to: s.to }, async () => "ok");
  }
  await session.close();
  return sessionId;
}

beforeAll(async () => {
  chain = await embeddedChain();
  deployment = await deployZkVai(chain, chain.wallets[0]);
  escrow = deployment.escrow;
  asUser = escrow.as(chain.wallets[1]);
  user = chain.wallets[1].account.address;
  store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-e2e-")), "store.sqlite"));
  const spec = {
    predicate: "AAP-4",
    theta: THETA,
    profile: PROFILE,
    payout: PAYOUT,
    reserve: parseEther("5"),
  };
  promiseId = (await registerPromise(deployment.record, escrow, store, spec)).promiseId;
  // Same θ, same verifiers: only the context tells a proof for one from the other.
  twinPromiseId = (await registerPromise(deployment.record, escrow, store, spec)).promiseId;
});

afterAll(async () => {
  store?.close();
  await releaseProver();
});

describe("settlement with real proofs", () => {
  it("a satisfied trace: the proof credits the bond to the provider", async () => {
    const s = await session("ok", [
      { tool: "read" },
      { tool: "send_email", to: "alice@a.example" },
      { checkpoint: true },
      { tool: "send_email", to: ["bob@a.example", "alice@a.example"] },
    ]);
    const { claimId } = await asUser.fileClaim(s, promiseId, BOND);
    const before = await escrow.credits(chain.wallets[0].account.address);
    const answer = await answerClaim(store, escrow, claimId);
    expect(answer.verdict.violated).toBe(false);
    expect((await escrow.credits(chain.wallets[0].account.address)) - before).toBe(BOND);
    expect(answer.settleGas).toBeLessThan(300_000n);
  });

  it("a violated trace: the proof pays the user payout + bond and draws the reserve", async () => {
    const s = await session("bad", [
      { tool: "read" },
      { checkpoint: true },
      { tool: "send_email", to: ["bob@a.example", "eve@evil.example"] },
    ]);
    const { claimId } = await asUser.fileClaim(s, promiseId, BOND);
    const reserve = (await escrow.promise(promiseId)).reserve;
    const before = await escrow.credits(user);
    const answer = await answerClaim(store, escrow, claimId);
    expect(answer.verdict).toMatchObject({ violated: true, seq: 1 });
    expect((await escrow.credits(user)) - before).toBe(PAYOUT + BOND);
    expect((await escrow.promise(promiseId)).reserve).toBe(reserve - PAYOUT);
  });

  it("an empty session proves satisfied", async () => {
    const s = await session("empty", []);
    const { claimId } = await asUser.fileClaim(s, promiseId, BOND);
    expect((await answerClaim(store, escrow, claimId)).verdict.violated).toBe(false);
  });
});

describe("a valid proof settles only its own claim", () => {
  const steps: Step[] = [
    { tool: "send_email", to: "alice@a.example" },
    { checkpoint: true },
    { tool: "read" },
  ];

  it("is rejected for another session with the same records and secret, for another promise, and flipped", async () => {
    // Two sessions whose roots and accumulators are identical: only the context differs.
    const s1 = await session("twin-1", steps, 42n);
    const s2 = await session("twin-2", steps, 42n);
    expect((await escrow.session(s1)).finalRoot).toBe((await escrow.session(s2)).finalRoot);
    const c1 = (await asUser.fileClaim(s1, promiseId, BOND)).claimId;
    const c2 = (await asUser.fileClaim(s2, promiseId, BOND)).claimId;
    const c3 = (await asUser.fileClaim(s1, twinPromiseId, BOND)).claimId;

    const { artifacts, input, verdict } = await prepareClaim(store, escrow, c1);
    const proof = await prove(artifacts, input);
    expect(await verifyLocally(artifacts, proof)).toBe(true);

    await expect(escrow.settle(c2, proof.words, verdict.violated)).rejects.toThrow(/InvalidProof/);
    await expect(escrow.settle(c3, proof.words, verdict.violated)).rejects.toThrow(/InvalidProof/);
    await expect(escrow.settle(c1, proof.words, !verdict.violated)).rejects.toThrow(/InvalidProof/);
    // Anyone may submit it for its own claim, once.
    await escrow.as(chain.wallets[5]).settle(c1, proof.words, verdict.violated);
    await expect(escrow.settle(c1, proof.words, verdict.violated)).rejects.toThrow();
  });
});

describe("a trace altered after a checkpoint", () => {
  it("is refused by the prover's check, and no witness exists for it", async () => {
    const s = await session("tamper", [
      { tool: "send_email", to: "eve@evil.example" },
      { checkpoint: true },
      { tool: "read" },
    ]);
    const { claimId } = await asUser.fileClaim(s, promiseId, BOND);

    // The provider's store is append-only, so the dishonest provider keeps a second one.
    const forged = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-forged-")), "store.sqlite"));
    const original = store.session(s)!;
    forged.createSession({
      sessionId: s,
      secret: original.secret,
      profile: original.profile,
      user: original.user,
    });
    const records = store.records(s);
    const altered: TraceRecord[] = records.map((r) =>
      r.seq === 0 && r.kind === "call" ? { ...r, args: { to: "alice@a.example" } } : r,
    );
    for (const r of altered) forged.append(s, r);
    forged.putPromise(store.promise(promiseId)!);
    await expect(prepareClaim(forged, escrow, claimId)).rejects.toThrow(TraceMismatchError);
    await expect(prepareClaim(forged, escrow, claimId)).rejects.toThrow(/checkpoint 0 \(first 1 records\)/);

    // Skipping the check does not help: the circuit refuses the on-chain checkpoint.
    const { artifacts } = await prepareClaim(store, escrow, claimId);
    const checkpoints = (await escrow.checkpointsOf(s)).map(({ n, root }) => ({ n, root }));
    const { input } = claimInput({
      records: altered,
      profile: PROFILE,
      sessionSecret: original.secret,
      checkpoints,
      predicate: aap4Recipients,
      theta: THETA,
      context: await escrow.context(s, promiseId),
      shape: { depth: 3, checkpoints: 4 },
    });
    await expect(prove(artifacts, input)).rejects.toThrow(ProofError);
    forged.close();
  });
});
