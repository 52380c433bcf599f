// The AAP-7 segment circuit (circuits/segments/aap7_rule.circom: RuleRows and KeyedLatestFrom of
// circuits/gadgets/rule.circom and keyed_latest.circom) at 8 records a segment, carried by
// sdk/core/predicates/aap7/segment.ts: over the fixtures of fixtures/aap-7, as they are and spread over
// segments by records no rule reads (so the rule's state is written in one segment and read in a later one),
// the chain of segments ends in the oracle's verdict; and a dishonest prover's moves are refused: a carried
// value changed at a boundary, answers (seen, latest) forged with the whole chain recertified for the lie,
// challenges other than the pinned ones, a middle segment claiming a verdict, and a middle segment made the
// last by a shorter n.
import { beforeAll, describe, expect, it } from "vitest";
import { aap7Rule } from "../../sdk/core/predicates/aap7/definition.js";
import { aap7SegmentChain, type Aap7Forgery } from "../../sdk/core/predicates/aap7/segment.js";
import { aap7Stream } from "../../sdk/core/predicates/aap7/stream.js";
import { ROWS_PER_RECORD } from "../../sdk/core/predicates/aap7/rows.js";
import { withRowPads } from "../../sdk/core/predicates/aap7/pads.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { hashVector } from "../../sdk/core/hash.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import { normHash } from "../../sdk/core/rules/tau-facts.js";
import { planSegments, segmentClaimDigest } from "../../sdk/core/segments.js";
import { segmentInputs, type SegmentInputs } from "../../prover/segments/witness.js";
import { predicateFixtures, type PredicateFixture } from "../helpers/fixtures.js";
import { type TestCircuit, accepts } from "../helpers/circuit.js";
import { compileAap7Segment8, oracleCases } from "../helpers/segment-circuits.js";

const DEPTH = 3;
const SIZE = 2 ** DEPTH;
const SLOTS = checkpointSlots(SIZE);
const SECRET = 11n;
const CONTEXT = 5n;
/**
 * The segment chain at 8 records (16 row slots): the frame, the records' digests, RowStream, RuleRows and
 * KeyedLatestFrom (TB = 25).
 */
const COST = 71830;
const fixtures = predicateFixtures("AAP-7");
const fixture = (name: string) => fixtures.find((f) => f.file === `aap-7/${name}.json`)!;

/**
 * The fixture's records with `gap` records of a tool no rule names after each one (and `lead` before the
 * first), renumbered: the rule reads the same rows, now spread over segments.
 */
function spread(f: PredicateFixture, gap: number, lead = 0): TraceRecord[] {
  const note = (): TraceRecord =>
    ({ kind: "call", seq: 0, ts: 0, tool: "note", args: { text: "filler" }, result: "ok" }) as TraceRecord;
  const out: TraceRecord[] = Array.from({ length: lead }, note);
  for (const r of f.records) out.push(r, ...Array.from({ length: gap }, note));
  // Closed as the recorder closes it, with its row pads (sdk/core/predicates/aap7/pads.ts).
  return withRowPads(
    out.map((r, seq) => ({ ...r, seq, ts: 1_700_000_000_000 + seq * 1000 }) as TraceRecord),
    profileOf(f),
  );
}

/** The fixture's profile, with the filler tool. */
const profileOf = (f: PredicateFixture): EncodingProfile => ({
  ...f.profile,
  tools: { ...f.profile.tools, note: {} },
});
const spec = (f: PredicateFixture, records: TraceRecord[]) => ({
  records,
  profile: profileOf(f),
  sessionSecret: SECRET,
  checkpoints: [],
  predicate: aap7Rule,
  theta: aap7Rule.parseTheta(f.theta),
  context: CONTEXT,
  depth: DEPTH,
  entrySlots: SLOTS,
});
const inputsOf = (f: PredicateFixture) => (records: TraceRecord[]) => segmentInputs(spec(f, records));

/**
 * The chain a dishonest prover builds for forged keyed-state answers or challenges: the keyed argument
 * certified for them (pack chain, weights, beta, zeta, products), every state commitment and carried
 * `violated` recomputed from the rows the forged answers make fire, and the claimed verdict where it ends.
 */
function forgedChain(
  f: PredicateFixture,
  records: TraceRecord[],
  forge: (honest: ReturnType<typeof aap7SegmentChain>) => Aap7Forgery,
  firstViolation: number | null,
): SegmentInputs {
  const honest = segmentInputs(spec(f, records));
  const theta = aap7Rule.parseTheta(f.theta);
  const encoded = encodeTrace(records, profileOf(f), SECRET);
  const leaves = encoded.map((r) => r.leaf);
  const finalRoot = commitmentRoot(leaves);
  const boundaries = [0, ...honest.plans.map((p) => p.to)];
  const thetaInputs = aap7Rule.circuitInputs(theta);
  const truth = aap7SegmentChain(encoded, boundaries, SIZE, thetaInputs, finalRoot);
  const lie = aap7SegmentChain(encoded, boundaries, SIZE, thetaInputs, finalRoot, forge(truth));
  const plans = planSegments({
    depth: DEPTH,
    leaves,
    entries: [],
    finalRoot,
    firstViolation,
    entrySlots: SLOTS,
    predicateStates: lie.states,
  });
  return {
    plans,
    verdict: honest.verdict,
    inputs: plans.map((plan, j) => ({
      ...honest.inputs[j]!,
      ...lie.inputs[j]!,
      stateIn: String(plan.stateIn),
      stateOut: String(plan.stateOut),
      inViolated: plan.carryIn.violated ? "1" : "0",
    })),
  };
}

