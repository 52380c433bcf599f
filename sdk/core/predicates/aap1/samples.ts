// AAP-1's bench samples (./../samples.ts): the compliant approvals fixture and an allow that stands after a deny,
// repeated; the violated trace ends in an approval used twice. The stream: a human approval, then the exec call
// it covers, over and over; the violation denies the last approval, so the last call runs without one.
import { keccak256, toBytes } from "viem";
import { canonicalJson } from "../../canonical.js";
import type { RecordBody } from "../../records.js";
import { fill, type PredicateSamples } from "../samples.js";

const execArgs = (i: number) => ({ command: `make job-${i >> 1}` });

export const aap1Samples: PredicateSamples = {
  fromFixtures(source, capacity) {
    const base = source.fixture("aap-1/compliant.json");
    const filler = [base.records, source.fixture("aap-1/allow-after-deny-stands.json").records];
    const tail = source.fixture("aap-1/approval-reused.json").records;
    return {
      theta: base.theta,
      profile: base.profile,
      satisfied: fill(filler, capacity),
      violated: fill(filler, capacity, tail),
      sources: ["aap-1/compliant.json", "aap-1/allow-after-deny-stands.json", "aap-1/approval-reused.json"],
    };
  },

  stream: {
    theta: { gatedTools: ["exec"], acceptedAuthorities: ["human"] },
    profile: { version: 1, tools: { exec: {} } },
    description: "a human approval, then the exec call it covers; the violating approval is a deny",
    record: (i: number, bad: boolean): RecordBody =>
      i % 2 === 0
        ? {
            kind: "authorization",
            actionId: `a${i >> 1}`,
            tool: "exec",
            argsHash: keccak256(toBytes(canonicalJson(execArgs(i)))),
            decision: bad ? "deny" : "allow",
            authority: "human",
            scope: "once",
          }
        : { kind: "call", tool: "exec", args: execArgs(i), actionId: `a${i >> 1}` },
  },
};
