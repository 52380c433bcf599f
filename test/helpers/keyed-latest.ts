// The keyed-latest-value circuit's inputs from rows and hints (circuits/gadgets/keyed_latest.circom), shared by
// its tests (test/circuits/keyed-latest.test.ts) and the independent review's (keyed-latest-review.test.ts).
import type { KeyedLatestHints, KeyedRow } from "../../sdk/core/keyed-latest.js";
import { compileTestCircuit, type TestCircuit } from "./circuit.js";

/** Rows from tokens: "7=3" writes 3 to key 7, "7" reads key 7, "." has no key. Missing rows have none. */
export function keyedRows(n: number, ...tokens: string[]): KeyedRow[] {
  return Array.from({ length: n }, (_, i) => {
    const token = tokens[i] ?? ".";
    if (token === ".") return { key: 0n, hasKey: false, write: false, value: 0n };
    const [key, value] = token.split("=");
    return { key: BigInt(key!), hasKey: true, write: value !== undefined, value: BigInt(value ?? 0) };
  });
}

export const strings = (xs: readonly bigint[]): string[] => xs.map(String);
const flags = (xs: readonly boolean[]) => xs.map((x) => (x ? "1" : "0"));
/** A copy of xs with x at i (Array.prototype.with is ES2023, past the project's lib). */
export const withAt = <T>(xs: readonly T[], i: number, x: T): T[] => xs.map((y, k) => (k === i ? x : y));

/** The statement's inputs: the rows as the caller passes them. */
export function keyedStatement(r: readonly KeyedRow[]) {
  return {
    key: strings(r.map((x) => x.key)),
    hasKey: flags(r.map((x) => x.hasKey)),
    write: flags(r.map((x) => x.write)),
    value: strings(r.map((x) => x.value)),
  };
}

/** The hint inputs: the answers, the argument's hints and the certificate's weights. */
export function keyedHintInput(h: KeyedLatestHints, weight: readonly bigint[]) {
  return {
    seen: strings(h.seen),
    latest: strings(h.latest),
    age: strings(h.age),
    intro: strings(h.intro),
    finalValue: strings(h.finalValue),
    finalSeen: strings(h.finalSeen),
    finalTime: strings(h.finalTime),
    weight: strings(weight),
  };
}

/** KeyedLatestFrom(segment, timeBits) compiled as main, the rows and the carried values in public. */
export function compileKeyedLatestFrom(segment: number, timeBits: number): Promise<TestCircuit> {
  return compileTestCircuit("keyed-latest-from", {
    includes: ["circuits/gadgets/keyed_latest.circom"],
    template: "KeyedLatestFrom",
    args: [segment, timeBits],
    poseidon: "lean", // the same constraints as circomlib's, compiled about 4x faster
    publicSignals: [
      "key",
      "hasKey",
      "write",
      "value",
      "start",
      "isLast",
      "finalRoot",
      "packChainIn",
      "weightChainIn",
      "consumedIn",
      "producedIn",
      "rootsIn",
      "fractionsIn",
      "firstsIn",
    ],
  });
}
