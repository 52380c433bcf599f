// Predicate fixtures: fixtures/<predicate id, lower case>/<what-it-tests>.json, each
//   { description, predicate, theta, profile, records: TraceRecord[], expected: {violated, seq} }
// The generic runners (test/predicates/fixtures.test.ts, test/e2e/predicates.test.ts)
// check the oracle against `expected` and the circuit against the oracle.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseProfile, type EncodingProfile } from "../../sdk/core/profile.js";
import { parseRecord, type TraceRecord } from "../../sdk/core/records.js";

export interface PredicateFixture {
  file: string;
  description: string;
  predicate: string;
  theta: unknown;
  profile: EncodingProfile;
  records: TraceRecord[];
  expected: { violated: boolean; seq: number | null };
}

const ROOT = join(process.cwd(), "fixtures");

export function predicateFixtures(predicate?: string): PredicateFixture[] {
  const dirs = readdirSync(ROOT).filter((d) => /^aap-\d+$/.test(d) && statSync(join(ROOT, d)).isDirectory());
  return dirs
    .flatMap((d) =>
      readdirSync(join(ROOT, d))
        .filter((f) => f.endsWith(".json"))
        .map((f) => join(d, f)),
    )
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(join(ROOT, file), "utf8"));
      return {
        file,
        description: raw.description,
        predicate: raw.predicate,
        theta: raw.theta,
        profile: parseProfile(raw.profile),
        records: (raw.records as unknown[]).map(parseRecord),
        expected: raw.expected,
      };
    })
    .filter((f) => predicate === undefined || f.predicate === predicate);
}