/** The row slot of record `at`'s primary row in the session's row stream (SIZE · 2 row slots a segment). */
function primaryRow(f: PredicateFixture, records: TraceRecord[], at: number): number {
  const encoded = encodeTrace(records, profileOf(f), SECRET);
  const { stream } = aap7Stream(encoded, Math.ceil(records.length / SIZE), SIZE);
  return stream.findIndex((r) => r.seq === at && r.part === 0);
}

/** The first record of the segment whose row slots hold stream row `row`: where a row firing there turns the chain's verdict on. */
const segmentOfRow = (row: number) => Math.floor(row / (SIZE * ROWS_PER_RECORD)) * SIZE;

let c: TestCircuit;
beforeAll(async () => {
  c = await compileAap7Segment8();
}, 600_000);
const ok = (input: Record<string, unknown>) => accepts(c, input);

describe("AAP-7 segments: the rule's state crosses boundaries", () => {
  it(`costs exactly ${COST} constraints at 8 records a segment`, () => {
    expect(c.constraints).toBe(COST);
  });

  // Each fixture as it is (one or two segments), and spread so that the rule's state is written in one segment
  // and read in a later one: the pending order read at row 7 and cancelled at row 8 is satisfied only if the
  // write crosses the boundary, and so on.
  describe.each([
    // The two that type many ids among them: their first 8 records give 23 rows, which run past segment 0's 16
    // slots into segment 1 (the row stream), their 7 pads after them.
    ...fixtures.map((f) => [f.file, f, 0, 0] as const),
    ["status-cancel-of-delivered, spread", fixture("status-cancel-of-delivered"), 2, 0] as const,
    ["status-pending-then-cancel, spread", fixture("status-pending-then-cancel"), 0, 7] as const,
    ["status-return-of-pending, spread", fixture("status-return-of-pending"), 6, 3] as const,
    ["lockout-after-items, spread", fixture("lockout-after-items"), 0, 6] as const,
    ["transfer-then-notice, spread", fixture("transfer-then-notice"), 0, 3] as const,
    ["transfer-without-notice, spread", fixture("transfer-without-notice"), 0, 3] as const,
    ["auth-first-fail-closed, spread", fixture("auth-first-fail-closed"), 3, 0] as const,
    ["passenger-count-kept, spread", fixture("passenger-count-kept"), 0, 3] as const,
    // Sub-rows and the register: a one-stop search's flight rows written in one segment, the booking's read in
    // the next; an order's owner and the authenticated user written before the boundary, compared after it.
    ["flight-onestop-leg-dates, spread", fixture("flight-onestop-leg-dates"), 0, 4] as const,
    ["owner-norm-case, spread", fixture("owner-norm-case"), 1, 0] as const,
    ["user-owner-of-stored-reservation, spread", fixture("user-owner-of-stored-reservation"), 1, 0] as const,
  ])("%s", (_name, f, gap, lead) => {
    const records = spread(f, gap, lead);
    if (gap + lead > 0)
      it("spans more than one segment", () => {
        expect(records.length).toBeGreaterThan(SIZE);
      });
    oracleCases(() => c, inputsOf(f), [[`${records.length} records`, records, f.expected.violated]]);
  });

  it("a carried value changed at a boundary, or the argument's start moved, no longer opens stateIn", async () => {
    const f = fixture("status-cancel-of-delivered");
    const { inputs: all } = segmentInputs(spec(f, spread(f, 2)));
    expect(all.length).toBeGreaterThanOrEqual(3);
    for (const seg of [all[1]!, all.at(-1)!]) {
      expect(await ok(seg)).toBe(true);
      for (const key of [
        "packChain",
        "weightChain",
        "consumed",
        "produced",
        "roots",
        "fractions",
        "firsts",
        "keyedBeta",
        "keyedZeta",
        // The argument's start is index·N: a segment cannot take another segment's times.
        "index",
      ])
        expect(await ok({ ...seg, [key]: String(BigInt(seg[key] as string) + 1n) }), key).toBe(false);
    }
  });

  it("a violated session claimed satisfied: answers forged and certified for the lie break the last segment", async () => {
    // The order is read (delivered) in segment 2 and cancelled in segment 3, where status_precondition
    // fires (latest ≠ pending). The lie answers the cancel's read with "pending", so no row fires, and
    // certifies it: pack chain, beta, weights, zeta and every state follow the forged answers.
    const f = fixture("status-cancel-of-delivered");
    const records = spread(f, 2);
    const honest = segmentInputs(spec(f, records));
    expect(honest.verdict.violated).toBe(true);
    const at = records.findIndex((r) => r.kind === "call" && r.tool === "cancel_pending_order");
    expect(Math.floor(at / SIZE)).toBe(3);
    const row = primaryRow(f, records, at);
    const lie = forgedChain(
      f,
      records,
      ({ hints }) => {
        expect(hints.seen[row]).toBe(1n);
        return {
          hints: { ...hints, latest: hints.latest.map((v, i) => (i === row ? normHash("pending") : v)) },
        };
      },
      null,
    );
    expect(lie.plans.at(-1)!.stateOut).toBe(1n);
    for (const input of lie.inputs.slice(0, -1)) expect(await ok(input)).toBe(true);
    expect(await ok(lie.inputs.at(-1)!)).toBe(false);
    expect(await ok({ ...lie.inputs.at(-1)!, stateOut: "2" })).toBe(false);
  });

  it("a satisfied session claimed violated: a write forgotten by the answers breaks the last segment", async () => {
    // The order is read (pending) at the end of segment 0 and cancelled at the start of segment 1. The lie
    // answers the cancel with "never observed", so status_precondition (fail-closed) fires there.
    const f = fixture("status-pending-then-cancel");
    const records = spread(f, 0, 7);
    const at = records.findIndex((r) => r.kind === "call" && r.tool === "cancel_pending_order");
    expect(Math.floor(at / SIZE)).toBe(1);
    const row = primaryRow(f, records, at);
    const lie = forgedChain(
      f,
      records,
      ({ hints }) => {
        expect(hints.seen[row]).toBe(1n);
        return {
          hints: {
            ...hints,
            seen: hints.seen.map((v, i) => (i === row ? 0n : v)),
            latest: hints.latest.map((v, i) => (i === row ? 0n : v)),
          },
        };
      },
      segmentOfRow(row),
    );
    expect(lie.plans.at(-1)!.stateOut).toBe(2n);
    for (const input of lie.inputs.slice(0, -1)) expect(await ok(input)).toBe(true);
    expect(await ok(lie.inputs.at(-1)!)).toBe(false);
  });

  it("challenges other than HashVector(finalRoot, packChain) and HashVector(beta, weightChain) are refused at the last segment", async () => {
    const f = fixture("status-cancel-of-delivered");
    const records = spread(f, 2);
    const first = records.findIndex((r) => r.kind === "call" && r.tool === "cancel_pending_order");
    const firing = segmentOfRow(primaryRow(f, records, first));
    for (const move of [
      (beta: bigint, zeta: bigint) => ({ beta: beta + 1n, zeta: hashVector([beta + 1n, zeta]) }),
      (beta: bigint, zeta: bigint) => ({ beta, zeta: zeta + 1n }),
    ]) {
      const chosen = forgedChain(f, records, ({ chain }) => ({ at: move(chain.beta, chain.zeta) }), firing);
      for (const input of chosen.inputs.slice(0, -1)) expect(await ok(input)).toBe(true);
      expect(await ok(chosen.inputs.at(-1)!)).toBe(false);
    }
  });

  it("the chain closes only at its last segment: a middle segment claims no verdict", async () => {
    const f = fixture("status-cancel-of-delivered");
    const records = spread(f, 2);
    const { inputs: all, plans } = segmentInputs(spec(f, records));
    expect(all.length).toBeGreaterThanOrEqual(3);
    for (let j = 0; j < all.length - 1; j++) {
      expect(plans[j]!.stateOut).toBeGreaterThan(2n);
      for (const stateOut of ["1", "2"])
        expect(await ok({ ...all[j]!, stateOut }), `segment ${j}`).toBe(false);
    }
  });

  it("a middle segment made the last by a shorter n (its claim recomputed) is refused", async () => {
    // The prefix ending at segment 1's end is not the committed trace: its root is not finalRoot, and the
    // keyed argument, closed there, pins challenges drawn from the whole session's chain.
    const f = fixture("status-cancel-of-delivered");
    const records = spread(f, 2);
    const { inputs: all, plans } = segmentInputs(spec(f, records));
    const mid = all[1]!;
    const n = plans[1]!.to;
    const claimDigest = segmentClaimDigest({
      context: CONTEXT,
      finalRoot: BigInt(mid.finalRoot as string),
      n,
      checkpointAcc: BigInt(mid.checkpointAcc as string),
      paramsHash: BigInt(mid.paramsHash as string),
    });
    for (const stateOut of ["1", "2", mid.stateOut as string])
      expect(await ok({ ...mid, n: String(n), claimDigest: String(claimDigest), stateOut })).toBe(false);
  });
});
