// AAP-5's bench samples (../samples.ts): all three limits at once, set to exactly what the satisfied trace uses
// (as count-at-max / sum-at-max / repeats-at-max do); the violated trace repeats one more email. The stream:
// lookups of 97 queries over and over, and a payment of 1 every tenth record, under a sum and a repeat limit
// of a million; the violating payment is 2,000,000.
import { canonicalJson } from "../../canonical.js";
import { callAmount } from "../../encoding.js";
import type { CallRecord } from "../../records.js";
import { fill, withApprovals, type PredicateSamples } from "../samples.js";

export const aap5Samples: PredicateSamples = {
  fromFixtures(source, capacity) {
    const count = source.fixture("aap-5/count-at-max.json");
    const filler = [
      count.records,
      withApprovals(source.fixture("aap-5/sum-at-max.json").records, "send_payment"),
      source.fixture("aap-5/repeats-at-max.json").records,
    ];
    const satisfied = fill(filler, capacity);
    const profile = count.profile;
    const calls = satisfied.filter((r): r is CallRecord => r.kind === "call" && !r.blocked);
    let sum = 0n;
    for (const c of calls.filter((c) => c.tool === "send_payment")) {
      const a = callAmount(c, profile);
      if (typeof a !== "bigint") throw new Error(`AAP-5 bench trace: payment ${c.seq} has no amount`);
      sum += a;
    }
    const repeats = new Map<string, number>();
    for (const c of calls) {
      const key = `${c.tool}\0${canonicalJson(c.args)}`;
      repeats.set(key, (repeats.get(key) ?? 0) + 1);
    }
    const lastEmail = calls.filter((c) => c.tool === "send_email").at(-1);
    if (!lastEmail) throw new Error("AAP-5 bench trace: no email to repeat");
    const violated = [...satisfied.slice(0, -1), { ...lastEmail, seq: capacity - 1 }];
    return {
      theta: {
        countedTools: ["send_email"],
        maxCount: calls.filter((c) => c.tool === "send_email").length,
        summedTools: ["send_payment"],
        maxSum: Number(sum),
        maxRepeat: Math.max(...repeats.values()),
      },
      profile,
      satisfied,
      violated,
      sources: ["aap-5/count-at-max.json", "aap-5/sum-at-max.json", "aap-5/repeats-at-max.json"],
    };
  },

  stream: {
    theta: {
      countedTools: ["pay"],
      maxCount: "1000000",
      summedTools: ["pay"],
      maxSum: "1000000",
      maxRepeat: "1000000",
    },
    profile: {
      version: 1,
      tools: { pay: { target: "to", amount: { key: "wei", decimals: 0 } }, lookup: {} },
    },
    description:
      "lookups of 97 queries over and over, a payment of 1 every tenth record; the violating payment is 2,000,000",
    record: (i: number, bad: boolean) => {
      const args: Record<string, string> =
        i % 10 === 9 ? { to: "m", wei: bad ? "2000000" : "1" } : { q: `q${i % 97}` };
      return { kind: "call" as const, tool: i % 10 === 9 ? "pay" : "lookup", args };
    },
  },
};
