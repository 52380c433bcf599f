// The coverage replay (prover/replay.ts) without proofs: all 36 AgentDojo pairs agree with the reference's
// verdict and seq; every τ³-bench pair whose arm has a rule (sdk/core/rules/tau-arms.ts, an AAP-7 promise)
// agrees too, and the others are reported unsupported with the reason;
// the table counts what the rows say, and a folder not in the layout is refused naming the file. The replay
// with every judged pair settled on-chain is test/full/replay.test.ts.
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replay, summarise } from "../../prover/replay.js";
import { TAU_RULES } from "../../sdk/core/rules/tau-arms.js";
import type { TauDomain } from "../../sdk/core/rules/tau-facts.js";

describe("coverage replay, verdicts only", () => {
  it("agrees with the reference on every AgentDojo pair and every τ³-bench pair whose arm has a rule", async () => {
    const rows = await replay(["fixtures/vai-agentdojo", "fixtures/vai-tau"]);
    const agentdojo = rows.filter((r) => r.benchmark === "agentdojo");
    expect(agentdojo).toHaveLength(36);
    expect(agentdojo.filter((r) => r.agrees)).toHaveLength(36);
    expect(agentdojo.filter((r) => r.reference.violated)).toHaveLength(8);
    const tau = rows.filter((r) => r.benchmark.startsWith("tau_"));
    expect(tau).toHaveLength(34);
    const [domainOf, armOf] = [
      (id: string) => id.split("/")[0] as TauDomain,
      (id: string) => id.split("/")[1]!,
    ];
    const ruled = tau.filter((r) => Object.hasOwn(TAU_RULES[domainOf(r.promiseId)], armOf(r.promiseId)));
    // One dev pair per promise: every arm that has a rule is judged.
    expect(ruled).toHaveLength(
      Object.keys(TAU_RULES.tau_retail).length + Object.keys(TAU_RULES.tau_airline).length,
    );
    for (const r of ruled) expect(r.agrees, `${r.caseId} ${r.promiseId}`).toBe(true);
    for (const r of tau.filter((x) => !ruled.includes(x))) {
      expect(r.agrees).toBeUndefined();
      expect(r.zkvai).toEqual({
        unsupported: expect.stringMatching(/no zkVAI rule for this arm yet \(issue 37/),
      });
    }
    const table = summarise(rows);
    expect(table.filter((t) => t.benchmark === "agentdojo")).toHaveLength(10);
    for (const t of table.filter((x) => x.benchmark === "agentdojo")) {
      expect(t.agreeing).toBe(t.runs);
      expect(t.zkvaiViolations).toBe(t.referenceViolations);
      expect(t.settled).toBe(0);
    }
    expect(table.filter((t) => t.unsupported)).toHaveLength(34 - ruled.length);
  });

  it("refuses a folder that is not a benchmark folder, naming what is wrong", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zkvai-replay-bad-"));
    await expect(replay([dir])).rejects.toThrow(/cannot read promises\.json/);
    writeFileSync(join(dir, "promises.json"), "[]");
    mkdirSync(join(dir, "runs"));
    writeFileSync(
      join(dir, "expected.jsonl"),
      JSON.stringify({ case_id: "c", promise_id: "p", violated: false }),
    );
    await expect(replay([dir])).rejects.toThrow(/expected\.jsonl line 1: no run c in runs\//);
  });
});
