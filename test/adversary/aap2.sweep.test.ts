// Adversarial witness sweep of aap2_n4 (test/adversary/sweep.ts): each fixture claimed the other way.
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep("aap2_n4", [
    fixtureCase("aap-2/grant-then-call"),
    fixtureCase("aap-2/call-before-grant"),
    fixtureCase("aap-2/deep-path-under-shallow-prefix"),
  ]);
});
