// The README's `npm run demo`, run as a user would (after setup, which npm test does first).
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";

it("npm run demo settles all six claims, one by segment proofs, two of an MCP agent under AAP-6, and exits 0", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
    encoding: "utf8",
    timeout: 420_000,
  });
  expect(r.stderr).not.toMatch(/demo failed/);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/proof \(aap4_n8\): SATISFIED/);
  expect(r.stdout).toMatch(
    /proof \(aap4_n8\): VIOLATED \(egress send_email to non-allowlisted recipient 'billing@attacker\.example'/,
  );
  // The MCP file agent under AAP-6: the delete a prompt injection caused is proven ungrounded.
  expect(r.stdout).toMatch(/proof \(aap6_n8\): SATISFIED/);
  expect(r.stdout).toMatch(
    /proof \(aap6_n8\): VIOLATED \(delete_file acts on path '\/etc\/app\/config\.yaml'.*, record 3\)/,
  );
  expect(r.stdout).toMatch(/no proof within 3 days → claimDefault pays user payout \+ bond/);
  expect(r.stdout).toMatch(/user: +credited \+3\.3 ETH/);
  expect(r.stdout).toMatch(/3 segment proofs \(aap3_seg8\) in 2 worker processes: SATISFIED/);
  expect(r.stdout).toMatch(/provider: credited \+0\.3 ETH/);
  expect(r.stdout).toMatch(/all six claims settled as the protocol says/);
}, 480_000);
