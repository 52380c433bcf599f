// Gas of every external escrow function, from transaction receipts on the in-process chain, and the Poseidon(3)
// comparison behind checkpoint(). Prints a Markdown table (docs/BENCHMARKS.md, "Escrow gas", quotes it).
//
//   npx tsx scripts/gas-escrow.ts              all rows; settle with real Groth16 proofs when circuits are built
//   npx tsx scripts/gas-escrow.ts --no-proofs  MockVerifier rows only (no `npm run setup` needed)
//
// Calldata uses nonzero words (roots and proofs near r), as real ones are. Rows marked "first" pay for creating
// a storage slot that later calls only rewrite.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeFunctionData, parseEther, type Address, type Hex } from "viem";
import { deployCircomlibPoseidon3 } from "./lib/circomlib-poseidon.js";
import { deployContract } from "../sdk/chain/artifacts.js";
import {
  deployEscrow,
  scopedSessionId,
  deployPoseidon3,
  EscrowClient,
  POSEIDON3_ABI,
} from "../sdk/chain/escrow.js";
import { embeddedChain, type DevChainHandle } from "../sdk/dev/embedded.js";
import { type Wallet } from "../sdk/chain/network.js";
import { FIELD_MODULUS as R } from "../sdk/core/hash.js";
import { CHECKPOINT_INTERVAL, checkpointSlots } from "../sdk/core/checkpoints.js";
import { signReceipt } from "../sdk/chain/receipts.js";
import type { EncodingProfile } from "../sdk/core/profile.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

const PAYOUT = parseEther("1");
const BOND = parseEther("0.1");
const DAY = 24 * 3600;
const PROOF = [R - 11n, R - 12n, R - 13n, R - 14n, R - 15n, R - 16n, R - 17n, R - 18n];

interface Row {
  fn: string;
  gas: bigint;
  note: string;
}

const rows: Row[] = [];
const row = (fn: string, gas: bigint, note = "") => rows.push({ fn, gas, note });
const sid = (label: string, provider: Address = HARDHAT_ACCOUNT_0): Hex =>
  scopedSessionId(provider, `gas:${label}`);
// Hardhat's first default account, the provider of every row below.
const HARDHAT_ACCOUNT_0: Address = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

function calldataGas(data: Hex): bigint {
  let g = 0n;
  for (let i = 2; i < data.length; i += 2) g += data.slice(i, i + 2) === "00" ? 4n : 16n;
  return g;
}

/** Gas a Poseidon contract spends inside one call (transaction gas less the 21k base and calldata). */
async function poseidonInside(chain: DevChainHandle, from: Wallet, address: Address): Promise<bigint> {
  const data = encodeFunctionData({
    abi: POSEIDON3_ABI,
    functionName: "poseidon",
    args: [[R - 1n, 123456n, R - 2n]],
  });
  const hash = await from.sendTransaction({ to: address, data });
  const { gasUsed } = await chain.publicClient.waitForTransactionReceipt({ hash });
  return gasUsed - 21_000n - calldataGas(data);
}

