// AAP-7's segment carrier (circuits/segments/aap7_rule.circom): the rule's keyed state over the session, as
// KeyedLatestFrom carries it (sdk/core/keyed-latest.ts keyedLatestChain at ROW_TIME_BITS), and each
// segment's rows as the circuit reads observations (status, facts, content: the circuit recomputes the digest,
// so prover/segments/witness.ts gives none for a predicate that reads observations).
// The carried state, hashed with HashVector into the segment state commitment:
//   [packChain, weightChain, consumed, produced, roots, fractions, firsts, keyedBeta, keyedZeta]
import type { EncodedRecord } from "../../encoding.js";
import { hashVector } from "../../hash.js";
import type { CircuitInput } from "../../inputs.js";
import {
  keyedLatestChain,
  keyedLatestHints,
  type KeyedLatestCarry,
  type KeyedLatestChain,
  type KeyedLatestHints,
  type KeyedRow,
} from "../../keyed-latest.js";
import { RULE_PARTS, type CompiledRule, type KeyOp } from "../../rules/rule.js";
import { ruleKeyedRows } from "../../rules/rule-witness.js";
import { SESSION_COUNT_BITS } from "../../segments.js";
import type { SegmentCarrier } from "../segment-carrier.js";
import { ROWS_PER_RECORD, aap7Rows, rowsInputs } from "./rows.js";

const strings = (xs: readonly bigint[]) => xs.map(String);
/** The keyed state's time bits: a session's row times run to 2 · 2^SESSION_COUNT_BITS (two rows a record). */
export const ROW_TIME_BITS = SESSION_COUNT_BITS + 1;

/**
 * The compiled rule back from θ's circuit inputs (ruleThetaInputs, which the carrier is given in place of θ):
 * the rule exactly as the circuit reads it. Padding entries (part RULE_PARTS, which no row has) are dropped.
 */
export function ruleOfInputs(theta: CircuitInput): CompiledRule {
  const scalar = (name: string) => BigInt((theta[name] as string[])[0]!);
  const vector = (name: string) => (theta[name] as string[]).map(BigInt);
  const columns = (theta.entryColumns as string[][]).map((c) => c.map(BigInt));
  const parts = vector("entryPart");
  const column = (k: number, j: number) => columns[k]![j]!;
  return {
    fireUnseen: scalar("fireUnseen") === 1n,
    fireSeen: scalar("fireSeen") === 1n,
    fireSeenEqual: scalar("fireSeenEqual") === 1n,
    fireSeenDiffers: scalar("fireSeenDiffers") === 1n,
    fireSeenAbove: scalar("fireSeenAbove") === 1n,
    unknown: scalar("unknown"),
    localSel: Number(scalar("localSel")),
    localOp: Number(scalar("localOp")) as 0 | 1 | 2,
    localBound: scalar("localBound"),
    localSet: vector("localSet"),
    entries: vector("entryTool")
      .map((tool, j) => ({
        tool,
        toolName: String(tool),
        part: Number(parts[j]!),
        check: column(0, j) === 1n,
        checkWhen: Number(column(1, j)),
        expectSel: Number(column(2, j)),
        expect: column(3, j),
        expectRegister: column(4, j) === 1n,
        write: column(5, j) === 1n,
        writeWhen: Number(column(6, j)),
        valueSel: Number(column(7, j)),
        valueConst: column(8, j),
        writeIfUnseen: column(9, j) === 1n,
        keyOp: Number(column(10, j)) as KeyOp,
        keySel: Number(column(11, j)),
        load: column(12, j) === 1n,
        preferSel: Number(column(13, j)),
      }))
      .filter((e) => e.part < RULE_PARTS),
  };
}

/** The carried state as the circuit hashes it (HashVector of 9). */
export function ruleCarryVector(
  c: KeyedLatestCarry,
  chain: Pick<KeyedLatestChain, "beta" | "zeta">,
): bigint[] {
  return [
    c.packChain,
    c.weightChain,
    c.consumed,
    c.produced,
    c.roots,
    c.fractions,
    c.firsts,
    chain.beta,
    chain.zeta,
  ];
}

