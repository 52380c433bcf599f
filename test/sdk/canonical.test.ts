import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalJson, toMinorUnits } from "../../sdk/canonical.js";

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
