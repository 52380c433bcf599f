// Adversarial witness sweep of aap5_n4 (test/adversary/sweep.ts): repeats at and past the
// limit, and a count at its maximum, each claimed the other way.
import { it } from "vitest";
import { parseRecord } from "../../sdk/core/records.js";
import { fixtureCase, sweep, SWEEP_TIMEOUT_MS } from "./sweep.js";

const searches = (n: number) =>
  Array.from({ length: n }, (_, seq) =>
    parseRecord({ kind: "call", seq, ts: seq, tool: "search", args: { q: "x" } }),
  );
const profile = { version: 1 as const, tools: { search: {} } };

it("no tamper class proves the other outcome", { timeout: SWEEP_TIMEOUT_MS }, async () => {
  await sweep("aap5_n4", [
    {
      label: "two identical calls, maxRepeat 1 (violated)",
      theta: { maxRepeat: 1 },
      profile,
      records: searches(2),
    },
    {
      label: "two identical calls, maxRepeat 2 (satisfied)",
      theta: { maxRepeat: 2 },
      profile,
      records: searches(2),
    },
    fixtureCase("aap-5/count-at-max"),
  ]);
});
