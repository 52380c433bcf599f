// AAP-2 scope: the circuit against the TS oracle on random traces (depth 3), and
// forged witnesses on what the prover supplies or computes: the path witness, the
// named covers and violation, the active-at running state and the verdicts.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { callPath, chainHead, encodeTrace } from "../../sdk/core/encoding.js";
import { ROOT_PREFIX_HASH, isUnder, pathWitness } from "../../sdk/core/paths.js";
import { aap2Scope, normalisePrefix, type Aap2Theta } from "../../sdk/core/predicates/aap2/definition.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { claimInput, shapeOf, type Checkpoint, type CircuitInput } from "../../prover/witness.js";
import { compileInstance, instance } from "../helpers/instance.js";
import {
  forge,
  signalsMatching,
  witnessFails,
  type TestCircuit,
  expectVerdict,
  PROPERTY_TIMEOUT_MS,
  PROPERTY_RUNS,
  runsOf,
  propertyParams,
  atLeast,
} from "../helpers/circuit.js";

const INSTANCE = instance("aap2_n8");
const SHAPE = shapeOf(INSTANCE.params);
const SECRET = 0x5c09en;
const CONTEXT = 4242n;

const PROFILE: EncodingProfile = {
  version: 1,
  tools: { read_file: { path: "path" }, write_file: { path: "path" }, list_dir: { path: "dir" }, search: {} },
};

function checkpointsOf(records: readonly TraceRecord[], at: number[]): Checkpoint[] {
  const leaves = encodeTrace(records, PROFILE, SECRET).map((r) => r.leaf);
  return at.map((n) => ({ n, root: chainHead(leaves, n) }));
}

function input(records: readonly TraceRecord[], theta: Aap2Theta, at: number[] = []) {
  return claimInput({
    records,
    profile: PROFILE,
    sessionSecret: SECRET,
    checkpoints: checkpointsOf(records, at),
    predicate: aap2Scope,
    theta,
    context: CONTEXT,
    shape: SHAPE,
  });
}

const outcomeOf = (c: TestCircuit, w: bigint[]) => w[c.signals.get("outcome")!];
/** An absolute path's witness b_1..b_4 (sdk/core/paths.ts). */
const ancestors = (path: string): bigint[] => pathWitness(path)!;

let circuit: TestCircuit;
beforeAll(async () => {
  circuit = await compileInstance(INSTANCE.name);
});

it("the instances' θ sizes are the predicate's", () => {
  for (const name of ["aap2_n4", "aap2_n8"]) {
    expect(instance(name).params.tools, name).toBe(aap2Scope.caps.tools);
    expect(instance(name).params.prefixes, name).toBe(aap2Scope.caps.prefixes);
  }
});

// Depth 3, 4 checkpoints, 8 event slots. Before the path digest was cut to four inputs (issue 38): 9,353 =
// CommittedTrace + θ hash 417 + context² and outcome² 2 + per record 456 (SetEvents 9, EventLog 3E + 3,
// Aap2RecordCover 411: the Poseidon(6) path opening 354, the named ancestor's membership 5 and one ActiveIn
// 4E + 8, and the pick of the named violation 8 + 1) + once Aap2Uncovered 212 (the five-ancestor scan).
// Now 65 fewer per record (391): the Poseidon(4) opening 297 (−57), ActiveState without ActiveIn's zero test,
// which no ancestor needs (−3), and a pick of 3 values, not 8 (−5); and 298 more once: the named record's
// path opened by Aap2Uncovered itself (Poseidon(4) and its gate). The scan of all five ancestors on every
// record cost 12,684 in v1, 122 more per record.
it("costs exactly this many constraints (a change in cost is a decision)", () => {
  expect(circuit.constraints).toBe(9131); // before the four-input path digest: 9,353; v1: 11,760
});