/** What a dishonest prover certifies in place of the honest values (tests of forgeries only). */
export interface Aap7Forgery {
  /** Keyed-latest answers and hints other than the honest ones. */
  hints?: KeyedLatestHints;
  /** Distinctness weights other than the derived ones. */
  weights?: readonly bigint[];
  /** Challenges other than HashVector(finalRoot, packChain) and HashVector(beta, weightChain). */
  at?: { beta: bigint; zeta: bigint };
}

/**
 * The chain's carried states and every segment's inputs over `encoded` cut at `boundaries` (segments of
 * `size`), with the keyed rows, hints and argument behind them; `forged` values are certified in place of the
 * honest ones (test/circuits/segment-rule.test.ts).
 */
export function aap7SegmentChain(
  encoded: readonly EncodedRecord[],
  boundaries: readonly number[],
  size: number,
  thetaInputs: CircuitInput,
  finalRoot: bigint,
  forged: Aap7Forgery = {},
): {
  states: bigint[];
  inputs: CircuitInput[];
  rows: KeyedRow[];
  hints: KeyedLatestHints;
  chain: KeyedLatestChain;
} {
  const m = boundaries.length - 1;
  const rule = ruleOfInputs(thetaInputs);
  const rowSize = size * ROWS_PER_RECORD;
  // Each segment's rows fill its own row slots, so a record's rows never cross a boundary.
  const segmentRows = Array.from({ length: m }, (_, j) =>
    aap7Rows(
      Array.from({ length: size }, (_, i) => encoded[j * size + i]),
      size,
    ),
  );
  const rows = ruleKeyedRows(
    rule,
    segmentRows.flatMap((s) => s.rows),
  );
  const hints = forged.hints ?? keyedLatestHints(rows);
  const chain = keyedLatestChain(rows, rowSize, finalRoot, ROW_TIME_BITS, hints, forged.weights, forged.at);
  const slice = (xs: readonly bigint[], j: number) => strings(xs.slice(j * rowSize, (j + 1) * rowSize));
  const inputs = Array.from({ length: m }, (_, j): CircuitInput => {
    const c = chain.carries[j]!;
    const records = Array.from({ length: size }, (_, i) => encoded[j * size + i]);
    return {
      status: records.map((r) => String(r?.status ?? 0n)),
      // A record the circuit does not read as observed passes its whole digest through RecordDigest.
      content: records.map((r) => String(r === undefined ? 0n : r.observed ? r.content : r.digest)),
      ...rowsInputs(segmentRows[j]!),
      packChain: String(c.packChain),
      weightChain: String(c.weightChain),
      consumed: String(c.consumed),
      produced: String(c.produced),
      roots: String(c.roots),
      fractions: String(c.fractions),
      firsts: String(c.firsts),
      keyedBeta: String(chain.beta),
      keyedZeta: String(chain.zeta),
      seen: slice(hints.seen, j),
      latest: slice(hints.latest, j),
      age: slice(hints.age, j),
      intro: slice(hints.intro, j),
      finalValue: slice(hints.finalValue, j),
      finalSeen: slice(hints.finalSeen, j),
      finalTime: slice(hints.finalTime, j),
      weight: slice(chain.weight, j),
    };
  });
  const states = chain.carries.map((c) => hashVector(ruleCarryVector(c, chain)));
  return { states, inputs, rows, hints, chain };
}

/** AAP-7's rule over the session, its keyed state carried from segment to segment. */
export const aap7Segment: SegmentCarrier = {
  carry({ encoded, boundaries, size, thetaInputs, finalRoot }) {
    const { states, inputs } = aap7SegmentChain(encoded, boundaries, size, thetaInputs, finalRoot);
    return { states, inputs };
  },
};
