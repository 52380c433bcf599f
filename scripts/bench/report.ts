// Turns bench results into what docs/BENCHMARKS.md quotes: a Markdown table, SVG plots, the proving cost
// model with its residuals, the cost of a claim on an L2 under stated assumptions, and the reference
// implementation's published figures side by side.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { barChart, lineChart, type Series } from "../lib/svg-plot.js";
import { linearFit, polyFit, type Fit, type LinearFit, type Spread } from "./analysis.js";

export interface ResultRow {
  predicate: string;
  capacity: number;
  status: "proven" | "compiled, not proven" | "extrapolated";
  circuit?: string;
  /** Fold entries the circuit holds: checkpointSlots(capacity). */
  checkpoints?: number;
  /** Checkpoints each proven trace got from the default policy (one every CHECKPOINT_INTERVAL records). */
  checkpointsPerTrace?: number;
  constraints: number;
  constraintsPerRecord: number;
  constraintsPerRecordMarginal?: number;
  /** One more fold entry's constraints (the checkpoint lookup at K minus K − 1), paid per entry of the circuit. */
  constraintsPerCheckpoint: number;
  constraintsPerCheckpointMeasured?: boolean;
  /** snarkjs' evaluation domain, 2^power: the FFTs run over it, padding included. */
  domainSize?: number;
  witnessSeconds?: Spread;
  proveSeconds?: Spread;
  proveCpuSeconds?: Spread;
  verifySeconds?: Spread;
  peakRssMB?: number;
  zkeyMB?: number;
  /** `checkpoint` (median) and `checkpointFirst` only when the traces got checkpoints. */
  gas?: { settle: number; checkpoint?: number; claimDefault: number; [k: string]: number | undefined };
  [k: string]: unknown;
}

/** Assumptions for "what a provider pays per claim on an L2"; none of them is measured here. */
export const L2_ASSUMPTIONS = {
  assumedOn: "2026-11-30",
  source:
    "assumed, not fetched (the bench machine has no network): round figures of the order public gas trackers showed for OP-stack L2s (Base, OP Mainnet) and Ethereum blob fees in 2025",
  l2ExecutionGasPriceGwei: 0.01,
  /** Settle calldata: selector + claimId + proof[8] + violated, 32-byte words. */
  settleCalldataBytes: 4 + 32 * 10,
  /** L1 data cost per calldata byte when the L2 posts blobs (EIP-4844): 1 blob gas per byte. */
  blobBaseFeeGwei: 1,
  /** Upper bound: the L2 posting calldata to L1 at 16 L1 gas per byte. */
  l1GasPriceGwei: 10,
  ethUsd: 3000,
};

/** VAI's published figures (the reference implementation), as its paper reports them. */
export const REFERENCE = {
  trustedVerifierSecondsPer10kRecords: 0.2,
  checkpointGas: 80_000,
  recordingOverheadMsPerCall: 7,
};

export function l2ClaimCost(settleGas: number, sessionGas: number) {
  const a = L2_ASSUMPTIONS;
  const gwei = 1e-9;
  const exec = settleGas * a.l2ExecutionGasPriceGwei * gwei;
  const blob = a.settleCalldataBytes * a.blobBaseFeeGwei * gwei;
  const calldata = a.settleCalldataBytes * 16 * a.l1GasPriceGwei * gwei;
  const usd = (eth: number) => Number((eth * a.ethUsd).toPrecision(3));
  return {
    settleGas,
    executionEth: exec,
    l1DataEthBlob: blob,
    l1DataEthCalldata: calldata,
    perClaimUsdBlob: usd(exec + blob),
    perClaimUsdCalldata: usd(exec + calldata),
    /** openSession + its checkpoints + closeSession, L2 execution only: paid per session, not per claim. */
    perSessionUsd: usd(sessionGas * a.l2ExecutionGasPriceGwei * gwei),
  };
}

const fmt = (n: number | undefined, digits = 2) =>
  n === undefined || Number.isNaN(n) ? "—" : n.toFixed(digits);
