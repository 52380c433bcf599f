// AAP-7 rules as a predicate: θ and the profile it needs, the facts bound into each record's digest, the circuit
// bound to the rule θ names and to the committed facts, and a random differential of the whole-claim circuit
// (aap7_n8) against the oracle on order and transfer traces. The rule form and the τ³ arms against the reference
// are test/rules/tau-rules.test.ts; every fixture runs through the circuit in ./fixtures.test.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { aap7Rule } from "../../sdk/core/predicates/aap7/definition.js";
import { paramsHashOf } from "../../sdk/core/predicates/index.js";
import { ThetaError } from "../../sdk/core/predicates/types.js";
import { parseProfile, ProfileError, type EncodingProfile } from "../../sdk/core/profile.js";
import type { CallRecord, TraceRecord } from "../../sdk/core/records.js";
import { RULE_FACTS } from "../../sdk/core/rules/rule.js";
import { tauRowsDigest } from "../../sdk/core/rules/tau-rows.js";
import { aap7Input } from "../helpers/aap7.js";
import { compileInstance, instance } from "../helpers/instance.js";
import {
  expectVerdict,
  PROPERTY_TIMEOUT_MS,
  runsOf,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";

const INSTANCE = instance("aap7_n8");
const RETAIL = parseProfile({
  version: 1,
  facts: "tau_retail",
  tools: {
    get_order_details: {},
    cancel_pending_order: {},
    return_delivered_order_items: {},
    transfer_to_human_agents: {},
    "tau.assistant": {},
    "tau.end": {},
  },
});
const STATUS = aap7Rule.parseTheta({ domain: "tau_retail", rule: "status_precondition" });
const TRANSFER = aap7Rule.parseTheta({ domain: "tau_retail", rule: "transfer_notice_after_success" });

const input = (records: readonly TraceRecord[], theta = STATUS, profile: EncodingProfile = RETAIL) =>
  aap7Input(records, theta, profile, INSTANCE.name);

const call = (
  seq: number,
  tool: string,
  args: CallRecord["args"],
  result: unknown,
  blocked = false,
): CallRecord => ({
  kind: "call",
  seq,
  ts: seq,
  tool,
  args,
  result: typeof result === "string" ? result : JSON.stringify(result),
  ...(blocked ? { blocked: true, error: "Error: refused" } : {}),
});
const order = (id: string, status: string) => ({ order_id: id, user_id: "u", status });

describe("θ and the profile", () => {
  it("takes {domain, rule} for an arm with a rule, and names what is wrong otherwise", () => {
    expect(STATUS).toEqual({ domain: "tau_retail", rule: "status_precondition" });
    expect(() => aap7Rule.parseTheta({ domain: "tau_rail", rule: "x" })).toThrow(/domain must be one of/);
    expect(() => aap7Rule.parseTheta({ domain: "tau_airline", rule: "route_preserved" })).toThrow(
      /tau_airline has no rule "route_preserved" \(rules: .*no_bag_removal/,
    );
    expect(() => aap7Rule.parseTheta({ domain: "tau_airline", rule: "status_precondition" })).toThrow(
      ThetaError,
    );
    expect(() => aap7Rule.parseTheta({ domain: "tau_retail", rule: "auth_first", x: 1 })).toThrow(/x/);
  });

  it("needs a profile that derives the rule's domain facts", () => {
    expect(() => aap7Rule.checkProfile(STATUS, RETAIL)).not.toThrow();
    expect(() => aap7Rule.checkProfile(STATUS, { version: 1, tools: {} })).toThrow(/derives none/);
    expect(() => aap7Rule.checkProfile(STATUS, { version: 1, tools: {}, facts: "tau_airline" })).toThrow(
      /set its "facts" to "tau_retail"/,
    );
    expect(() => parseProfile({ version: 1, tools: {}, facts: "tau_rail" })).toThrow(ProfileError);
    expect(() =>
      parseProfile({
        version: 1,
        facts: "tau_retail",
        tools: { read: { observe: { fact: "p", from: "args", path: "$.p" } } },
      }),
    ).toThrow(/drop the tool's observe/);
  });

  it("binds the rule's data: every arm has its own paramsHash, of 272 elements", () => {
    // [7, T, W, S, domain], the tests (9 + S), then the entry table: tools and 15 columns of T.
    expect(aap7Rule.thetaVector(STATUS)).toHaveLength(5 + 9 + 2 + 16 * 16);
    const hashes = ["status_precondition", "auth_first", "once_per_order", "modify_items_lockout"].map(
      (rule) => paramsHashOf(aap7Rule, aap7Rule.parseTheta({ domain: "tau_retail", rule })),
    );
    expect(new Set(hashes).size).toBe(4);
  });

  it("commits each executed call's rows in its digest, and a blocked call's content alone", () => {
    const records = [
      call(0, "get_order_details", { order_id: "#1" }, order("#1", "pending")),
      call(1, "cancel_pending_order", { order_id: "#1" }, "Error: no", true),
    ];
    const [read, blocked] = encodeTrace(records, RETAIL, 1n);
    expect(read!.observed).toBe(true);
    // Its primary row and, as a user-scoped call, its owner lookup row; obs[0] is their chain.
    expect(read!.rows!.map((r) => r.part)).toEqual([0, 1]);
    expect(read!.rows![0]!.facts).toHaveLength(RULE_FACTS);
    expect(read!.obs[0]).toBe(tauRowsDigest(read!.rows!));
    expect(blocked!.observed).toBe(false);
    expect(blocked!.digest).toBe(blocked!.content);
    // Another status in the result is another fact, so another leaf.
    const other = encodeTrace(
      [call(0, "get_order_details", { order_id: "#1" }, order("#1", "delivered"))],
      RETAIL,
      1n,
    );
    expect(other[0]!.leaf).not.toBe(read!.leaf);
  });
});

describe("aap7_n8 (the test build's circuit)", () => {
  let circuit: TestCircuit;
  beforeAll(async () => {
    circuit = await compileInstance(INSTANCE.name);
  }, 600_000);

  const violating = [
    call(0, "get_order_details", { order_id: "#1" }, order("#1", "pending")),
    call(1, "return_delivered_order_items", { order_id: "#1" }, order("#1", "return requested")),
  ];

  // The frame (CommittedTrace(3, K), θ's hash of 272 elements), 8 records' digests, RecordRows(8, 16, 12) and
  // RuleCheck over 16 rows; the gadgets alone are pinned in test/rules/rule-review.test.ts. A change is a decision.
  it("costs exactly 54,045 constraints", () => {
    expect(circuit.constraints).toBe(54_045);
  });

  it("proves the oracle's verdict, and no witness claims the other", async () => {
    expect(aap7Rule.evaluate(violating, STATUS, RETAIL)).toMatchObject({ violated: true, seq: 1 });
    await expectVerdict(circuit, input(violating), true);
  });

  it("reads the facts the digest binds: a fact changed without its digest is refused", async () => {
    const honest = input(violating);
    const facts = (honest.facts as string[][]).map((row) => [...row]);
    // The read's stored status (fact 2, orderStatus) set to the return's required one.
    facts[0]![2] = (
      input([call(0, "get_order_details", { order_id: "#1" }, order("#1", "delivered"))]).facts as string[][]
    )[0]![2]!;
    expect(await witnessFails(circuit, { ...honest, facts, outcome: "0" })).toBe(true);
  });

  it("is bound to θ's rule: another arm's rule under this promise's paramsHash is refused", async () => {
    const honest = input(violating);
    const other = input(violating, aap7Rule.parseTheta({ domain: "tau_retail", rule: "auth_first" }));
    expect(await witnessFails(circuit, { ...other, paramsHash: honest.paramsHash })).toBe(true);
  });

  // Random order traces: reads and writes of two orders with random statuses, rejected calls, and the transfer
  // arm's messages; both rules, oracle = circuit.
  const orderId = fc.constantFrom("#1", "#2");
  const status = fc.constantFrom("pending", "delivered", "cancelled");
  const step = fc.oneof(
    fc.record({ tool: fc.constant("get_order_details"), id: orderId, status, blocked: fc.boolean() }),
    fc.record({ tool: fc.constant("cancel_pending_order"), id: orderId, status, blocked: fc.boolean() }),
    fc.record({
      tool: fc.constant("return_delivered_order_items"),
      id: orderId,
      status,
      blocked: fc.boolean(),
    }),
    fc.record({ tool: fc.constant("transfer_to_human_agents"), id: orderId, status, blocked: fc.boolean() }),
    fc.record({ tool: fc.constant("tau.assistant"), id: orderId, status, blocked: fc.boolean() }),
  );
  const toRecord = (s: { tool: string; id: string; status: string; blocked: boolean }, seq: number) =>
    s.tool === "tau.assistant"
      ? call(
          seq,
          s.tool,
          {},
          {
            text: s.blocked ? "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON." : "ok",
            calls: [],
          },
        )
      : s.tool === "transfer_to_human_agents"
        ? call(seq, s.tool, { summary: "x" }, s.blocked ? "Error: no" : "Transfer successful", s.blocked)
        : call(seq, s.tool, { order_id: s.id }, s.blocked ? "Error: no" : order(s.id, s.status), s.blocked);

  it(
    "agrees with the oracle on random traces, both rules",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 7 }), async (steps) => {
          const records = [...steps.map(toRecord), call(steps.length, "tau.end", {}, {})];
          for (const theta of [STATUS, TRANSFER]) {
            const verdict = aap7Rule.evaluate(records, theta, RETAIL);
            const w = await circuit.witness(input(records, theta));
            expect(w[circuit.signals.get("outcome")!]).toBe(verdict.violated ? 1n : 0n);
          }
        }),
        // Two witnesses a case: 12 cases in npm test, 200 in test:full.
        runsOf(200, 12),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe("keys name their maps", () => {
  // An independent review (issue 37): while reservations were keyed by their bare id, a reservation id
  // "user:<id>" was that user's mention key, so a successful read of such a reservation (an opaque result: an
  // owner of 0) marked the id as typed by the user and hid a user_id_from_user violation.
  it("a reservation id shaped like a mention key does not mark the user as mentioned", () => {
    const fixture = JSON.parse(
      readFileSync(
        join(import.meta.dirname, "..", "..", "fixtures", "aap-7", "user-id-only-from-agent.json"),
        "utf8",
      ),
    ) as { records: TraceRecord[]; profile: EncodingProfile; theta: unknown; expected: { seq: number } };
    const crafted = {
      kind: "call",
      seq: 0,
      ts: 0,
      tool: "get_reservation_details",
      args: { reservation_id: "user:mia_li_3668" },
      result: "ok",
    } as TraceRecord;
    const records = [...fixture.records.slice(0, 6), crafted, ...fixture.records.slice(6)].map(
      (r, seq) => ({ ...r, seq }) as TraceRecord,
    );
    const theta = aap7Rule.parseTheta(fixture.theta);
    expect(aap7Rule.evaluate(fixture.records, theta, fixture.profile)).toMatchObject({
      violated: true,
      seq: 8,
    });
    expect(aap7Rule.evaluate(records, theta, fixture.profile)).toMatchObject({ violated: true, seq: 9 });
  });
});