async function mockRows(chain: DevChainHandle) {
  const [provider, user, stranger] = chain.wallets;
  const circomlib = await deployCircomlibPoseidon3(chain, provider);
  const generated = await deployPoseidon3(chain, provider);
  const verifier = (await deployContract(chain, provider, "MockVerifier")).address;
  const segmentVerifier = (await deployContract(chain, provider, "MockVerifier3")).address;

  // Poseidon(3): the two contracts, and checkpoint() over each.
  const poseidon: Record<string, { deploy: bigint; inside: bigint; checkpoint: bigint }> = {};
  for (const [name, d] of [
    ["circomlibjs poseidon_gencontract", circomlib],
    ["PoseidonT4.sol (generated)", generated],
  ] as const) {
    const { address } = await deployEscrow(chain, provider, {
      poseidon3: d.address,
      checkpointInterval: CHECKPOINT_INTERVAL,
      registry: [],
    });
    const e = await EscrowClient.connect(chain, address, provider);
    await e.openSession(sid(name), user.account.address, 1n, []);
    await e.checkpoint(sid(name), 1, R - 1n);
    const second = await e.checkpoint(sid(name), 1 + CHECKPOINT_INTERVAL, R - 2n);
    poseidon[name] = {
      deploy: d.gasUsed,
      inside: await poseidonInside(chain, provider, d.address),
      checkpoint: second.gasUsed,
    };
  }

  const registry = [8, 64].map((capacity) => ({
    predicateId: 4,
    capacity,
    checkpoints: checkpointSlots(capacity, CHECKPOINT_INTERVAL),
    verifier,
  }));
  // AAP-4's segment verifier too (a MockVerifier3: any proof), for the segment rows.
  const segments = [
    {
      predicateId: 4,
      segmentSize: 4,
      checkpoints: checkpointSlots(4, CHECKPOINT_INTERVAL),
      verifier: segmentVerifier,
    },
  ];
  const deployed = await deployEscrow(chain, provider, {
    poseidon3: generated.address,
    checkpointInterval: CHECKPOINT_INTERVAL,
    ...DEV,
    registry,
    segments,
  });
  row("deploy Escrow", deployed.gasUsed, "constructor, a registry of 2 verifiers and 1 segment verifier");
  const escrow = await EscrowClient.connect(chain, deployed.address, provider);
  const asUser = escrow.as(user);
  const asStranger = escrow.as(stranger);
  const base = { predicateId: 4, paramsHash: R - 3n, profileHash: R - 4n, payout: PAYOUT };
  const reg1 = await escrow.registerPromise({ ...base, value: 2n * PAYOUT });
  row("registerPromise", reg1.gasUsed, "first promise of this provider (verifiers from the registry)");
  const reg2 = await escrow.registerPromise(base);
  row("registerPromise", reg2.gasUsed, "a later promise");
  const promiseId = reg1.promiseId;
  row("fund", (await asStranger.fund(promiseId, 3n * PAYOUT)).gasUsed);

  // Each session names the promises that cover it; each covering one earmarks its payout (a pair slot).
  const open = async (label: string, cover: readonly bigint[] = [promiseId]) => {
    const s = sid(label);
    const o = await escrow.openSession(s, user.account.address, base.profileHash, cover);
    return { s, gas: o.gasUsed };
  };
  row("openSession", (await open("uncovered", [])).gas, "no promise named: uncovered");
  const a = await open("a");
  row("openSession", a.gas, "covered by 1 promise: its payout earmarked");
  await escrow.fund(reg2.promiseId, PAYOUT);
  const two = await open("two", [promiseId, reg2.promiseId]);
  row("openSession", two.gas, "covered by 2 promises");
  await escrow.closeSession(two.s, 1, R - 19n);
  const c1 = await escrow.checkpoint(a.s, 4, R - 5n);
  row("checkpoint", c1.gasUsed, "first of the session");
  const c2 = await escrow.checkpoint(a.s, 14, R - 6n);
  row("checkpoint", c2.gasUsed, "later ones (target ≤ 80k)");
  // Receipts: the provider signs, the user posts (the EIP-712 check, then the same fold as a checkpoint).
  const target = { chainId: chain.chainId, escrow: escrow.address };
  const receipt = async (s: Hex, n: number, root: bigint, spare = false) => {
    const r = { sessionId: s, n, root };
    return (await asUser.postReceipt(r, await signReceipt(provider, target, r), { spare })).gasUsed;
  };
  row(
    "postReceipt",
    await receipt(a.s, 24, R - 9n),
    "before close, within the rules: folds like a checkpoint (target ≤ 80k)",
  );
  row("closeSession", (await escrow.closeSession(a.s, 29, R - 7n)).gasUsed);
  row(
    "postReceipt",
    await receipt(a.s, 30, R - 10n, true),
    "after close: the user's one spare receipt (target ≤ 80k)",
  );
  const early = await open("spare-before-close", []);
  await escrow.checkpoint(early.s, 4, R - 5n);
  await escrow.checkpoint(early.s, 14, R - 6n);
  row(
    "postReceipt",
    await receipt(early.s, 9, R - 12n, true),
    "before close, outside the rules (n ≤ lastN): the spare (target ≤ 80k)",
  );
  const fresh = await open("receipt-first", []);
  row("postReceipt", await receipt(fresh.s, 5, R - 11n), "first fold entry of a session");

  const f1 = await asUser.fileClaim(a.s, promiseId, BOND);
  row("fileClaim", f1.gasUsed, "first claim of this user (creates its credit slot)");
  const b = await open("b");
  await escrow.closeSession(b.s, 3, R - 8n);
  const f2 = await asUser.fileClaim(b.s, promiseId, BOND);
  row("fileClaim", f2.gasUsed, "later claims");
  row(
    "settle (MockVerifier)",
    (await asStranger.settle(f1.claimId, PROOF, true)).gasUsed,
    "violated: pays p + b",
  );
  row(
    "settle (MockVerifier)",
    (await asStranger.settle(f2.claimId, PROOF, false)).gasUsed,
    "satisfied: bond to provider",
  );

  const c = await open("c");
  const fc = await asUser.fileClaim(c.s, promiseId, BOND);
  await chain.testClient.increaseTime({ seconds: 3 * DAY });
  row(
    "claimDefault",
    (await asStranger.claimDefault(fc.claimId)).gasUsed,
    "no proof in 3 days (unclosed session)",
  );

  // Segments: a claim settled by a chain of 3 links (test/contracts/chain-limit.test.ts measures up to 4,096).
  const seg = await open("segments");
  await escrow.closeSession(seg.s, 10, R - 20n);
  const fs = await asUser.fileClaim(seg.s, promiseId, BOND);
  await chain.testClient.increaseTime({ seconds: 60 });
  row(
    "openSegments",
    (await asStranger.openSegments(fs.claimId)).gasUsed,
    "the claim digest: two Poseidon calls",
  );
  const states = [0n, R - 21n, R - 22n, 1n];
  const proveGas = [];
  for (let j = 0; j < 3; j++)
    proveGas.push((await asStranger.proveSegment(fs.claimId, states[j], states[j + 1], PROOF)).gasUsed);
  row("proveSegment (MockVerifier3)", proveGas[1], "one link; a snarkjs 3-input verifier adds ~200k");
  row("settleSegments", (await asStranger.settleSegments(fs.claimId, states)).gasUsed, "3 links, satisfied");

  row("retirePromise", (await escrow.retirePromise(promiseId)).gasUsed);
  row("withdrawReserve", (await escrow.withdrawReserve(promiseId)).gasUsed, "the free reserve, at any time");
  // Session "two"'s earmark on reg2, never claimed: released once its claim window is over.
  await chain.testClient.increaseTime({ seconds: 30 * DAY + 1 });
  await escrow.fund(reg2.promiseId, 1n); // mines a block past the window
  row(
    "releaseCoverage",
    (await asStranger.releaseCoverage(two.s, reg2.promiseId)).gasUsed,
    "an unclaimed session's earmark, after its window",
  );
  row("withdraw", (await asUser.withdraw()).gasUsed, "sends the caller's credits");
  return poseidon;
}

