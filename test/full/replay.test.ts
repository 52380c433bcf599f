// The coverage replay with proofs (npm run replay -- --prove), in test:full: every judged pair of the AgentDojo
// and τ³-bench folders is recorded, claimed, proven with the claim's circuit and settled on an in-process chain,
// with the reference's outcome (τ³-bench's through AAP-7, the arms with a rule); the AgentDojo runs that hold no
// record are reported as not settled, with the reason, and the τ³ arms without a rule as unsupported.
import { describe, expect, it } from "vitest";
import { replay, summarise } from "../../prover/replay.js";
import { releaseProver } from "../../prover/prove.js";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { checkoutBuilder } from "../../bin/cli/setup.js";
import { PROPERTY_TIMEOUT_MS } from "../helpers/circuit.js";

const build = checkoutBuilder();

describe("coverage replay, settled on-chain", () => {
  it(
    "settles every judged pair with a record with the reference's outcome",
    async () => {
      try {
        const rows = await replay(["fixtures/vai-agentdojo", "fixtures/vai-tau"], {
          prove: true,
          chain: embeddedChain,
          // A fresh clone has built only the test and full groups: a 9-record run needs aap4_n16, built here.
          build: (circuit) => build!(["--only", circuit]),
        });
        expect(rows).toHaveLength(70);
        const judged = rows.filter((r) => !("unsupported" in r.zkvai));
        for (const r of rows.filter((x) => "unsupported" in x.zkvai)) expect(r.benchmark).toMatch(/^tau_/);
        for (const r of judged) {
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
        expect(settled.filter((r) => r.benchmark === "agentdojo")).toHaveLength(33);
        // One dev pair per τ³ promise whose arm has a rule (22 at this writing), each through aap7_n16.
        const tau = settled.filter((r) => r.benchmark.startsWith("tau_"));
        expect(tau.length).toBe(judged.filter((r) => r.benchmark.startsWith("tau_")).length);
        expect(tau.length).toBeGreaterThanOrEqual(22);
        for (const t of summarise(rows)) expect(t.settledAgreeing).toBe(t.settled);
      } finally {
        await releaseProver();
      }
    },
    PROPERTY_TIMEOUT_MS,
  );
});
