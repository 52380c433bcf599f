// The active-at gadgets (circuits/gadgets/active_set.circom) shared by AAP-2 and
// AAP-4: SetEvents, the EventLog compaction into E slots and the ActiveIn query.
// Edges, a trace with more events than slots, a differential test against a plain
// TS model, forged witnesses on the compaction and the running state, and the
// exact cost.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { KIND } from "../../sdk/core/encoding.js";
import {
  compileTestCircuit,
  forge,
  signalsMatching,
  witnessFails,
  type TestCircuit,
  PROPERTY_TIMEOUT_MS,
  PROPERTY_RUNS,
  propertyParams,
} from "../helpers/circuit.js";

const N = 4;
const P = 2;
const E = 3;
const NS = 7n;
const OTHER_NS = 8n;

// out[i] / present[i]: ActiveIn for query[i] at record i, i = 0..N-1, over one
// SetEvents compacted into E slots.
const HARNESS = `
template ActiveSetHarness(N, P, E, NS) {
    signal input active[N];
    signal input kind[N];
    signal input tool[N];
    signal input value[N];
    signal input initial[P];
    signal input query[N];
    signal output out[N];
    signal output present[N];

    component events = SetEvents(N, NS);
    events.active <== active;
    events.kind <== kind;
    events.tool <== tool;
    events.value <== value;
    component eventLog = EventLog(N, E);
    eventLog.change <== events.change;
    eventLog.event <== events.event;
    eventLog.grant <== events.grant;

    component at[N];
    for (var i = 0; i < N; i++) {
        at[i] = ActiveIn(E, P);
        at[i].value <== query[i];
        at[i].initial <== initial;
        at[i].slot <== eventLog.value;
        at[i].granted <== eventLog.granted;
        at[i].before <== eventLog.before[i];
        out[i] <== at[i].out;
        present[i] <== at[i].present;
    }
}`;

interface Rec {
  active: boolean;
  kind: bigint;
  tool: bigint;
  value: bigint;
}

/** The TS model: active(v, i) as the gadget's header states it. */
function model(recs: readonly Rec[], initial: readonly bigint[], v: bigint, i: number): bigint {
  if (v === 0n) return 0n;
  let state = initial.includes(v);
  for (let j = 0; j < i; j++) {
    const r = recs[j];
    const change = r.active && r.tool === NS && (r.kind === KIND.grant || r.kind === KIND.revoke);
    if (change && r.value === v) state = r.kind === KIND.grant;
  }
  return state ? 1n : 0n;
}

const input = (recs: readonly Rec[], initial: readonly bigint[], query: readonly bigint[]) => ({
  active: recs.map((r) => (r.active ? "1" : "0")),
  kind: recs.map((r) => String(r.kind)),
  tool: recs.map((r) => String(r.tool)),
  value: recs.map((r) => String(r.value)),
  initial: initial.map(String),
  query: query.map(String),
});

const rec = (kind: bigint, value: bigint, extra: Partial<Rec> = {}): Rec => ({
  active: true,
  kind,
  tool: NS,
  value,
  ...extra,
});
const filler = (n: number): Rec[] => Array.from({ length: n }, () => rec(KIND.call, 99n));

let c: TestCircuit;
beforeAll(async () => {
  c = await compileTestCircuit("activeset", {
    includes: ["circuits/gadgets/active_set.circom"],
    body: HARNESS,
    template: "ActiveSetHarness",
    args: [N, P, E, NS],
  });
});

const outs = (w: bigint[]) => Array.from({ length: N }, (_, i) => w[c.signals.get(`out[${i}]`)!]);
const isEvent = (r: Rec) => r.active && r.tool === NS && (r.kind === KIND.grant || r.kind === KIND.revoke);