const int = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? "—" : Math.round(n).toLocaleString("en-US");
const spreadCell = (s: Spread | undefined, digits = 2) =>
  s ? `${fmt(s.min, digits)} / ${fmt(s.median, digits)} / ${fmt(s.max, digits)}` : "—";

export function markdownTable(rows: ResultRow[]): string {
  const head =
    "| predicate | records | status | checkpoints (slots / per trace) | constraints | per record (all-in / marginal) | per checkpoint slot | witness s | prove s (min / median / max) | prove CPU s | verify s | peak RSS MB | zkey MB | settle gas | checkpoint gas | claimDefault gas |\n" +
    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";
  const lines = rows.map((r) =>
    [
      r.predicate,
      r.capacity,
      r.status,
      `${int(r.checkpoints)} / ${int(r.checkpointsPerTrace)}`,
      int(r.constraints),
      `${int(r.constraintsPerRecord)} / ${int(r.constraintsPerRecordMarginal)}`,
      `${int(r.constraintsPerCheckpoint)}${r.constraintsPerCheckpointMeasured === false ? "*" : ""}`,
      fmt(r.witnessSeconds?.median),
      spreadCell(r.proveSeconds),
      fmt(r.proveCpuSeconds?.median),
      fmt(r.verifySeconds?.median, 3),
      int(r.peakRssMB),
      fmt(r.zkeyMB, 1),
      int(r.gas?.settle),
      int(r.gas?.checkpoint),
      int(r.gas?.claimDefault),
    ].join(" | "),
  );
  return [head, ...lines.map((l) => `| ${l} |`)].join("\n");
}

/**
 * One row per predicate and size with the figures a cost-per-size curve reads: constraints, median proof
 * time (wall and CPU), peak memory of the proving process, settle gas. Rows not proven say how they were
 * counted.
 */
export function curveTable(rows: ResultRow[]): string {
  const head =
    "| predicate | records | constraints | per record | prove s (median) | prove CPU s | peak RSS MB | settle gas |\n" +
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";
  const lines = rows.map((r) =>
    [
      r.predicate,
      r.status === "proven" ? r.capacity : `${r.capacity} (${r.status})`,
      int(r.constraints),
      int(r.constraintsPerRecord),
      fmt(r.proveSeconds?.median),
      fmt(r.proveCpuSeconds?.median),
      int(r.peakRssMB),
      int(r.gas?.settle),
    ].join(" | "),
  );
  return [head, ...lines.map((l) => `| ${l} |`)].join("\n");
}

/** time ≈ a + b·constraints over the proven rows (median prove time), with residuals. */
export function proveCostModel(
  rows: ResultRow[],
): { proveSeconds: Fit; proveCpuSeconds: Fit; peakRssMB: Fit; proveSecondsByShape?: LinearFit } | undefined {
  const proven = rows.filter((r) => r.status === "proven" && r.proveSeconds);
  if (new Set(proven.map((r) => r.constraints)).size < 2) return undefined;
  // The key's size stands for what the prover reads: one point per signal and per domain element, and
  // every A/B coefficient. Constraints alone miss the last (AAP-4's event log has long combinations).
  const shaped = proven.filter((r) => r.zkeyMB !== undefined && r.domainSize !== undefined);
  // Needs two distinct domains and more points than coefficients to separate the two slopes.
  const byShape =
    shaped.length > 3 && new Set(shaped.map((r) => r.domainSize)).size > 1
      ? linearFit(shaped.map((r) => ({ x: [r.zkeyMB!, r.domainSize!], y: r.proveSeconds!.median })))
      : undefined;
  return {
    proveSecondsByShape: byShape,
    proveSeconds: polyFit(
      proven.map((r) => ({ x: r.constraints, y: r.proveSeconds!.median })),
      1,
    ),
    proveCpuSeconds: polyFit(
      proven.map((r) => ({ x: r.constraints, y: r.proveCpuSeconds!.median })),
      1,
    ),
    peakRssMB: polyFit(
      proven.map((r) => ({ x: r.constraints, y: r.peakRssMB! })),
      1,
    ),
  };
}

