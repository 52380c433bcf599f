// The coverage replay with proofs (npm run replay -- --prove), in test:full: every judged AgentDojo pair is
// recorded, claimed, proven with the claim's circuit and settled on an in-process chain, with the oracle's
// outcome; the two runs that hold no record are reported as not settled, with the reason.
import { describe, expect, it } from "vitest";
import { replay, summarise } from "../../prover/replay.js";
import { releaseProver } from "../../prover/prove.js";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { checkoutBuilder } from "../../bin/cli/setup.js";
import { PROPERTY_TIMEOUT_MS } from "../helpers/circuit.js";

const build = checkoutBuilder();

describe("coverage replay, settled on-chain", () => {
  it(
    "settles every AgentDojo pair with a record with the reference's outcome",
    async () => {
      try {
        const rows = await replay(["fixtures/vai-agentdojo"], {
          prove: true,
          chain: embeddedChain,
          // A fresh clone has built only the test and full groups: a 9-record run needs aap4_n16, built here.
          build: (circuit) => build!(["--only", circuit]),
        });
        expect(rows).toHaveLength(36);
        for (const r of rows) {
          expect(r.agrees, `${r.caseId} ${r.promiseId}`).toBe(true);
          const s = r.settlement!;
          if ("skipped" in s) {
            expect(s.skipped).toMatch(/no record/);
            continue;
          }
          expect(s.outcome === "violated", `${r.caseId} ${r.promiseId}`).toBe(r.reference.violated);
          expect(s.settleGas).toBeLessThan(300_000);
        }
        const settled = rows.filter((r) => r.settlement && "circuit" in r.settlement);
        expect(settled.length).toBeGreaterThanOrEqual(30);
        for (const t of summarise(rows)) expect(t.settledAgreeing).toBe(t.settled);
      } finally {
        await releaseProver();
      }
    },
    PROPERTY_TIMEOUT_MS,
  );
});
