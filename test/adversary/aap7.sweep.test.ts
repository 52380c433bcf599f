// Adversarial witness sweep of aap7_n8, the test build's AAP-7 circuit (test/adversary/sweep.ts): each fixture
// claimed the other way, with the facts, statuses and contents of the rows (the digest's parts), rows past n, θ's
// rule columns, the keyed state's hints and every internal `<--` hint tampered with. Two cases, one of each
// verdict, on retail's status_precondition (a keyed state read and written on both): in test:full up to 150
// variants of every class, spread over all of them, on both (24,305 constraints a solve).
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep(
    "aap7_n8",
    [
      fixtureCase("aap-7/status-return-of-pending"),
      fixtureCase("aap-7/status-pending-then-cancel"),
      // Every variant of every class took 27 min in test:full (thousands of per-bit solves); 150 a class, spread.
    ],
    150,
  );
});
