// The active-at gadget (circuits/gadgets/active_set.circom) shared by AAP-2 and
// AAP-4: edges, a differential test against a plain TS model, forged witnesses on
// its running state, and its exact cost.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { KIND } from "../../sdk/encoding.js";
import { compileTestCircuit, forge, signalsMatching, type TestCircuit } from "../helpers/circuit.js";

const N = 4;
const P = 2;
const NS = 7n;
const OTHER_NS = 8n;

// out[i] / present[i]: ActiveAt(N, P, i) for query[i], i = 0..N, over one SetEvents.
const HARNESS = `
template ActiveSetHarness(N, P, NS) {
    signal input active[N];
    signal input kind[N];
    signal input tool[N];
    signal input value[N];
    signal input initial[P];
    signal input query[N + 1];
    signal output out[N + 1];
    signal output present[N + 1];

    component events = SetEvents(N, NS);
    events.active <== active;
    events.kind <== kind;
    events.tool <== tool;
    events.value <== value;

    component at[N + 1];
    for (var i = 0; i <= N; i++) {
        at[i] = ActiveAt(N, P, i);
        at[i].value <== query[i];
        at[i].initial <== initial;
        at[i].event <== events.event;
        at[i].grant <== events.grant;
        out[i] <== at[i].out;
        present[i] <== at[i].present;
    }
}
component main = ActiveSetHarness(${N}, ${P}, ${NS});`;

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
  c = await compileTestCircuit("activeset", ["circuits/gadgets/active_set.circom"], HARNESS);
});

const outs = (w: bigint[]) => Array.from({ length: N + 1 }, (_, i) => w[c.signals.get(`out[${i}]`)!]);

describe("ActiveAt over SetEvents (capacity 4, θ set of 2)", () => {
  // SetEvents: 3 IsEqual (2 each) + 3 products per record = 9 * 4 = 36.
  // ActiveAt(I): IsZero 2 + IsInSet(2) 3 + out 1 + per earlier record IsEqual 2 + update 1
  // = 6 + 3I, summed over I = 0..4: 30 + 30 = 60.
  it("costs exactly 9 per record plus 6 + 3 per earlier record per query", () => {
    expect(c.constraints).toBe(9 * N + (N + 1) * 6 + 3 * ((N * (N + 1)) / 2));
  });

  it("a grant affects only later records; a revoke removes a declared value; re-grant restores it", async () => {
    const recs = [rec(KIND.grant, 11n), rec(KIND.revoke, 21n), rec(KIND.revoke, 11n), rec(KIND.grant, 21n)];
    // active(11, i) for i = 0..4: before the grant, after it, still, revoked, still revoked.
    let w = await c.witness(input(recs, [21n, 0n], [11n, 11n, 11n, 11n, 11n]));
    expect(outs(w)).toEqual([0n, 1n, 1n, 0n, 0n]);
    // active(21, i): declared, declared, revoked, revoked, granted again.
    w = await c.witness(input(recs, [21n, 0n], [21n, 21n, 21n, 21n, 21n]));
    expect(outs(w)).toEqual([1n, 1n, 0n, 0n, 1n]);
    expect(c.firstUnsatisfied(w)).toBe(-1);
  });

  it("ignores other namespaces, inactive records, and records that are not grants or revokes", async () => {
    const recs = [
      rec(KIND.grant, 11n, { tool: OTHER_NS }),
      rec(KIND.grant, 11n, { active: false }),
      rec(KIND.call, 11n),
      rec(KIND.authorization, 11n),
    ];
    const w = await c.witness(input(recs, [0n, 0n], [11n, 11n, 11n, 11n, 11n]));
    expect(outs(w)).toEqual([0n, 0n, 0n, 0n, 0n]);
    const revokes = [
      rec(KIND.revoke, 11n, { tool: OTHER_NS }),
      rec(KIND.revoke, 11n, { active: false }),
      rec(KIND.blocked, 11n),
      rec(KIND.call, 11n),
    ];
    const w2 = await c.witness(input(revokes, [11n, 0n], [11n, 11n, 11n, 11n, 11n]));
    expect(outs(w2)).toEqual([1n, 1n, 1n, 1n, 1n]);
  });

  it("never reports 0 as active: not through θ padding, nor through a grant of 0", async () => {
    const recs = [rec(KIND.grant, 0n), ...filler(3)];
    const w = await c.witness(input(recs, [0n, 0n], [0n, 0n, 0n, 0n, 0n]));
    expect(outs(w)).toEqual([0n, 0n, 0n, 0n, 0n]);
    expect(Array.from({ length: N + 1 }, (_, i) => w[c.signals.get(`present[${i}]`)!])).toEqual([
      0n,
      0n,
      0n,
      0n,
      0n,
    ]);
    // A non-grant record with value 0 does not touch a real query either.
    const w2 = await c.witness(input(filler(4), [12n, 0n], [12n, 12n, 12n, 12n, 12n]));
    expect(outs(w2)).toEqual([1n, 1n, 1n, 1n, 1n]);
  });

  it("equals the TS model on 300 random event lists and queries", async () => {
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
        fc.array(value, { minLength: N + 1, maxLength: N + 1 }),
        async (recs, initial, query) => {
          const w = await c.witness(input(recs, initial, query));
          expect(outs(w)).toEqual(query.map((v, i) => model(recs, initial, v, i)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("forged running state, hits, events, grant flags and outputs break a constraint", async () => {
    // 11 is declared, revoked at 1, granted at 2; 12 granted at 0.
    const recs = [rec(KIND.grant, 12n), rec(KIND.revoke, 11n), rec(KIND.grant, 11n), rec(KIND.call, 11n)];
    const w = await c.witness(input(recs, [11n, 0n], [11n, 11n, 11n, 12n, 11n]));
    expect(outs(w)).toEqual([1n, 1n, 0n, 1n, 1n]);
    expect(c.firstUnsatisfied(w)).toBe(-1);
    const targets = [
      ...signalsMatching(c, /^at\[4\]\.(state|hit)\[[0-3]\]$/),
      ...signalsMatching(c, /^at\[3\]\.state\[[0-3]\]$/),
      ...signalsMatching(c, /^events\.(event|grant|isRevoke|isNamespace|live|change)\[[0-3]\]$/),
      ...signalsMatching(c, /^out\[[0-4]\]$/),
      ...signalsMatching(c, /^at\[[0-4]\]\.(absent|present)$/),
    ];
    expect(targets.length).toBeGreaterThanOrEqual(30);
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