describe(`ActiveIn over EventLog (capacity ${N}, ${E} event slots, θ set of ${P})`, () => {
  // SetEvents: 3 IsEqual (2 each) + 3 products per record = 9.
  // EventLog: E + 1 one-hot booleans, the no-slot check, isGrant, 2E slot products = 3E + 3 per record.
  // ActiveIn: IsZero 2 + IsInSet(P) P + 1 + out 1, and per slot IsEqual 2 + hit 1 + update 1.
  it("costs exactly 9 + (3E + 3) per record plus (P + 4) + 4E per query", () => {
    expect(c.constraints).toBe(N * (9 + 3 * E + 3) + N * (P + 4 + 4 * E));
  });

  it("a grant affects only later records; a revoke removes a declared value; re-grant restores it", async () => {
    const recs = [rec(KIND.grant, 11n), rec(KIND.revoke, 21n), rec(KIND.revoke, 11n), rec(KIND.grant, 21n)];
    // Only three events fit; the fourth record is a call, so the log holds all of them.
    const three = recs.slice(0, 3).concat(rec(KIND.call, 11n));
    // active(11, i) for i = 0..3: before the grant, after it, still, revoked.
    let w = await c.witness(input(three, [21n, 0n], [11n, 11n, 11n, 11n]));
    expect(outs(w)).toEqual([0n, 1n, 1n, 0n]);
    // active(21, i): declared, declared, revoked, revoked.
    w = await c.witness(input(three, [21n, 0n], [21n, 21n, 21n, 21n]));
    expect(outs(w)).toEqual([1n, 1n, 0n, 0n]);
    expect(c.firstUnsatisfied(w)).toBe(-1);
    // The re-grant at record 3 is a fourth event: with three slots the trace has no witness.
    await expect(c.witness(input(recs, [21n, 0n], [21n, 21n, 21n, 21n]))).rejects.toThrow();
  });

  it("numbers the events in record order, and fills every slot when E events fit", async () => {
    const recs = [rec(KIND.call, 5n), rec(KIND.revoke, 13n), rec(KIND.call, 6n), rec(KIND.grant, 12n)];
    const w = await c.witness(input(recs, [13n, 0n], [13n, 13n, 13n, 12n]));
    // 13 is revoked at record 1 (slot 0), 12 granted at record 3 (slot 1): neither reaches record 3's query.
    expect(outs(w)).toEqual([1n, 1n, 0n, 0n]);
    // Three events in four records fit exactly, whatever their place.
    const full = [rec(KIND.grant, 12n), rec(KIND.call, 1n), rec(KIND.revoke, 12n), rec(KIND.grant, 13n)];
    const w2 = await c.witness(input(full, [0n, 0n], [12n, 12n, 12n, 13n]));
    expect(outs(w2)).toEqual([0n, 1n, 1n, 0n]);
    expect(c.firstUnsatisfied(w2)).toBe(-1);
  });

  it("ignores other namespaces, inactive records, and records that are not grants or revokes", async () => {
    const recs = [
      rec(KIND.grant, 11n, { tool: OTHER_NS }),
      rec(KIND.grant, 11n, { active: false }),
      rec(KIND.call, 11n),
      rec(KIND.authorization, 11n),
    ];
    const w = await c.witness(input(recs, [0n, 0n], [11n, 11n, 11n, 11n]));
    expect(outs(w)).toEqual([0n, 0n, 0n, 0n]);
    const revokes = [
      rec(KIND.revoke, 11n, { tool: OTHER_NS }),
      rec(KIND.revoke, 11n, { active: false }),
      rec(KIND.blocked, 11n),
      rec(KIND.call, 11n),
    ];
    const w2 = await c.witness(input(revokes, [11n, 0n], [11n, 11n, 11n, 11n]));
    expect(outs(w2)).toEqual([1n, 1n, 1n, 1n]);
    // Events of other namespaces take no slot: four of them leave room.
    const others = Array.from({ length: N }, () => rec(KIND.grant, 11n, { tool: OTHER_NS }));
    expect(outs(await c.witness(input(others, [0n, 0n], [11n, 11n, 11n, 11n])))).toEqual([0n, 0n, 0n, 0n]);
  });

  it("never reports 0 as active: not through θ padding, a grant of 0, nor an empty slot", async () => {
    const recs = [rec(KIND.grant, 0n), ...filler(3)];
    const w = await c.witness(input(recs, [0n, 0n], [0n, 0n, 0n, 0n]));
    expect(outs(w)).toEqual([0n, 0n, 0n, 0n]);
    expect(Array.from({ length: N }, (_, i) => w[c.signals.get(`present[${i}]`)!])).toEqual([0n, 0n, 0n, 0n]);
    // A non-grant record with value 0 does not touch a real query either.
    const w2 = await c.witness(input(filler(4), [12n, 0n], [12n, 12n, 12n, 12n]));
    expect(outs(w2)).toEqual([1n, 1n, 1n, 1n]);
  });

  it(
    `equals the TS model on ${PROPERTY_RUNS} random event lists and queries, and has no witness past E events`,
    async () => {
      const value = fc.constantFrom(0n, 11n, 12n, 13n);
      const recArb = fc.record({
        active: fc.boolean(),
        kind: fc.constantFrom(
          KIND.call,
          KIND.blocked,
          KIND.authorization,
          KIND.grant,
          KIND.revoke,
          KIND.grant,
          KIND.revoke,
        ),
        tool: fc.constantFrom(NS, NS, OTHER_NS),
        value,
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(recArb, { minLength: N, maxLength: N }),
          fc.array(value, { minLength: P, maxLength: P }),
          fc.array(value, { minLength: N, maxLength: N }),
          async (recs, initial, query) => {
            if (recs.filter(isEvent).length > E) {
              await expect(c.witness(input(recs, initial, query))).rejects.toThrow();
              return;
            }
            const w = await c.witness(input(recs, initial, query));
            expect(outs(w)).toEqual(query.map((v, i) => model(recs, initial, v, i)));
          },
        ),
        propertyParams(),
      );
      // Random lists rarely hold E + 1 events; these always do.
      const eventArb = fc.record({
        active: fc.constant(true),
        kind: fc.constantFrom(KIND.grant, KIND.revoke),
        tool: fc.constant(NS),
        value,
      });
      await fc.assert(
        fc.asyncProperty(fc.array(eventArb, { minLength: E + 1, maxLength: N }), async (events) => {
          const recs = [...events, ...filler(N - events.length)];
          await expect(c.witness(input(recs, [0n, 0n], [11n, 11n, 11n, 11n]))).rejects.toThrow();
        }),
        { numRuns: 20 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it("forged compaction, slots, running state, hits, events, grant flags and outputs break a constraint", async () => {
    // 11 is declared, revoked at 1, granted at 2; 12 granted at 0.
    const recs = [rec(KIND.grant, 12n), rec(KIND.revoke, 11n), rec(KIND.grant, 11n), rec(KIND.call, 11n)];
    const w = await c.witness(input(recs, [11n, 0n], [11n, 11n, 11n, 12n]));
    expect(outs(w)).toEqual([1n, 1n, 0n, 1n]);
    expect(c.firstUnsatisfied(w)).toBe(-1);
    const targets = [
      ...signalsMatching(c, /^at\[3\]\.scan\.(state|hit|same)\[[0-3]\]$/),
      ...signalsMatching(c, /^at\[2\]\.scan\.state\[[0-3]\]$/),
      ...signalsMatching(c, /^eventLog\.(slotValue|slotGrant)\[[0-3]\]\[[0-3]\]$/),
      ...signalsMatching(c, /^eventLog\.onehot\[[0-3]\]\.bit\[[0-3]\]$/),
      ...signalsMatching(c, /^eventLog\.isGrant\[[0-3]\]$/),
      ...signalsMatching(c, /^events\.(event|grant|isRevoke|isNamespace|live|change)\[[0-3]\]$/),
      ...signalsMatching(c, /^out\[[0-3]\]$/),
      ...signalsMatching(c, /^at\[[0-3]\]\.(absent|present)$/),
    ];
    expect(targets.length).toBeGreaterThanOrEqual(50);
    for (const name of targets) {
      const value = w[c.signals.get(name)!];
      for (const forged of [value + 1n, 1n - value]) {
        expect(c.firstUnsatisfied(forge(c, w, name, forged)), `${name} := ${forged}`).toBeGreaterThanOrEqual(
          0,
        );
      }
    }
  });
});

// CountOneHot(M) (circuits/gadgets/sets.circom): the one-hot of a count and its before-mask, shared by
// EventLog (one per record), AAP-2's check of the named violation and PrefixMask.
describe("CountOneHot(3)", () => {
  let oh: TestCircuit;
  beforeAll(async () => {
    oh = await compileTestCircuit("countonehot", {
      includes: ["circuits/gadgets/sets.circom"],
      template: "CountOneHot",
      args: [3],
    });
  });
  const read = (w: bigint[], name: string, k: number) =>
    Array.from({ length: k }, (_, i) => w[oh.signals.get(`${name}[${i}]`)!]);

  // M + 1 booleans, their sum and weighted sum, less the one bit --O2 substitutes by the sum; the M
  // before[] outputs stay as linear constraints only because they are outputs of main (inside a
  // circuit --O2 substitutes them too).
  it("costs exactly (M + 1) + 2 + M − 1 as a main component", () => {
    expect(oh.constraints).toBe(4 + 2 + 3 - 1);
  });

  it("is the one-hot and the before-mask of 0..M, and has no witness outside it", async () => {
    for (let v = 0; v <= 3; v++) {
      const w = await oh.witness({ value: String(v) });
      expect(read(w, "bit", 4)).toEqual([0, 1, 2, 3].map((k) => (k === v ? 1n : 0n)));
      expect(read(w, "before", 3)).toEqual([0, 1, 2].map((k) => (k < v ? 1n : 0n)));
      expect(oh.firstUnsatisfied(w)).toBe(-1);
    }
    for (const v of [
      "4",
      "-1",
      "21888242871839275222246405745257275088548364400416034343698204186575808495616",
    ]) {
      expect(await witnessFails(oh, { value: v }), v).toBe(true);
    }
  });

  it("forged bits and before-mask entries break a constraint", async () => {
    const w = await oh.witness({ value: "2" });
    const targets = signalsMatching(oh, /^(bit|before)\[[0-3]\]$/);
    expect(targets.length).toBeGreaterThanOrEqual(6);
    for (const name of targets) {
      const value = w[oh.signals.get(name)!];
      for (const forged of [value + 1n, 1n - value]) {
        expect(
          oh.firstUnsatisfied(forge(oh, w, name, forged)),
          `${name} := ${forged}`,
        ).toBeGreaterThanOrEqual(0);
      }
    }
  });
});

// ActiveState(E, P): ActiveIn's scan without its zero test, which AAP-2's per-record cover query uses because
// a named cover is a path ancestor, never 0, wherever it counts (docs/SOUNDNESS.md, AAP-2). Tested alone, with
// the caller's obligation made visible: 0 reads as active when 0 pads the initial set.
describe("ActiveState(3, 2)", () => {
  let st: TestCircuit;
  beforeAll(async () => {
    st = await compileTestCircuit("activestate", {
      includes: ["circuits/gadgets/active_set.circom"],
      template: "ActiveState",
      args: [3, 2],
    });
  });
  const query = (value: bigint, initial: bigint[], slot: bigint[], granted: bigint[], before: bigint[]) => ({
    value: String(value),
    initial: initial.map(String),
    slot: slot.map(String),
    granted: granted.map(String),
    before: before.map(String),
  });
  const outOf = async (q: ReturnType<typeof query>) => {
    const w = await st.witness(q);
    expect(st.firstUnsatisfied(w)).toBe(-1);
    return w[st.signals.get("out")!];
  };

  // IsInSet(P): P − 1 products and an IsZero (2); per slot IsEqual 2 + hit 1 + update 1; out = state[E] is
  // substituted. Three fewer than ActiveIn's (P + 4) + 4E: its IsZero (2) and its product with present.
  it("costs exactly (P + 1) + 4E", () => {
    expect(st.constraints).toBe(2 + 1 + 4 * 3);
  });

  it("follows the slots before the record in order, and reads 0 as active when 0 pads the set", async () => {
    // 11 declared, revoked in slot 0, granted again in slot 2; slot 2 not yet before the record.
    expect(await outOf(query(11n, [11n, 0n], [11n, 5n, 11n], [0n, 1n, 1n], [1n, 1n, 0n]))).toBe(0n);
    expect(await outOf(query(11n, [11n, 0n], [11n, 5n, 11n], [0n, 1n, 1n], [1n, 1n, 1n]))).toBe(1n);
    expect(await outOf(query(5n, [11n, 0n], [11n, 5n, 11n], [0n, 1n, 1n], [1n, 1n, 0n]))).toBe(1n);
    expect(await outOf(query(5n, [11n, 0n], [11n, 5n, 11n], [0n, 1n, 1n], [0n, 0n, 0n]))).toBe(0n);
    // The obligation ActiveIn's zero test discharges and ActiveState leaves to its caller.
    expect(await outOf(query(0n, [11n, 0n], [0n, 0n, 0n], [0n, 0n, 0n], [0n, 0n, 0n]))).toBe(1n);
  });

  it("forged running state, hits and equalities break a constraint", async () => {
    const w = await st.witness(query(11n, [11n, 0n], [11n, 5n, 11n], [0n, 1n, 1n], [1n, 1n, 1n]));
    const targets = signalsMatching(st, /^(state\[[0-3]\]|hit\[[0-2]\]|same\[[0-2]\]|out)$/);
    expect(targets.length).toBeGreaterThanOrEqual(8);
    for (const name of targets) {
      const value = w[st.signals.get(name)!];
      for (const forged of [value + 1n, 1n - value])
        expect(
          st.firstUnsatisfied(forge(st, w, name, forged)),
          `${name} := ${forged}`,
        ).toBeGreaterThanOrEqual(0);
    }
  });
});
