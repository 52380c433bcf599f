// Adversarial witness sweep of aap3_n4 (test/adversary/sweep.ts): each fixture claimed the other way.
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep("aap3_n4", [
    fixtureCase("aap-3/amount-equals-cap"),
    fixtureCase("aap-3/merchant-off-list"),
    fixtureCase("aap-3/two-merchants-one-off-list"),
  ]);
});
