// The AgentDojo runs from the reference implementation, as zkVAI sessions:
// records, an encoding profile that reads each promise's recipient argument,
// and each promise's AAP-4 θ.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { importVaiJsonl, type ImportedTrace } from "../../sdk/core/import-vai.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { Aap4Theta } from "../../sdk/core/predicates/aap4/definition.js";

const DIR = join(process.cwd(), "fixtures", "vai-agentdojo");

interface VaiPromise {
  promise_id: string;
  suite: string;
  egress_tools: string[];
  recipient_key: string;
  recipient_allowlist: string[];
}

export interface Expected {
  case_id: string;
  promise_id: string;
  violated: boolean;
  seq: number | null;
  reason: string;
}

export interface AgentDojoCase {
  caseId: string;
  trace: ImportedTrace;
  profile: EncodingProfile;
  pairs: { promiseId: string; theta: Aap4Theta; expected: Expected }[];
}

export function agentDojoCases(): AgentDojoCase[] {
  const promises = JSON.parse(readFileSync(join(DIR, "promises.json"), "utf8")) as VaiPromise[];
  const expected = readFileSync(join(DIR, "expected.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Expected);
  return readdirSync(join(DIR, "runs"))
    .sort()
    .map((file) => {
      const caseId = file.replace(/\.jsonl$/, "");
      const trace = importVaiJsonl(readFileSync(join(DIR, "runs", file), "utf8"));
      const mine = expected.filter((e) => e.case_id === caseId);
      const profile: EncodingProfile = { version: 1, tools: {} };
      for (const r of trace.records) if (r.kind === "call") profile.tools[r.tool] = {};
      const pairs = mine.map((e) => {
        const p = promises.find((x) => x.promise_id === e.promise_id)!;
        for (const tool of p.egress_tools) profile.tools[tool] = { target: p.recipient_key };
        return {
          promiseId: p.promise_id,
          theta: { outboundTools: p.egress_tools, allowlist: p.recipient_allowlist },
          expected: e,
        };
      });
      return { caseId, trace, profile, pairs };
    });
}
