// Adversarial witness sweep of aap4_n8 (test/adversary/sweep.ts): each fixture claimed the other way.
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep("aap4_n8", [
    fixtureCase("aap-4/grant-then-send"),
    fixtureCase("aap-4/send-before-grant"),
    fixtureCase("aap-4/list-with-granted-and-off-list"),
  ]);
});