// Random traces over a pool of paths and prefixes chosen to hit every edge: equal
// to a prefix, sibling (/a/bc), traversal, deeper than PREFIX_DEPTH, relative,
// root, missing, null and non-string paths, grants and revokes of both namespaces.
const PATHS = [
  "/a",
  "/a/b",
  "/a/bc",
  "/a/b/c",
  "/a/b/../x",
  "/tmp/x",
  "/tmp",
  "/srv/a/b/c/d/e",
  "/srv/a/b/x",
  "rel/x",
  "/",
];
const PREFIXES = ["/a", "/a/b", "/tmp", "/srv/a/b/c", "/"];
const pathArg = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PATHS) },
  { weight: 3, arbitrary: fc.constantFrom("/tmp/x", "/a/b/c", "/srv/a/b/c/d/e") },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, 42) },
);
const recordArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("call" as const),
      tool: fc.constantFrom("read_file", "read_file", "write_file", "list_dir", "search"),
      path: pathArg,
      blocked: fc.constantFrom(false, false, false, true),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom("grant" as const, "revoke" as const),
      namespace: fc.constantFrom("scope" as const, "scope" as const, "scope" as const, "recipient" as const),
      value: fc.constantFrom("/a/b", "/tmp", "/srv/a/b/c", "/a/b", "/tmp", "/a", "/"),
    }),
  },
);
const traceArb = fc
  .oneof(
    { weight: 1, arbitrary: fc.array(recordArb, { maxLength: 8 }) },
    { weight: 3, arbitrary: fc.array(recordArb, { minLength: 5, maxLength: 8 }) },
  )
  .map((list) =>
    list.map((r, seq): TraceRecord => {
      if (r.kind !== "call") return { kind: r.kind, seq, ts: seq, namespace: r.namespace, value: r.value };
      const key = r.tool === "list_dir" ? "dir" : "path";
      const args = r.path === undefined ? { mode: "r" } : { [key]: r.path, mode: "r" };
      return { kind: "call", seq, ts: seq, tool: r.tool, args, ...(r.blocked ? { blocked: true } : {}) };
    }),
  );
const thetaArb = fc.record({
  scopedTools: fc.constantFrom(["read_file"], ["read_file", "write_file"], ["write_file", "list_dir"]),
  allowPrefixes: fc.oneof(
    { weight: 3, arbitrary: fc.subarray(["/a/b", "/tmp", "/srv/a/b/c"], { maxLength: 2 }) },
    { weight: 1, arbitrary: fc.subarray(PREFIXES, { maxLength: 4 }) },
  ),
});

/** Whether some checked call's coverage differs from what θ's prefixes alone give. */
function decidedByGrants(records: readonly TraceRecord[], theta: Aap2Theta): boolean {
  const active = new Set(theta.allowPrefixes);
  for (const r of records) {
    if (r.kind === "grant" || r.kind === "revoke") {
      if (r.namespace === "scope") {
        if (r.kind === "grant") active.add(normalisePrefix(r.value));
        else active.delete(normalisePrefix(r.value));
      }
    } else if (r.kind === "call" && !r.blocked && theta.scopedTools.includes(r.tool)) {
      const path = callPath(r, PROFILE);
      if (path === undefined) continue;
      const now = [...active].some((p) => isUnder(path, p));
      if (now !== theta.allowPrefixes.some((p) => isUnder(path, p))) return true;
    }
  }
  return false;
}

describe("circuit = oracle on random traces", () => {
  it(
    `agrees on ${PROPERTY_RUNS} random traces of 0..8 records (depth 3), and refuses the flipped outcome`,
    async () => {
      let violated = 0;
      let grantsMatter = 0;
      await fc.assert(
        fc.asyncProperty(
          traceArb,
          thetaArb,
          fc.array(fc.nat(8), { maxLength: 2 }), // an 8-record circuit folds checkpointSlots(8) = 2 entries
          async (records, rawTheta, cps) => {
            const theta = aap2Scope.parseTheta(rawTheta);
            const at = [
              ...new Set(
                cps.map((x) => (records.length ? 1 + (x % records.length) : 0)).filter((x) => x > 0),
              ),
            ].sort((a, b) => a - b);
            const { input: honest, verdict } = input(records, theta, at);
            await expectVerdict(circuit, honest, verdict.violated);
            if (verdict.violated) violated++;
            if (decidedByGrants(records, theta)) grantsMatter++;
          },
        ),
        propertyParams(),
      );
      // Both verdicts are well represented.
      expect(violated).toBeGreaterThan(atLeast(60));
      expect(violated).toBeLessThan(PROPERTY_RUNS - atLeast(30));
      // Coverage: in enough traces a grant or revoke changed whether a checked call was covered.
      expect(grantsMatter).toBeGreaterThanOrEqual(atLeast(12));
    },
    PROPERTY_TIMEOUT_MS,
  );
});

// aap2_n1024 is built with the lean Poseidon template (circuits/gadgets/poseidon.circom), which circom2
// compiles in a quarter of the memory: the same circuit, constraint for constraint and verdict for verdict.
describe("with the lean Poseidon template", () => {
  let lean: TestCircuit;
  beforeAll(async () => {
    lean = await compileInstance(INSTANCE.name, "lean");
  });

  it("costs exactly as many constraints", () => expect(lean.constraints).toBe(circuit.constraints));

  const leanRuns = runsOf(40, 12);
  it(`agrees with the oracle on ${leanRuns.numRuns} random traces, and refuses the flipped outcome`, async () => {
    await fc.assert(
      fc.asyncProperty(traceArb, thetaArb, async (records, rawTheta) => {
        const { input: honest, verdict } = input(records, aap2Scope.parseTheta(rawTheta));
        await expectVerdict(lean, honest, verdict.violated);
      }),
      leanRuns,
    );
  });
});

