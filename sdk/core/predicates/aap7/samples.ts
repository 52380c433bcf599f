// AAP-7's bench samples (../samples.ts): retail's status_precondition, the keyed-latest shape every rule with
// state shares. The fixtures: an agent that reads an order (pending) and then cancels it
// (fixtures/aap-7/status-pending-then-cancel.json) and a τ³ run whose cancellation tau2 rejected
// (status-rejected-call-skipped.json), in turn, and the violated trace ending in a return of an order whose
// last read said pending (fixtures/aap-7/status-return-of-pending.json). The stream: the agent
// reads order i (pending) and cancels it; the violating call cancels an order it never read (fail-closed).
import type { RecordBody } from "../../records.js";
import { fill, type PredicateSamples } from "../samples.js";

const RETAIL_PROFILE = {
  version: 1,
  facts: "tau_retail",
  tools: { get_order_details: {}, cancel_pending_order: {} },
};

const order = (id: string, status: string) => JSON.stringify({ order_id: id, user_id: "u_1", status });

export const aap7Samples: PredicateSamples = {
  fromFixtures(source, capacity) {
    const compliant = source.fixture("aap-7/status-pending-then-cancel.json");
    // A τ³ run whose cancellation tau2 rejected: a blocked call, and the run's context records.
    const rejected = source.fixture("aap-7/status-rejected-call-skipped.json");
    const tail = source.fixture("aap-7/status-return-of-pending.json");
    const tools = { ...compliant.profile.tools, ...rejected.profile.tools, ...tail.profile.tools };
    return {
      theta: compliant.theta,
      profile: { ...compliant.profile, tools },
      satisfied: fill([compliant.records, rejected.records], capacity),
      violated: fill([compliant.records, rejected.records], capacity, tail.records),
      sources: [
        "aap-7/status-pending-then-cancel.json",
        "aap-7/status-rejected-call-skipped.json",
        "aap-7/status-return-of-pending.json",
      ],
    };
  },

  stream: {
    theta: { domain: "tau_retail", rule: "status_precondition" },
    profile: RETAIL_PROFILE,
    description:
      "reads an order (pending), then cancels it; the violating call cancels an order never read (fail-closed)",
    record: (i: number, bad: boolean): RecordBody => {
      const id = `#W${Math.floor(i / 2)}`;
      if (bad)
        return {
          kind: "call",
          tool: "cancel_pending_order",
          args: { order_id: "#never-read", reason: "no longer needed" },
          result: order("#never-read", "cancelled"),
        };
      return i % 2 === 0
        ? { kind: "call", tool: "get_order_details", args: { order_id: id }, result: order(id, "pending") }
        : {
            kind: "call",
            tool: "cancel_pending_order",
            args: { order_id: id, reason: "no longer needed" },
            result: order(id, "cancelled"),
          };
    },
  },
};