/** settle() against the real snarkjs verifiers, with proofs from the prover, as test/e2e does. */
async function realRows(chain: DevChainHandle) {
  const { loadManifest } = await import("../sdk/manifest/manifest.js");
  if (!Object.keys(loadManifest().circuits ?? {}).length) return false;
  const { deployZkVai } = await import("../prover/artifacts/deploy.js");
  const { registerPromise } = await import("../sdk/provider/promises.js");
  const { answerClaim } = await import("../prover/claims.js");
  const { releaseProver } = await import("../prover/prove.js");
  const { Session } = await import("../sdk/provider/session.js");
  const { TraceStore } = await import("../sdk/provider/store.js");
  const [provider, user] = chain.wallets;
  const deployment = await deployZkVai(chain, provider, DEV);
  const escrow = deployment.escrow;
  const store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-gas-")), "store.sqlite"));
  const profile: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
  const theta = { outboundTools: ["send_email"], allowlist: ["alice@a.example", "bob@a.example"] };
  const spec = { predicate: "AAP-4", theta, profile, payout: PAYOUT, reserve: 3n * PAYOUT };
  const { promiseId } = await registerPromise(deployment.record, escrow, store, spec);
  try {
    for (const [label, to] of [
      ["satisfied", "bob@a.example"],
      ["violated", "eve@evil.example"],
    ] as const) {
      const sessionId = sid(`real-${label}`);
      const session = await Session.open({ store, escrow, sessionId, user: user.account.address, profile });
      await session.call("read", {}, async () => "ok");
      await session.checkpointNow();
      await session.call("send_email", { to }, async () => "ok");
      await session.close();
      const { claimId } = await escrow.as(user).fileClaim(sessionId, promiseId, BOND);
      const answer = await answerClaim(store, escrow, claimId);
      row("settle (Groth16)", answer.settleGas, `${label}, ${answer.circuit} verifier (target ≤ 300k)`);
    }
  } finally {
    store.close();
    await releaseProver();
  }
  return true;
}

async function main() {
  const chain = await embeddedChain();
  const poseidon = await mockRows(chain);
  const real = process.argv.includes("--no-proofs") ? false : await realRows(chain);

  console.log("| function | gas | case |\n|---|---:|---|");
  for (const r of rows) console.log(`| \`${r.fn}\` | ${r.gas.toLocaleString("en-US")} | ${r.note} |`);
  if (!real)
    console.log(
      "\n(settle with real proofs skipped: --no-proofs, or no circuits built; run `npm run setup`)",
    );
  console.log("\n| Poseidon(3) | deploy gas | inside one call | checkpoint() tx |\n|---|---:|---:|---:|");
  for (const [name, p] of Object.entries(poseidon))
    console.log(
      `| ${name} | ${p.deploy.toLocaleString("en-US")} | ${p.inside.toLocaleString("en-US")} | ${p.checkpoint.toLocaleString("en-US")} |`,
    );
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