describe("no hints prove the other outcome", () => {
  const sweepRuns = runsOf(25, 12);
  it(`on ${sweepRuns.numRuns} random traces: no ancestor named for the first violation covers it, no record named violates a satisfied trace`, async () => {
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(traceArb, thetaArb, async (records, rawTheta) => {
        const theta = aap2Scope.parseTheta(rawTheta);
        const { input: honest, verdict } = input(records, theta);
        if (verdict.violated) {
          const at = Number(honest.violationAt);
          const row = (honest.pathWitness as string[][])[at];
          for (const cover of [String(ROOT_PREFIX_HASH), ...row, ...(honest.cover as string[])]) {
            const covers = [...(honest.cover as string[])];
            covers[at] = cover;
            expect(await witnessFails(circuit, { ...honest, cover: covers, outcome: "0" })).toBe(true);
            tried++;
          }
        } else {
          for (let at = 0; at < 2 ** SHAPE.depth; at++) {
            expect(await witnessFails(circuit, { ...honest, violationAt: String(at), outcome: "1" })).toBe(
              true,
            );
            tried++;
          }
        }
      }),
      sweepRuns,
    );
    // At least five covers tried on a violated trace, eight rows on a satisfied one.
    expect(tried).toBeGreaterThanOrEqual(5 * sweepRuns.numRuns);
  });
});

