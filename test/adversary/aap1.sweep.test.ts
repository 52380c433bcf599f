// Adversarial witness sweep of aap1_n4 (test/adversary/sweep.ts): each fixture claimed the other way.
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep("aap1_n4", [
    fixtureCase("aap-1/allow-after-deny-stands"),
    fixtureCase("aap-1/deny-cancels"),
    fixtureCase("aap-1/approval-reused"),
  ]);
});
