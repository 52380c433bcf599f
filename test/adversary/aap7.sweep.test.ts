// Adversarial witness sweep of aap7_n8, the test build's AAP-7 circuit (test/adversary/sweep.ts): each fixture
// claimed the other way, with the statuses, contents and rows digests of the records, the rows (their parts,
// facts, tools, ok and liveness), rows past n, θ's rule columns, the keyed state's hints and every internal `<--`
// hint tampered with. Four cases, two of each verdict: retail's status_precondition (a keyed state read and
// written on both), and two that read sub-rows and the register: payment_in_profile's chained lookup
// (reservation → owner → profile version → Poseidon(version, id)) and one_user's write-once user against the
// loaded owner. In test:full up to 100 (the first pair) and 60 (the second) variants of every class, spread over
// all of them (54,045 constraints a solve).
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome: keyed state", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep(
    "aap7_n8",
    [fixtureCase("aap-7/status-return-of-pending"), fixtureCase("aap-7/status-pending-then-cancel")],
    100,
  );
});

it(
  "no tamper class proves the other outcome: sub-rows and the register",
  { timeout: SWEEP_TIMEOUT_MS },
  async () => {
    await sweep("aap7_n8", [fixtureCase("aap-7/payment-chain-small"), fixtureCase("aap-7/owner-small")], 60);
  },
);
