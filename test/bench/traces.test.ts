// The bench's traces: full length, a realistic mix, and the verdict they are labelled with (the oracle is
// checked inside benchTraces; these tests make sure it refuses a wrong label and that the mix holds).
import { describe, expect, it } from "vitest";
import { BENCH_PREDICATES, benchTraces, policyCheckpoints, recordMix } from "../../scripts/bench/traces.js";
import { checkpointAffordable, checkpointSlots } from "../../sdk/core/checkpoints.js";
import { predicateById } from "../../sdk/core/predicates/index.js";
import { instancesOf } from "../helpers/instance.js";

describe("bench traces", () => {
  for (const predicate of BENCH_PREDICATES) {
    for (const capacity of [8, 64, 1024]) {
      it(`${predicate} at ${capacity} records: satisfied and violated, calls mixed with other records`, () => {
        const t = benchTraces(predicate, capacity);
        const def = predicateById(predicate);
        const theta = def.parseTheta(t.theta);
        expect(t.satisfied).toHaveLength(capacity);
        expect(t.violated).toHaveLength(capacity);
        expect(t.satisfied.map((r) => r.seq)).toEqual([...Array(capacity).keys()]);
        expect(def.evaluate(t.satisfied, theta, t.profile).violated).toBe(false);
        const v = def.evaluate(t.violated, theta, t.profile);
        expect(v.violated).toBe(true);
        // The violation sits in the last records, so the whole trace is read before it.
        expect(v.seq).toBeGreaterThanOrEqual(capacity - 9);
        const mix = recordMix(t.satisfied);
        expect(mix.call).toBeGreaterThan(0);
        if (capacity >= 64)
          expect(Object.keys(mix).filter((k) => k !== "call").length, JSON.stringify(mix)).toBeGreaterThan(0);
      });
    }
  }

  it("action ids are unique per repetition, so no authorization is consumed twice", () => {
    const t = benchTraces("AAP-1", 64);
    // An action id names one invocation: each gated call must carry its own.
    const ids = t.satisfied
      .filter((r) => r.kind === "call" && ["delete_file", "exec", "send_money"].includes(r.tool))
      .map((r) => (r as { actionId: string }).actionId);
    expect(ids.length).toBeGreaterThan(10);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("AAP-2 and AAP-4 traces change permissions a few times, within every bench circuit's event slots", () => {
    for (const predicate of ["AAP-2", "AAP-4"]) {
      const slots = Math.min(
        ...instancesOf(predicate)
          .filter((i) => i.groups.some((g) => g.startsWith("bench")))
          .map((i) => Number(i.params.events)),
      );
      const count = predicateById(predicate).eventCount!;
      for (const capacity of [64, 1024]) {
        const t = benchTraces(predicate, capacity);
        for (const trace of [t.satisfied, t.violated]) {
          expect(count(trace).count, `${predicate} ${capacity}`).toBeGreaterThan(0);
          expect(count(trace).count, `${predicate} ${capacity}`).toBeLessThanOrEqual(slots);
        }
      }
    }
  });

  it("checkpoints where the default policy puts them, each one the escrow's budget takes, within the circuit's slots", () => {
    expect(policyCheckpoints(8)).toEqual([]);
    expect(policyCheckpoints(16)).toEqual([10]);
    expect(policyCheckpoints(64)).toEqual([10, 20, 30, 40, 50, 60]);
    for (const capacity of [8, 16, 64, 256, 1024]) {
      const at = policyCheckpoints(capacity);
      at.forEach((n, k) => {
        expect(checkpointAffordable(k, n), `${capacity}: checkpoint ${k + 1} at ${n}`).toBe(true);
        expect(n).toBeLessThanOrEqual(capacity);
      });
      // The fold keeps a slot for the user's spare receipt.
      expect(at.length).toBeLessThan(checkpointSlots(capacity));
    }
  });

  it("refuses an unknown predicate", () => {
    expect(() => benchTraces("AAP-9", 8)).toThrow(/unknown predicate "AAP-9"/);
  });
});
