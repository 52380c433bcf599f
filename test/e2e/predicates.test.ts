// Every predicate settles on-chain through the escrow with real Groth16 proofs:
// for each predicate's test-group circuit, one satisfied and one violated fixture
// are recorded, checkpointed, closed, claimed and answered by the prover.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { type ChainHandle } from "../../sdk/chain/network.js";
import { scopedSessionId } from "../../sdk/chain/escrow.js";
import { assertWellFormedAmount } from "../../sdk/core/encoding.js";
import { Session, type RecordBody } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { claimCircuits, loadManifest } from "../../sdk/manifest/manifest.js";
import { answerClaim } from "../../prover/claims.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { releaseProver } from "../../prover/prove.js";
import { predicateFixtures, type PredicateFixture } from "../helpers/fixtures.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

const PAYOUT = parseEther("1");
const BOND = parseEther("0.1");

const built = claimCircuits(loadManifest()).map(([, c]) => c);
const predicates = [...new Set(built.map((c) => c.predicate))].sort();

let chain: ChainHandle;
let deployment: ZkVaiDeployment;
let store: TraceStore;

beforeAll(async () => {
  chain = await embeddedChain();
  deployment = await deployZkVai(chain, chain.wallets[0], DEV);
  store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-preds-")), "store.sqlite"));
});
afterAll(async () => {
  store?.close();
  await releaseProver();
});

/** Records the fixture through the real recorder: store first, a checkpoint after record 0, then close. */
async function settleFixture(f: PredicateFixture) {
  const escrow = deployment.escrow;
  const user = chain.wallets[1];
  const { promiseId } = await registerPromise(deployment.record, escrow, store, {
    predicate: f.predicate,
    theta: f.theta,
    profile: f.profile,
    payout: PAYOUT,
    reserve: PAYOUT,
  });
  const sessionId = scopedSessionId(HARDHAT_ACCOUNT_0, `${f.file}:${Date.now()}`);
  const session = await Session.open({
    store,
    escrow,
    sessionId,
    user: user.account.address,
    profile: f.profile,
  });
  for (const [i, r] of f.records.entries()) {
    const { seq: _seq, ts: _ts, ...body } = r;
    // append, not call: fixtures hold what call() would refuse or dedupe (blocked records, re-executions).
    session.append(body as RecordBody);
    if (i === 0) await session.checkpointNow();
  }
  await session.close();
  const { claimId } = await escrow.as(user).fileClaim(sessionId, promiseId, BOND);
  const before = {
    user: await escrow.credits(user.account.address),
    provider: await escrow.credits(chain.wallets[0].account.address),
  };
  const answer = await answerClaim(store, escrow, claimId);
  const after = {
    user: await escrow.credits(user.account.address),
    provider: await escrow.credits(chain.wallets[0].account.address),
  };
  return { answer, paidUser: after.user - before.user, paidProvider: after.provider - before.provider };
}

function recordable(f: PredicateFixture, capacity: number): boolean {
  if (f.records.length === 0 || f.records.length > capacity) return false;
  try {
    // The recorder refuses malformed amounts outright; such fixtures exercise the circuit only.
    for (const r of f.records) if (r.kind === "call") assertWellFormedAmount(r, f.profile);
    return true;
  } catch {
    return false;
  }
}

describe.each(predicates)("%s settles on-chain", (predicate) => {
  const capacity = Math.min(
    ...built.filter((c) => c.predicate === predicate).map((c) => 2 ** Number(c.params.depth)),
  );
  const fixtures = predicateFixtures(predicate).filter((f) => recordable(f, capacity));

  for (const violated of [false, true]) {
    const f = fixtures.find((x) => x.expected.violated === violated);
    it(`${violated ? "violated" : "satisfied"}: ${f?.file ?? "(no fixture)"}`, async () => {
      if (!f)
        throw new Error(
          `${predicate} has no ${violated ? "violated" : "satisfied"} fixture of ≤ ${capacity} records`,
        );
      const { answer, paidUser, paidProvider } = await settleFixture(f);
      expect(answer.verdict.violated).toBe(violated);
      expect(answer.verdict.seq).toBe(f.expected.seq);
      expect(paidUser).toBe(violated ? PAYOUT + BOND : 0n);
      expect(paidProvider).toBe(violated ? 0n : BOND);
      expect(answer.settleGas).toBeLessThan(300_000n);
    });
  }
});
