// Adversarial witness sweep of aap6_n8 (test/adversary/sweep.ts): each fixture claimed the other way,
// with the observation classes (values copied between rows, rows past n, statuses) and the grounding hints.
import { it } from "vitest";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep("aap6_n8", [
    // First two, both verdicts (the default plays only those): a blocked read (a row of a source tool that is
    // not observed, which an earlier circuit let a prover dress as an OK read) and a grounded delete.
    fixtureCase("aap-6/blocked-read-grounds-nothing"),
    fixtureCase("aap-6/grounded-by-listing-result"),
    fixtureCase("aap-6/listing-omits-target"),
    fixtureCase("aap-6/same-record-does-not-ground"),
    fixtureCase("aap-6/failed-read-grounds-nothing"),
    fixtureCase("aap-6/read-before-delete"),
  ]);
});