export function writePlots(rows: ResultRow[], dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const predicates = [...new Set(rows.map((r) => r.predicate))].sort();
  const files: string[] = [];
  const write = (name: string, svg: string) => {
    writeFileSync(path.join(dir, name), svg);
    files.push(path.join(dir, name));
  };
  const proven = rows.filter((r) => r.status === "proven" && r.proveSeconds);
  if (proven.length) {
    write(
      "prove-time-vs-records.svg",
      lineChart({
        title: "Groth16 proof time (median) vs trace capacity",
        xLabel: "records (capacity, log2 scale)",
        yLabel: "seconds",
        logX: true,
        series: predicates
          .map((p) => ({
            name: p,
            points: proven
              .filter((r) => r.predicate === p)
              .map((r) => ({ x: r.capacity, y: r.proveSeconds!.median })),
          }))
          .filter((s) => s.points.length),
      }),
    );
  }
  // The proven rows' other costs per size: the proving process's peak memory and the settle transaction.
  const provenCurve = (title: string, yLabel: string, y: (r: ResultRow) => number | undefined) =>
    lineChart({
      title,
      xLabel: "records (capacity, log2 scale)",
      yLabel,
      logX: true,
      series: predicates
        .map((p) => ({
          name: p,
          points: proven
            .filter((r) => r.predicate === p && y(r) !== undefined)
            .map((r) => ({ x: r.capacity, y: y(r)! })),
        }))
        .filter((s) => s.points.length),
    });
  if (proven.some((r) => r.peakRssMB !== undefined))
    write(
      "peak-rss-vs-records.svg",
      provenCurve("Peak RSS of the proving process vs trace capacity", "MB", (r) => r.peakRssMB),
    );
  if (proven.some((r) => r.gas))
    write(
      "settle-gas-vs-records.svg",
      provenCurve("settle() gas (median) vs trace capacity", "gas", (r) => r.gas?.settle),
    );
  const perRecord: Series[] = predicates.flatMap((p) => {
    const mine = rows.filter((r) => r.predicate === p).sort((a, b) => a.capacity - b.capacity);
    const counted = mine.filter((r) => r.status !== "extrapolated");
    const last = counted.at(-1);
    const extra = mine.filter((r) => r.status === "extrapolated");
    const out: Series[] = [
      { name: p, points: counted.map((r) => ({ x: r.capacity, y: r.constraintsPerRecord })) },
    ];
    if (extra.length && last)
      out.push({
        name: `${p} (extrapolated)`,
        dashed: true,
        points: [last, ...extra].map((r) => ({ x: r.capacity, y: r.constraintsPerRecord })),
      });
    return out;
  });
  write(
    "constraints-per-record.svg",
    lineChart({
      title: "Constraints per record (all-in) vs capacity",
      xLabel: "records (capacity, log2 scale)",
      yLabel: "constraints / record (log scale)",
      logX: true,
      logY: true,
      series: perRecord,
    }),
  );
  const gasRows = proven.filter((r) => r.gas);
  if (gasRows.length) {
    const ops = ["openSession", "checkpoint", "closeSession", "fileClaim", "settle", "claimDefault"];
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    write(
      "gas-per-operation.svg",
      barChart({
        title: "Gas per escrow operation (real transactions, median over circuits)",
        yLabel: "gas",
        categories: ops,
        groups: [
          {
            name: "zkVAI",
            values: ops.map((o) => {
              const xs = gasRows.map((r) => r.gas![o]).filter((x): x is number => typeof x === "number");
              return xs.length ? median(xs) : null;
            }),
          },
          {
            name: "VAI (reference)",
            values: ops.map((o) => (o === "checkpoint" ? REFERENCE.checkpointGas : null)),
          },
        ],
      }),
    );
  }
  return files;
}
