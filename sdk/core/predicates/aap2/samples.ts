// AAP-2's bench samples (../samples.ts): reads and approved writes under the allowed prefixes, after one grant;
// the violated trace ends in a grant, its revoke and a call under the revoked prefix. The stream: reads under
// /data, the violating one of /etc/passwd.
import { fill, withApprovals, type PredicateSamples } from "../samples.js";

export const aap2Samples: PredicateSamples = {
  fromFixtures(source, capacity) {
    const base = source.fixture("aap-2/compliant.json");
    const granted = source.fixture("aap-2/grant-then-call.json").records;
    const filler = [
      withApprovals(base.records, "write_file"),
      source.fixture("aap-2/blocked-call.json").records,
    ];
    const tail = source.fixture("aap-2/grant-then-revoke-then-call.json").records;
    return {
      theta: base.theta,
      profile: base.profile,
      satisfied: fill(filler, capacity, [], granted),
      violated: fill(filler, capacity, tail, granted),
      sources: [
        "aap-2/compliant.json",
        "aap-2/grant-then-call.json",
        "aap-2/blocked-call.json",
        "aap-2/grant-then-revoke-then-call.json",
      ],
    };
  },

  stream: {
    theta: { scopedTools: ["read_file"], allowPrefixes: ["/data"] },
    profile: { version: 1, tools: { read_file: { path: "path" } } },
    description: "reads under /data; the violating one of /etc/passwd",
    record: (i: number, bad: boolean) => ({
      kind: "call" as const,
      tool: "read_file",
      args: { path: bad ? "/etc/passwd" : `/data/run/${i % 97}.json` },
    }),
  },
};
