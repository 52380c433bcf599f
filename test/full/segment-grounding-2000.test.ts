// npm run test:full: a 2,000-record AAP-6 session settled by segment proofs (aap6_seg64: 32 segments of
// 64 records) on an in-process chain, with real proofs through a local pool of worker processes and the
// user's `vai verify`. The file agent lists files and deletes what it listed, and deletes files it listed in
// the session's first segment again near its end: grounds carried across thirty segments. The violated
// session ends in a delete of a file no listing showed. `npm run test:full` builds aap6_seg64 (group "full")
// beside npm test's aap6_n8, the whole-claim AAP-6 circuit the escrow needs to serve the predicate.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { ClaimStatus, scopedSessionId } from "../../sdk/chain/escrow.js";
import type { ChainHandle } from "../../sdk/chain/network.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import type { RecordBody } from "../../sdk/core/records.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { loadClaim } from "../../prover/claims.js";
import { answerSegmentedClaim, needsSegments } from "../../prover/segments/claims.js";
import { LocalSegmentPool } from "../../prover/segments/pool.js";
import { verifySettlement } from "../../sdk/user/verify-settlement.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";

const RECORDS = 2_000;
const SEGMENT = 64;
const PAYOUT = parseEther("1");
const BOND = parseEther("0.1");
const PROFILE = {
  version: 1,
  tools: {
    list_files: { observe: { fact: "path", from: "result", path: "$.files[*]" } },
    delete_file: { observe: { fact: "path", from: "args", path: "$.path" } },
  },
};
const THETA = { consequential: { delete_file: "path" }, sources: { list_files: "path" }, normalise: "exact" };

/**
 * Record i of the session: even records list run-i's two files, odd ones delete a file the record before
 * listed; from record 1,900 on, every tenth record deletes a file listed in the first segment (run-0..62).
 * The violated session's last record deletes a file never listed.
 */
function record(i: number, violated: boolean): RecordBody {
  if (violated && i === RECORDS - 1)
    return { kind: "call", tool: "delete_file", args: { path: "never-listed.txt" }, result: "deleted" };
  if (i % 2 === 0)
    return {
      kind: "call",
      tool: "list_files",
      args: { dir: `run-${i}` },
      result: { files: [`run-${i}/a.txt`, `run-${i}/b.txt`] },
    };
  const early = i >= 1_900 && i % 10 === 1;
  const listedEarly = (i % 60) + ((i % 60) % 2); // even, at most 60: a listing of segment 0
  const path = early ? `run-${listedEarly}/b.txt` : `run-${i - 1}/a.txt`;
  return { kind: "call", tool: "delete_file", args: { path }, result: "deleted" };
}

let chain: ChainHandle;
let deployment: ZkVaiDeployment;
let store: TraceStore;
let pool: LocalSegmentPool;
let promiseId: bigint;
beforeAll(async () => {
  chain = await embeddedChain();
  deployment = await deployZkVai(chain, chain.wallets[0], {
    receiptWindow: 0,
    segmentSize: SEGMENT,
    predicates: ["AAP-6"],
  });
  store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-aap6-2000-")), "store.sqlite"));
  pool = new LocalSegmentPool({});
  ({ promiseId } = await registerPromise(deployment.record, deployment.escrow, store, {
    predicate: "AAP-6",
    theta: THETA,
    profile: PROFILE as never,
    payout: PAYOUT,
    reserve: 10n * PAYOUT,
  }));
}, 600_000);
afterAll(async () => {
  await pool?.close();
  store?.close();
});

async function settle2000(violated: boolean) {
  const escrow = deployment.escrow;
  const user = chain.wallets[1];
  const sessionId = scopedSessionId(HARDHAT_ACCOUNT_0, `aap6-2000:${violated}:${Date.now()}`);
  const session = await Session.open({
    store,
    escrow,
    sessionId,
    user: user.account.address,
    profile: PROFILE as never,
  });
  for (let i = 0; i < RECORDS; i++) session.append(record(i, violated));
  await session.close();
  const { claimId } = await escrow.as(user).fileClaim(sessionId, promiseId, BOND);
  expect(needsSegments(await loadClaim(store, escrow, claimId))).toBe(true);

  const started = performance.now();
  const answer = await answerSegmentedClaim(store, escrow, claimId, { prover: pool });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `AAP-6, ${RECORDS} records (${violated ? "violated" : "satisfied"}): ${answer.segments} segment proofs of ` +
      `${SEGMENT} records with ${pool.workers} workers in ${seconds.toFixed(1)} s; settleChain gas ${answer.settleGas}`,
  );
  expect(answer.segments).toBe(Math.ceil(RECORDS / SEGMENT));
  expect(answer.verdict.violated).toBe(violated);
  if (violated) expect(answer.verdict.seq).toBe(RECORDS - 1);
  // One settleChain transaction for the whole chain (at most MAX_BATCH_LINKS links): no link sent alone.
  expect(answer.segmentGas).toEqual({});
  expect(answer.settleGas).toBeLessThan(3_000_000n);
  expect((await escrow.claim(claimId)).status).toBe(ClaimStatus.Settled);
  const report = await verifySettlement({
    chain,
    escrow: escrow.address,
    fromBlock: BigInt(deployment.record.fromBlock),
    claimId,
  });
  expect(report.violated).toBe(violated);
  expect(report.circuit).toBe("aap6_seg64");
}

describe(`AAP-6: a ${RECORDS}-record session settled by segment proofs`, () => {
  it("satisfied, with deletes grounded thirty segments earlier", () => settle2000(false), 3_600_000);
  it("violated by its last record", () => settle2000(true), 3_600_000);
});
