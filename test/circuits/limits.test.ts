// circuits/gadgets/limits.circom: amounts from the aux slot, optional limits and the
// comparison, at their 64-bit edges, with forged witnesses and exact costs.
import { beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import {
  compileTestCircuit,
  forge,
  signalsMatching,
  signalValue,
  witnessFails,
  type TestCircuit,
} from "../helpers/circuit.js";

const signal = signalValue;
const TWO64 = 1n << 64n;
const P = FIELD_MODULUS;

describe("GatedAmount", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("gated-amount", {
      includes: ["circuits/gadgets/limits.circom"],
      template: "GatedAmount",
      publicSignals: ["checked", "aux"],
    });
  });
  const run = async (checked: bigint, aux: bigint) => {
    const w = await c.witness({ checked: String(checked), aux: String(aux) });
    return { w, missing: signal(c, w, "missing"), amount: signal(c, w, "amount") };
  };

  it("costs IsZero, two gates and a 64-bit range check", () => expect(c.constraints).toBe(68));

  it("reads aux = amount + 1, 0 = missing, at the edges", async () => {
    expect(await run(1n, 0n)).toMatchObject({ missing: 1n, amount: 0n });
    expect(await run(1n, 1n)).toMatchObject({ missing: 0n, amount: 0n });
    expect(await run(1n, 2n)).toMatchObject({ missing: 0n, amount: 1n });
    // The encoder's largest amount, 2^64 - 2, and the largest the range check admits.
    expect(await run(1n, TWO64 - 1n)).toMatchObject({ missing: 0n, amount: TWO64 - 2n });
    expect(await run(1n, TWO64)).toMatchObject({ missing: 0n, amount: TWO64 - 1n });
  });

  it("an unchecked record yields (0, 0) whatever its aux", async () => {
    for (const aux of [0n, 5n, TWO64 + 7n, P - 1n])
      expect(await run(0n, aux)).toMatchObject({ missing: 0n, amount: 0n });
  });

  it("a checked aux beyond 2^64 (no honest encoding) has no witness", async () => {
    expect(await witnessFails(c, { checked: "1", aux: String(TWO64 + 1n) })).toBe(true);
    expect(await witnessFails(c, { checked: "1", aux: String(P - 1n) })).toBe(true);
  });

  it("a forged flag, amount or bit breaks a constraint", async () => {
    for (const [checked, aux] of [
      [1n, 0n],
      [1n, 1000n],
      [0n, 1000n],
    ]) {
      const { w } = await run(checked, aux);
      expect(c.firstUnsatisfied(w)).toBe(-1);
      for (const name of ["missing", "amount", "absent", "bits.out[0]", "bits.out[1]"]) {
        const v = signal(c, w, name);
        expect(
          c.firstUnsatisfied(forge(c, w, name, v + 1n)),
          `${name} @ ${checked},${aux}`,
        ).toBeGreaterThanOrEqual(0);
        expect(
          c.firstUnsatisfied(forge(c, w, name, 1n - v)),
          `${name} @ ${checked},${aux}`,
        ).toBeGreaterThanOrEqual(0);
      }
      // The amount forged to a "negative" value (p - 1) would slip under any cap.
      expect(c.firstUnsatisfied(forge(c, w, "amount", P - 1n))).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("OptionalLimit(64)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("optional-limit", {
      includes: ["circuits/gadgets/limits.circom"],
      template: "OptionalLimit",
      args: [64],
      publicSignals: ["enc"],
    });
  });
  const run = async (enc: bigint) => {
    const w = await c.witness({ enc: String(enc) });
    return { w, enabled: signal(c, w, "enabled"), limit: signal(c, w, "limit") };
  };

  it("costs B + 3 with enc fixed", () => expect(c.constraints).toBe(67));

  it("decodes 0 as no limit and L + 1 as L, up to 2^64 - 1", async () => {
    expect(await run(0n)).toMatchObject({ enabled: 0n, limit: 0n });
    expect(await run(1n)).toMatchObject({ enabled: 1n, limit: 0n });
    expect(await run(101n)).toMatchObject({ enabled: 1n, limit: 100n });
    expect(await run(TWO64)).toMatchObject({ enabled: 1n, limit: TWO64 - 1n });
  });

  it("refuses an encoded limit of 2^64 or more, and a 'negative' one", async () => {
    expect(await witnessFails(c, { enc: String(TWO64 + 1n) })).toBe(true);
    expect(await witnessFails(c, { enc: String(P - 1n) })).toBe(true);
  });

  it("a forged enabled flag or limit breaks a constraint", async () => {
    for (const enc of [0n, 1n, 101n]) {
      const { w } = await run(enc);
      expect(c.firstUnsatisfied(w)).toBe(-1);
      // `disabled` is linear in `enabled` and --O2 substitutes it away.
      for (const name of ["enabled", "limit", "bits.out[0]", "bits.out[1]"]) {
        const v = signal(c, w, name);
        expect(c.firstUnsatisfied(forge(c, w, name, v + 1n)), `${name} @ ${enc}`).toBeGreaterThanOrEqual(0);
        expect(c.firstUnsatisfied(forge(c, w, name, 1n - v)), `${name} @ ${enc}`).toBeGreaterThanOrEqual(0);
      }
    }
  });
});

describe("Exceeds(64)", () => {
  let c: TestCircuit;
  beforeAll(async () => {
    c = await compileTestCircuit("exceeds", {
      includes: ["circuits/gadgets/limits.circom"],
      template: "Exceeds",
      args: [64],
      publicSignals: ["x", "limit"],
    });
  });
  const over = async (x: bigint, limit: bigint) =>
    signal(c, await c.witness({ x: String(x), limit: String(limit) }), "out");

  it("costs B + 1", () => expect(c.constraints).toBe(65));

  it("is x > limit at the edges: equal, one over, 0 and 2^64 - 1", async () => {
    expect(await over(100n, 100n)).toBe(0n);
    expect(await over(101n, 100n)).toBe(1n);
    expect(await over(99n, 100n)).toBe(0n);
    expect(await over(0n, 0n)).toBe(0n);
    expect(await over(1n, 0n)).toBe(1n);
    expect(await over(TWO64 - 1n, TWO64 - 1n)).toBe(0n);
    expect(await over(TWO64 - 1n, TWO64 - 2n)).toBe(1n);
    expect(await over(0n, TWO64 - 1n)).toBe(0n);
    expect(await over(TWO64 - 1n, 0n)).toBe(1n);
  });

  it("a forged verdict or difference bit breaks a constraint", async () => {
    for (const [x, limit] of [
      [100n, 100n],
      [101n, 100n],
      [TWO64 - 1n, 0n],
    ]) {
      const w = await c.witness({ x: String(x), limit: String(limit) });
      expect(c.firstUnsatisfied(w)).toBe(-1);
      const out = signal(c, w, "out");
      expect(c.firstUnsatisfied(forge(c, w, "out", 1n - out))).toBeGreaterThanOrEqual(0);
      // Bits of limit + 2^64 - x, flipped alone (the sign bit is `out`, substituted by --O2).
      const names = signalsMatching(c, /n2b\.out\[(0|1)\]$/);
      expect(names).toHaveLength(2);
      for (const name of names) {
        const bit = signal(c, w, name);
        expect(c.firstUnsatisfied(forge(c, w, name, 1n - bit)), name).toBeGreaterThanOrEqual(0);
      }
    }
  });
});
