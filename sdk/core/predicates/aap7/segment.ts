// AAP-7's segment carrier (circuits/segments/aap7_rule.circom): the rule's keyed state over the session, as
// KeyedLatestFrom carries it (sdk/core/keyed-latest.ts keyedLatestChain at ROW_TIME_BITS), and each
// segment's rows as the circuit reads observations (status, facts, content: the circuit recomputes the digest,
// so prover/segments/witness.ts gives none for a predicate that reads observations).
// The carried state, hashed with HashVector into the segment state commitment:
//   [packChain, weightChain, consumed, produced, roots, fractions, firsts, keyedBeta, keyedZeta,
//    rowsP, rowsQ, runChain, runTool, runOk, runOpen, rowsEnded, register]
// the last eight the row stream's (./stream.ts: a record's rows may cross a boundary) and the rule's register.
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
import { traceRule } from "../../rules/rule-eval.js";
import { aap7Stream, streamCarryVector, type StreamCarry } from "./stream.js";
import { SESSION_COUNT_BITS } from "../../segments.js";
import type { SegmentCarrier } from "../segment-carrier.js";
import { ROWS_PER_RECORD, rowsInputs } from "./rows.js";

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

/** The keyed state's part of the carried state (the first 9 of the 17 the circuit hashes). */
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
  /** The first record of the segment whose rows first fire (null: none fires). */
  violationFrom: number | null;
} {
  const m = boundaries.length - 1;
  const rule = ruleOfInputs(thetaInputs);
  const rowSize = size * ROWS_PER_RECORD;
  // The session's rows as one stream over the segments' row slots: a record's rows may cross a boundary.
  const { segments: segmentRows, carries: streamCarries, stream } = aap7Stream(encoded, m, size);
  const traced = traceRule(rule, stream);
  const rows = ruleKeyedRows(rule, stream);
  const hints = forged.hints ?? keyedLatestHints(rows);
  const chain = keyedLatestChain(rows, rowSize, finalRoot, ROW_TIME_BITS, hints, forged.weights, forged.at);
  // The register after each segment's last row, carried into the next.
  const registers = [0n, ...Array.from({ length: m }, (_, j) => traced[(j + 1) * rowSize - 1]!.registerOut)];
  const slice = (xs: readonly bigint[], j: number) => strings(xs.slice(j * rowSize, (j + 1) * rowSize));
  const inputs = Array.from({ length: m }, (_, j): CircuitInput => {
    const c = chain.carries[j]!;
    const s = streamCarries[j]!;
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
      ...streamInputs(s, registers[j]!),
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
  const states = chain.carries.map((c, j) =>
    hashVector([...ruleCarryVector(c, chain), ...streamCarryVector(streamCarries[j]!), registers[j]!]),
  );
  // The chain's verdict turns on in the segment holding the first firing row, wherever its record is.
  const firing = traced.findIndex((t) => t.fires);
  const violationFrom = firing < 0 ? null : Math.floor(firing / rowSize) * size;
  return { states, inputs, rows, hints, chain, violationFrom };
}

/** The row stream's carried inputs of a segment (RowStream's, and the register). */
function streamInputs(s: StreamCarry, register: bigint): CircuitInput {
  const vector = streamCarryVector(s).map(String);
  return {
    rowsP: vector[0]!,
    rowsQ: vector[1]!,
    runChain: vector[2]!,
    runTool: vector[3]!,
    runOk: vector[4]!,
    runOpen: vector[5]!,
    rowsEnded: vector[6]!,
    register: String(register),
  };
}

/** AAP-7's rule over the session, its keyed state carried from segment to segment. */
export const aap7Segment: SegmentCarrier = {
  carry({ encoded, boundaries, size, thetaInputs, finalRoot }) {
    const { states, inputs, violationFrom } = aap7SegmentChain(
      encoded,
      boundaries,
      size,
      thetaInputs,
      finalRoot,
    );
    return { states, inputs, violationFrom };
  },
};
