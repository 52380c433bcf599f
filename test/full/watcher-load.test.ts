// The claim watcher under a burst (npm run test:full, ZKVAI_FULL=1): 20 claims filed in one block, on
// sessions that violate or comply, answered by one watcher with real proofs (aap4_n8) within its memory
// budget, each settled exactly once with the oracle's outcome. Prints the time and peak RSS, which
// docs/BENCHMARKS.md quotes. Too slow for `npm test` (20 proofs).
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther, type Hex } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { releaseProver } from "../../prover/prove.js";
import { ClaimWatcher } from "../../prover/watcher.js";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { scopedSessionId } from "../../sdk/chain/escrow.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

const FULL = process.env.ZKVAI_FULL === "1";
const CLAIMS = 20;
const BUDGET_MB = 2048;
const PROFILE: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
const THETA = { outboundTools: ["send_email"], allowlist: ["alice@a.example"] };
const PAYOUT = parseEther("1");
const BOND = parseEther("0.1");

afterAll(async () => {
  if (FULL) await releaseProver();
});

describe.skipIf(!FULL)("claim watcher, 20 claims in one block", () => {
  it(
    "answers every claim once, with the oracle's outcome, within its memory budget",
    { timeout: 1_800_000 },
    async () => {
      const chain = await embeddedChain();
      const [providerWallet, userWallet] = chain.wallets;
      const deployment = await deployZkVai(chain, providerWallet, DEV);
      const escrow = deployment.escrow;
      const dir = mkdtempSync(join(tmpdir(), "zkvai-watcher-load-"));
      const store = TraceStore.open(join(dir, "store.sqlite"));
      const spec = {
        predicate: "AAP-4",
        theta: THETA,
        profile: PROFILE,
        payout: PAYOUT,
        reserve: 25n * PAYOUT,
      };
      const { promiseId } = await registerPromise(deployment.record, escrow, store, spec);

      const sessions: { id: Hex; violating: boolean }[] = [];
      for (let i = 0; i < CLAIMS; i++) {
        const violating = i % 2 === 0;
        const id = scopedSessionId(providerWallet.account.address, `load-${i}`);
        const rec = await Session.open({
          store,
          escrow,
          sessionId: id,
          user: userWallet.account.address,
          profile: PROFILE,
          policy: { everyRecords: Infinity, everyMs: Infinity },
        });
        rec.append({ kind: "call", tool: "read", args: {}, result: "inbox" });
        const to = violating ? "eve@evil.example" : "alice@a.example";
        rec.append({ kind: "call", tool: "send_email", args: { to }, result: "sent" });
        await rec.close();
        sessions.push({ id, violating });
      }

      // Every claim in one block: queue the transactions with automine off, then mine once.
      await chain.testClient.setAutomine(false);
      const hashes: Hex[] = [];
      for (const s of sessions)
        hashes.push(
          await userWallet.writeContract({
            address: escrow.address,
            abi: escrow.abi,
            functionName: "fileClaim",
            args: [s.id, promiseId],
            value: BOND,
            chain: userWallet.chain,
            account: userWallet.account,
          }),
        );
      await chain.testClient.mine({ blocks: 1 });
      await chain.testClient.setAutomine(true);
      const receipts = await Promise.all(
        hashes.map((hash) => chain.publicClient.waitForTransactionReceipt({ hash })),
      );
      expect(new Set(receipts.map((r) => r.blockNumber)).size, "one block").toBe(1);
      expect(receipts.every((r) => r.status === "success")).toBe(true);

      const log = memoryLogger();
      const watcher = ClaimWatcher.open({
        store,
        escrow,
        statePath: join(dir, "watcher.sqlite"),
        log,
        pollMs: 20,
        memoryBudgetMB: BUDGET_MB,
      });
      let peakRss = process.memoryUsage().rss;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
      const started = performance.now();
      const settled = new Set<bigint>();
      try {
        for (let tick = 0; settled.size < CLAIMS && tick < 200; tick++) {
          const report = await watcher.tick();
          for (const id of report.settled) {
            expect(settled.has(id), `claim ${id} settled twice`).toBe(false);
            settled.add(id);
          }
          expect(report.refused).toEqual([]);
        }
      } finally {
        clearInterval(sampler);
        watcher.close();
      }
      const seconds = (performance.now() - started) / 1000;
      expect(settled.size).toBe(CLAIMS);

      // On-chain: exactly one ClaimSettled per claim, with the outcome the trace deserves.
      const logs = await chain.publicClient.getContractEvents({
        address: escrow.address,
        abi: escrow.abi,
        eventName: "ClaimSettled",
        fromBlock: escrow.fromBlock,
      });
      expect(logs).toHaveLength(CLAIMS);
      for (const l of logs) {
        const { claimId, violated } = l.args as { claimId: bigint; violated: boolean };
        const claim = await escrow.claim(claimId);
        expect(violated).toBe(sessions.find((s) => s.id === claim.sessionId)!.violating);
      }
      const peakMb = Math.round(peakRss / 2 ** 20);
      expect(peakMb, "peak RSS within the watcher's memory budget").toBeLessThanOrEqual(BUDGET_MB);
      const result = {
        claims: CLAIMS,
        seconds: Number(seconds.toFixed(1)),
        peakRssMb: peakMb,
        budgetMb: BUDGET_MB,
      };
      console.log("watcher load", result);
      mkdirSync("build/bench", { recursive: true });
      writeFileSync("build/bench/watcher-load.json", JSON.stringify(result, null, 2));
      store.close();
    },
  );
});
