// AAP-3's bench samples (../samples.ts): approved payments to listed merchants, a blocked one and one at the cap;
// the violated trace ends in a payment off the list. The stream: payments to listed merchants, the violating
// one to a stranger.
import { fill, withApprovals, type PredicateSamples } from "../samples.js";

export const aap3Samples: PredicateSamples = {
  fromFixtures(source, capacity) {
    const base = source.fixture("aap-3/compliant.json");
    const filler = [
      withApprovals(base.records, "send_payment"),
      source.fixture("aap-3/blocked-payment.json").records,
      withApprovals(source.fixture("aap-3/amount-equals-cap.json").records, "send_payment"),
    ];
    const tail = withApprovals(source.fixture("aap-3/merchant-off-list.json").records, "send_payment");
    return {
      theta: base.theta,
      profile: base.profile,
      satisfied: fill(filler, capacity),
      violated: fill(filler, capacity, tail),
      sources: [
        "aap-3/compliant.json",
        "aap-3/blocked-payment.json",
        "aap-3/amount-equals-cap.json",
        "aap-3/merchant-off-list.json",
      ],
    };
  },

  stream: {
    theta: { payTools: ["pay"], merchants: ["shop", "m"], cap: "1000000" },
    profile: { version: 1, tools: { pay: { target: "to", amount: { key: "wei", decimals: 0 } } } },
    description: "payments to listed merchants; the violating one to a stranger",
    record: (i: number, bad: boolean) => ({
      kind: "call" as const,
      tool: "pay",
      args: { to: bad ? "stranger" : i % 2 ? "m" : "shop", wei: String(1 + (i % 1000)) },
    }),
  },
};
