import { describe, expect, it } from "vitest";
import { CanonicalJsonError, MAX_JSON_DEPTH, canonicalJson, toMinorUnits } from "../../sdk/core/canonical.js";

/** An array nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe("canonicalJson (RFC 8785)", () => {
  it("sorts keys by UTF-16 code units and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x"], é: 0, A: { d: 2, c: 1 } })).toBe(
      '{"A":{"c":1,"d":2},"a":[true,null,"x"],"b":1,"é":0}',
    );
    expect(canonicalJson({ "\u20ac": 1, "\ud83d\ude00": 2, z: 3 })).toBe('{"z":3,"€":1,"😀":2}');
  });

  it("writes numbers as ECMAScript does (RFC 8785 §3.2.2.3)", () => {
    expect(canonicalJson([1.0, 100.5, 2.5e-8, 1e-7, -0, 0.1])).toBe("[1,100.5,2.5e-8,1e-7,0,0.1]");
  });

  it("refuses NaN, Infinity, rounded integers and non-JSON values, naming the path", () => {
    expect(() => canonicalJson({ a: { b: NaN } })).toThrow(/\$\.a\.b: NaN/);
    expect(() => canonicalJson([Infinity])).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ big: 2 ** 60 })).toThrow(/beyond 2\^53/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function is not JSON/);
    expect(() => canonicalJson({ d: new Date(0) })).toThrow(/Date is not plain JSON/);
  });
});

// Whatever a value does, canonicalJson answers with its canonical text or a CanonicalJsonError
// naming the path: callers that record a tool's result tell "not JSON" apart from their own
// failures by that type alone (issue 16, finding 6).
describe("canonicalJson refuses hostile values with a CanonicalJsonError only", () => {
  it("refuses a cycle, but writes a shared reference twice", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => canonicalJson(cyclic)).toThrow(/\$\.self\.back: cycle/);
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });

  it("refuses nesting past MAX_JSON_DEPTH, 50,000 deep included, without a stack overflow", () => {
    expect(() => canonicalJson(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => canonicalJson(nested(MAX_JSON_DEPTH + 1))).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(nested(50_000))).toThrow(/nested deeper than 256 levels/);
  });

  it("wraps a throwing getter or Proxy trap, naming the path", () => {
    const getter = {
      ok: 1,
      get bad(): number {
        throw new Error("boom");
      },
    };
    expect(() => canonicalJson({ r: getter })).toThrow(/\$\.r\.bad: reading it threw: boom/);
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new TypeError("no keys");
        },
      },
    );
    expect(() => canonicalJson(trap)).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(trap)).toThrow(/no keys/);
    const hostile = {
      get x(): number {
        throw {
          get message(): string {
            throw new Error("again");
          },
        };
      },
    };
    expect(() => canonicalJson(hostile)).toThrow(/cannot be described/);
  });

  it("reads each property once, so a getter cannot change the text between checks", () => {
    let reads = 0;
    const once = {
      get v() {
        return ++reads;
      },
    };
    expect(canonicalJson(once)).toBe('{"v":1}');
    expect(reads).toBe(1);
  });

  it("refuses an array hole instead of writing `[,1]`", () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(() => canonicalJson([, 1])).toThrow(/\$\[0\]: undefined is not JSON/);
  });

  it("omits undefined properties by default, and refuses them when asked", () => {
    expect(canonicalJson({ x: undefined, y: 1 })).toBe('{"y":1}');
    expect(() => canonicalJson({ a: { x: undefined } }, { refuseUndefined: true })).toThrow(
      /\$\.a\.x is undefined, which JSON cannot carry/,
    );
  });
});

describe("toMinorUnits", () => {
  it("converts exactly by decimal text, not by float multiplication", () => {
    expect(toMinorUnits(100.1, 2)).toBe(10010n);
    expect(toMinorUnits(100.0, 2)).toBe(10000n);
    expect(toMinorUnits(0.0, 2)).toBe(0n);
    expect(toMinorUnits("19.99", 2)).toBe(1999n);
    expect(toMinorUnits(1e-7, 7)).toBe(1n);
    expect(toMinorUnits(50, 0)).toBe(50n);
  });

  it("refuses amounts that are not whole minor units, negative, or not numbers", () => {
    expect(() => toMinorUnits(100.001, 2)).toThrow(/more than 2 decimal places/);
    expect(() => toMinorUnits(-5, 2)).toThrow(/negative/);
    expect(() => toMinorUnits(NaN, 2)).toThrow(/not a number/);
    expect(() => toMinorUnits("12abc", 2)).toThrow(/expected a number/);
    expect(() => toMinorUnits(true, 2)).toThrow(/expected a number/);
  });
});
