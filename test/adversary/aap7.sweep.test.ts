// Adversarial witness sweep of aap7_n8, the test build's AAP-7 circuit (test/adversary/sweep.ts): each fixture
// claimed the other way, with the facts, statuses and contents of the rows (the digest's parts), rows past n, θ's
// rule columns, the keyed state's hints and every internal `<--` hint tampered with. Two cases, one of each
// verdict, on retail's status_precondition (a keyed state read and written on both): in test:full every variant
// of every class is played on both, thousands of moves on a 24,305-constraint circuit.
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep("aap7_n8", [
    fixtureCase("aap-7/status-return-of-pending"),
    fixtureCase("aap-7/status-pending-then-cancel"),
  ]);
});
