// npm run replay -- [--prove] [--json <file>] [--plot <file.svg>] <dir>...: the coverage replay (prover/replay.ts).
// Each (run, promise) pair of the reference's benchmark folders judged by zkVAI against the reference's verdict,
// and with --prove settled on an in-process chain with real proofs; a Table-1-style table per benchmark and
// promise on stdout, the rows and the table as JSON, the table as an SVG bar chart. Progress on stderr.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { checkoutBuilder } from "../bin/cli/setup.js";
import { releaseProver } from "../prover/prove.js";
import { embeddedChain } from "../sdk/dev/embedded.js";
import { replay, summarise, type ReplayRow, type ReplaySummary } from "../prover/replay.js";

const USAGE = `usage: npm run replay -- [--prove] [--json <file>] [--plot <file.svg>] <dir>...
  <dir>: a benchmark folder (promises.json, expected.jsonl, runs/), e.g. fixtures/vai-agentdojo fixtures/vai-tau
  --prove: settle every judged pair on an in-process chain with real Groth16 proofs (builds a missing circuit)`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    prove: { type: "boolean", default: false },
    json: { type: "string" },
    plot: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (values.help || positionals.length === 0) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}

const verdictText = (v: ReplayRow["reference"] | ReplayRow["zkvai"]) =>
  "unsupported" in v ? "unsupported" : v.violated ? `violated@${v.seq}` : "satisfied";

let rows: ReplayRow[];
try {
  const build = checkoutBuilder();
  rows = await replay(positionals, {
    prove: values.prove,
    chain: embeddedChain,
    build: build && ((circuit) => build(["--only", circuit])),
    onRow: (row, i, total) =>
      process.stderr.write(
        `[${String(i).padStart(String(total).length)}/${total}] ${row.promiseId} on ${row.caseId.slice(0, 14)}…: ` +
          `reference ${verdictText(row.reference)}, zkVAI ${verdictText(row.zkvai)}` +
          (row.settlement
            ? "circuit" in row.settlement
              ? `, settled ${row.settlement.outcome} (${row.settlement.settleGas} gas)`
              : `, not settled: ${row.settlement.skipped}`
            : "") +
          "\n",
      ),
  });
} catch (e) {
  console.error(`replay: ${(e as Error).message}`);
  process.exit(2);
} finally {
  await releaseProver();
}

const table = summarise(rows);
const header = [
  "benchmark",
  "promise",
  "runs",
  "ref. viol.",
  "zkVAI viol.",
  "agree",
  "settled",
  "prove s (p50)",
  "gas (p50)",
];
const lines = table.map((t: ReplaySummary) => [
  t.benchmark,
  t.promiseId,
  String(t.runs),
  String(t.referenceViolations),
  t.unsupported ? "—" : String(t.zkvaiViolations),
  t.unsupported ? `0/${t.runs} (unsupported)` : `${t.agreeing}/${t.runs}`,
  values.prove ? `${t.settledAgreeing}/${t.settled}` : "—",
  t.proveSecondsMedian === null ? "—" : t.proveSecondsMedian.toFixed(2),
  t.settleGasMedian === null ? "—" : String(t.settleGasMedian),
]);
const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c]!.length)));
const fmt = (cells: string[]) => cells.map((x, c) => x.padEnd(widths[c]!)).join("  ");
console.log(fmt(header));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const l of lines) console.log(fmt(l));
const judged = rows.filter((r) => r.agrees !== undefined);
console.log(
  `\n${rows.length} pairs: ${judged.length} judged, ${judged.filter((r) => r.agrees).length} agree with the reference (verdict and seq), ` +
    `${rows.length - judged.length} unsupported` +
    (values.prove
      ? `; ${rows.filter((r) => r.settlement && "circuit" in r.settlement).length} settled on-chain`
      : ""),
);
// One line per kind of reason (a τ³-bench reason names its rule: counted, not listed one by one).
const reasons = new Map<string, number>();
for (const t of table.filter((x) => x.unsupported)) {
  const kind = t.unsupported!.replace(/^τ³-bench promise \S+ \(rule \S+\):/, "τ³-bench rules:");
  reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
}
for (const [reason, n] of reasons) console.log(`  unsupported, ${n} promise${n === 1 ? "" : "s"}: ${reason}`);

if (values.json)
  writeFileSync(
    values.json,
    JSON.stringify({ rows, table }, (_, v) => (typeof v === "bigint" ? String(v) : v), 2) + "\n",
  );
if (values.plot) writeFileSync(values.plot, plot(table));

/** Three bars per promise: the reference's violations, zkVAI's, and the pairs that agree; unsupported greyed. */
function plot(t: readonly ReplaySummary[]): string {
  const barW = 8;
  const groupW = 3 * barW + 10;
  const H = 220;
  const top = 30;
  const bottom = 150;
  const left = 40;
  const W = left + t.length * groupW + 20;
  const max = Math.max(1, ...t.map((x) => x.runs));
  const y = (v: number) => top + H - (v / max) * H;
  const bars = t
    .map((x, i) => {
      const x0 = left + i * groupW;
      const series: [number, string][] = [
        [x.referenceViolations, "#d62728"],
        [x.unsupported ? 0 : x.zkvaiViolations, "#1f77b4"],
        [x.unsupported ? 0 : x.agreeing, x.unsupported ? "#bbbbbb" : "#2ca02c"],
      ];
      const rects = series
        .map(
          ([v, color], k) =>
            `<rect x="${x0 + k * barW}" y="${y(v)}" width="${barW - 1}" height="${top + H - y(v)}" fill="${color}"/>`,
        )
        .join("");
      const label = `<text transform="translate(${x0 + barW},${top + H + 6}) rotate(60)" font-size="8">${escape(x.promiseId)}${x.unsupported ? " (unsupported)" : ""}</text>`;
      return rects + label;
    })
    .join("\n");
  const legend = [
    ["#d62728", "reference violations"],
    ["#1f77b4", "zkVAI violations"],
    ["#2ca02c", "pairs agreeing (verdict and seq)"],
  ]
    .map(
      ([c, l], k) =>
        `<rect x="${left + k * 170}" y="8" width="10" height="10" fill="${c}"/><text x="${left + k * 170 + 14}" y="17" font-size="10">${l}</text>`,
    )
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${top + H + bottom}" font-family="sans-serif">
${legend}
<line x1="${left}" y1="${top + H}" x2="${W - 10}" y2="${top + H}" stroke="#333"/>
<text x="4" y="${top + 10}" font-size="9">${max} runs</text>
${bars}
</svg>
`;
}

function escape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