describe("forged witnesses", () => {
  const THETA = aap2Scope.parseTheta({ scopedTools: ["read_file", "write_file"], allowPrefixes: ["/a/b"] });
  const call = (seq: number, tool: string, args: Record<string, unknown>): TraceRecord =>
    ({ kind: "call", seq, ts: seq, tool, args }) as TraceRecord;
  const scope = (seq: number, kind: "grant" | "revoke", value: string): TraceRecord => ({
    kind,
    seq,
    ts: seq,
    namespace: "scope",
    value,
  });
  // Satisfied: record 1 is covered by the grant at 0 (ancestor depth 1), record 3
  // by θ's /a/b (depth 2); the revoke at 2 matters only later.
  const compliant: TraceRecord[] = [
    scope(0, "grant", "/tmp"),
    call(1, "read_file", { path: "/tmp/x" }),
    scope(2, "revoke", "/tmp"),
    call(3, "write_file", { path: "/a/b/c/d/e/f" }),
    call(4, "search", { q: "x" }),
  ];
  // Violated at 5: /tmp was revoked at 2.
  const violating: TraceRecord[] = [...compliant, call(5, "read_file", { path: "/tmp/y" })];

  let honestOk: { input: CircuitInput; w: bigint[] };
  let honestBad: { input: CircuitInput; w: bigint[] };
  beforeAll(async () => {
    const ok = input(compliant, THETA, [2, 5]);
    expect(ok.verdict.violated).toBe(false);
    honestOk = { input: ok.input, w: await circuit.witness(ok.input) };
    const bad = input(violating, THETA, [2]);
    expect(bad.verdict).toMatchObject({ violated: true, seq: 5 });
    honestBad = { input: bad.input, w: await circuit.witness(bad.input) };
    expect(circuit.firstUnsatisfied(honestOk.w)).toBe(-1);
    expect(circuit.firstUnsatisfied(honestBad.w)).toBe(-1);
  });

  const withWitness = (base: CircuitInput, row: number, witness: bigint[]) => {
    const rows = (base.pathWitness as string[][]).map((r) => [...r]);
    rows[row] = witness.map(String);
    return { ...base, pathWitness: rows };
  };

  it("a scoped call's path witness must open its slot: another path's ancestors are refused", async () => {
    // Claim the revoked-/tmp read at 5 was a read of /a/b/y (covered by θ).
    expect(await witnessFails(circuit, withWitness(honestBad.input, 5, ancestors("/a/b/y")))).toBe(true);
    // Keep the real full-path hash but swap one ancestor for an active prefix's hash.
    const spliced = [...ancestors("/tmp/y")];
    spliced[1] = ancestors("/a/b")[1]!;
    expect(await witnessFails(circuit, withWitness(honestBad.input, 5, spliced))).toBe(true);
    // And the flipped outcome stays refused with the honest witness.
    expect(await witnessFails(circuit, { ...honestBad.input, outcome: "0" })).toBe(true);
  });

  it("the witness of a record that is not a scoped call is free and changes nothing", async () => {
    for (const row of [0, 2, 4, 6, 7]) {
      const w = await circuit.witness(withWitness(honestOk.input, row, ancestors("/etc/passwd")));
      expect(outcomeOf(circuit, w), `row ${row}`).toBe(0n);
      expect(circuit.firstUnsatisfied(w)).toBe(-1);
    }
  });

  it("a scoped call with no path violates whatever witness is supplied", async () => {
    const records = [call(0, "read_file", { mode: "r" })];
    const { input: honest, verdict } = input(records, THETA);
    expect(verdict.violated).toBe(true);
    const covered = withWitness(honest, 0, ancestors("/a/b/c"));
    expect(outcomeOf(circuit, await circuit.witness(covered))).toBe(1n);
    expect(await witnessFails(circuit, { ...covered, outcome: "0" })).toBe(true);
  });

  it("θ prefixes are bound by paramsHash: adding one breaks the proof", async () => {
    const prefixes = [...(honestBad.input.prefixes as string[])];
    prefixes[3] = String(ancestors("/tmp")[0]);
    expect(await witnessFails(circuit, { ...honestBad.input, prefixes })).toBe(true);
  });

  const withCover = (base: CircuitInput, row: number, cover: bigint) => {
    const covers = [...(base.cover as string[])];
    covers[row] = String(cover);
    return { ...base, cover: covers };
  };

  it("no named ancestor covers a violating call, and no named call violates a satisfied trace", async () => {
    // Every value the prover could name for the read of /tmp/y at 5: its own ancestors (the
    // revoked /tmp among them), θ's prefix, the other calls' prefixes, and 0.
    const names = [ROOT_PREFIX_HASH, ...ancestors("/tmp/y"), ...ancestors("/a/b/c"), 0n];
    for (const cover of names) {
      const claimed = { ...withCover(honestBad.input, 5, cover), outcome: "0" };
      expect(await witnessFails(circuit, claimed), `cover ${cover}`).toBe(true);
    }
    // Naming any record of the satisfied trace (padding rows included) as the violation fails.
    for (let at = 0; at < 8; at++) {
      const claimed = { ...honestOk.input, outcome: "1", violationAt: String(at) };
      expect(await witnessFails(circuit, claimed), `violationAt ${at}`).toBe(true);
    }
    // Naming a covered call of the violating trace fails too; the violating one proves it.
    for (const at of [0, 1, 3, 4]) {
      expect(await witnessFails(circuit, { ...honestBad.input, violationAt: String(at) })).toBe(true);
    }
    expect(outcomeOf(circuit, await circuit.witness(honestBad.input))).toBe(1n);
    // An index past the capacity has no one-hot.
    expect(await witnessFails(circuit, { ...honestBad.input, violationAt: "8" })).toBe(true);
  });

  it("a named cover must be an ancestor of the call's own path", async () => {
    // /a/b is active (θ) but not an ancestor of /tmp/x: naming it for the read at 1 fails.
    expect(await witnessFails(circuit, withCover(honestOk.input, 1, ancestors("/a/b")[1]!))).toBe(true);
    // Naming an inactive ancestor only fails to cover: the satisfied claim then has no witness.
    expect(await witnessFails(circuit, withCover(honestOk.input, 1, ROOT_PREFIX_HASH))).toBe(true);
  });

  it("forged active-at states, covers, picks and verdicts break a constraint", async () => {
    const targets = [
      // The running state of the named cover at records 1, 3 and 5, and its hits.
      ...signalsMatching(circuit, /^record\[(1|3|5)\]\.coverActive\.(state|hit|same)\[[0-2]\]$/),
      ...signalsMatching(circuit, /^record\[(1|3|5)\]\.coverActive\.out$/),
      ...signalsMatching(
        circuit,
        /^record\[(1|3|5)\]\.(covered|scoped|opened|digest|absent|checked|isCall|isScoped|distance\[[0-4]\])$/,
      ),
      // The five-ancestor scan of the named record, its epoch and the pick.
      ...signalsMatching(circuit, /^named\.(ok\[[0-4]\]|allowed|violated|opened|absent|digest)$/),
      ...signalsMatching(circuit, /^named\.scope\[[0-4]\]\.state\[[0-2]\]$/),
      ...signalsMatching(circuit, /^named\.epoch\.bit\[[0-3]\]$/),
      ...signalsMatching(circuit, /^(at\.bit|pickScoped|pickTarget|pickCount)\[[0-7]\]$/),
      ...signalsMatching(circuit, /^events\.(event|grant|change)\[(0|2)\]$/),
    ];
    expect(targets.length).toBeGreaterThanOrEqual(100);
    for (const [label, { w }] of [
      ["compliant", honestOk],
      ["violating", honestBad],
    ] as const) {
      for (const name of targets) {
        const value = w[circuit.signals.get(name)!];
        for (const forged of [value + 1n, 1n - value]) {
          expect(
            circuit.firstUnsatisfied(forge(circuit, w, name, forged)),
            `${label}: ${name} := ${forged}`,
          ).toBeGreaterThanOrEqual(0);
        }
      }
    }
  });
});
