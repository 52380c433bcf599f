// Adversarial witness sweep of aap7_n16 (test/adversary/sweep.ts): each fixture claimed the other way, with the
// facts, statuses and contents of the rows (the digest's parts), rows past n, θ's rule columns and the keyed
// state's hints tampered with.
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep("aap7_n16", [
    // First two, both verdicts (the default plays only those): the keyed state with a fail-closed fire, and a
    // pending flag cleared by a later message.
    fixtureCase("aap-7/status-never-read-fail-closed"),
    fixtureCase("aap-7/transfer-then-notice"),
    fixtureCase("aap-7/status-cancel-of-delivered"),
    fixtureCase("aap-7/bags-removed"),
    fixtureCase("aap-7/cancel-reason-not-allowed"),
    fixtureCase("aap-7/passenger-count-kept"),
    fixtureCase("aap-7/lockout-after-items"),
    fixtureCase("aap-7/two-calls-one-message"),
  ]);
});
