// npm run bench:segments:plot: docs/bench/segments.json drawn as docs/bench/segments.svg, two panels against
// records: the wall time of proving every segment with one worker and with two (and the 10-worker
// projection, from the 1-worker runs), and the settlement gas per claim. One series per predicate; only measured sessions are points.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../../sdk/manifest/packages.js";

interface Result {
  predicate: string;
  records: number;
  violated: boolean;
  runs: { workers: number; wallSeconds: number }[];
  gas: { total: number };
  projection: { wallSeconds: number };
}

const source = path.join(ROOT, "docs", "bench", "segments.json");
const out = path.join(ROOT, "docs", "bench", "segments.svg");
const results = (JSON.parse(readFileSync(source, "utf8")) as { results: Result[] }).results;
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];
const predicates = [...new Set(results.map((r) => r.predicate))].sort();

const W = 420;
const H = 280;
const M = { left: 64, right: 16, top: 32, bottom: 44 };
const maxRecords = Math.max(...results.map((r) => r.records), 1);

function panel(
  x0: number,
  title: string,
  unit: string,
  series: (r: Result) => { value: number; mark?: "dot" | "ring" | "square" }[],
): string {
  const values = results.flatMap((r) => series(r).map((s) => s.value));
  const maxY = Math.max(...values, 1) * 1.1;
  const px = (records: number) => x0 + M.left + (records / maxRecords) * (W - M.left - M.right);
  const py = (v: number) => M.top + (1 - v / maxY) * (H - M.top - M.bottom);
  const parts = [
    `<text x="${x0 + W / 2}" y="18" text-anchor="middle" font-size="13">${title}</text>`,
    `<line x1="${x0 + M.left}" y1="${H - M.bottom}" x2="${x0 + W - M.right}" y2="${H - M.bottom}" stroke="#000"/>`,
    `<line x1="${x0 + M.left}" y1="${M.top}" x2="${x0 + M.left}" y2="${H - M.bottom}" stroke="#000"/>`,
    `<text x="${x0 + W / 2}" y="${H - 8}" text-anchor="middle" font-size="11">records</text>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const v = (maxY / 1.1) * (k / 4);
    const label =
      v >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${(v / 1e3).toFixed(0)}k` : v.toFixed(0);
    parts.push(
      `<text x="${x0 + M.left - 6}" y="${py(v) + 4}" text-anchor="end" font-size="10">${label}${k === 4 ? ` ${unit}` : ""}</text>`,
    );
    const records = (maxRecords * k) / 4;
    parts.push(
      `<text x="${px(records)}" y="${H - M.bottom + 14}" text-anchor="middle" font-size="10">${Math.round(records)}</text>`,
    );
  }
  for (const [i, predicate] of predicates.entries()) {
    const color = COLORS[i % COLORS.length]!;
    const points = results
      .filter((r) => r.predicate === predicate)
      .flatMap((r) => series(r).map((s) => ({ ...s, records: r.records })))
      .sort((a, b) => a.records - b.records);
    for (const p of points)
      parts.push(
        p.mark === "square"
          ? `<rect x="${px(p.records) - 3.5}" y="${py(p.value) - 3.5}" width="7" height="7" fill="${color}"/>`
          : `<circle cx="${px(p.records)}" cy="${py(p.value)}" r="4" fill="${p.mark === "ring" ? "none" : color}" stroke="${color}"/>`,
      );
    parts.push(
      `<text x="${x0 + M.left + 8}" y="${M.top + 14 + 14 * i}" font-size="11" fill="${color}">${predicate}</text>`,
    );
  }
  return parts.join("\n");
}

// A projection made from a 2-worker run's shared-core times is left out: it overstates a machine per worker.
const time = panel(0, "wall time: ● 1 worker, ■ 2 (measured), ○ 10 (projected)", "s", (r) => {
  const one = r.runs.find((run) => run.workers === 1);
  const two = r.runs.find((run) => run.workers === 2);
  return [
    ...(one ? [{ value: one.wallSeconds }, { value: r.projection.wallSeconds, mark: "ring" as const }] : []),
    ...(two ? [{ value: two.wallSeconds, mark: "square" as const }] : []),
  ];
});
const gas = panel(W, "settlement gas per claim", "gas", (r) => [{ value: r.gas.total }]);
writeFileSync(
  out,
  `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H}" font-family="sans-serif">\n` +
    `<rect width="100%" height="100%" fill="#fff"/>\n${time}\n${gas}\n</svg>\n`,
);
console.log(`${out}: ${results.length} sessions, ${predicates.join(", ")}`);
