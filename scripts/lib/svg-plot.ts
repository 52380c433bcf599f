// Dependency-free SVG charts for the benchmark report: line charts (linear or log2 x axis) and grouped bar
// charts. Output is deterministic for the same input, so regenerated plots diff cleanly.

export interface Series {
  name: string;
  points: Array<{ x: number; y: number }>;
  /** Drawn dashed: values that were extrapolated rather than measured. */
  dashed?: boolean;
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  logX?: boolean;
  logY?: boolean;
}

export interface BarChart {
  title: string;
  yLabel: string;
  categories: string[];
  groups: Array<{ name: string; values: Array<number | null> }>;
}

const W = 720;
const H = 420;
const M = { left: 80, right: 170, top: 40, bottom: 60 };
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"];

export function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A short human label: 1,234 → "1.2k", 2,500,000 → "2.5M". */
export function compact(v: number): string {
  const a = Math.abs(v);
  const trim = (x: number) => String(Number(x.toPrecision(3)));
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1e3) return `${trim(v / 1e3)}k`;
  return trim(v);
}

/** "Nice" ticks covering [lo, hi]: steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  // The last tick is the first one at or above hi, so the axis covers every value.
  for (let t = Math.floor(lo / step) * step; ; t += step) {
    ticks.push(Number(t.toPrecision(12)));
    if (t >= hi - step * 1e-9) return ticks;
  }
}

function frame(title: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    ...body,
    `</svg>`,
    "",
  ].join("\n");
}

function legend(names: Array<{ name: string; dashed?: boolean }>): string[] {
  return names.flatMap(({ name, dashed }, i) => {
    const y = M.top + 10 + i * 18;
    const x = W - M.right + 15;
    const dash = dashed ? ` stroke-dasharray="5,3"` : "";
    return [
      `<line x1="${x}" y1="${y}" x2="${x + 20}" y2="${y}" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"${dash}/>`,
      `<text x="${x + 26}" y="${y + 4}">${escapeXml(name)}</text>`,
    ];
  });
}

function axes(xLabel: string, yLabel: string): string[] {
  const [x0, y0, x1] = [M.left, H - M.bottom, W - M.right];
  return [
    `<line x1="${x0}" y1="${y0}" x2="${x1}" y2="${y0}" stroke="black"/>`,
    `<line x1="${x0}" y1="${M.top}" x2="${x0}" y2="${y0}" stroke="black"/>`,
    `<text x="${(x0 + x1) / 2}" y="${H - 15}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
    `<text transform="translate(18 ${(M.top + y0) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yLabel)}</text>`,
  ];
}

export function lineChart(c: LineChart): string {
  const all = c.series.flatMap((s) => s.points);
  if (!all.length) throw new Error(`${c.title}: no points to plot`);
  const tx = (v: number) => (c.logX ? Math.log2(v) : v);
  const ty = (v: number) => (c.logY ? Math.log10(v) : v);
  for (const p of all)
    if ((c.logX && !(p.x > 0)) || (c.logY && !(p.y > 0)))
      throw new Error(`${c.title}: a log axis needs positive values, got (${p.x}, ${p.y})`);
  const xs = all.map((p) => tx(p.x));
  const ys = all.map((p) => ty(p.y));
  const xTicks = c.logX
    ? Array.from(
        { length: Math.ceil(Math.max(...xs)) - Math.floor(Math.min(...xs)) + 1 },
        (_, i) => Math.floor(Math.min(...xs)) + i,
      )
    : niceTicks(Math.min(...xs), Math.max(...xs));
  const yTicks = c.logY
    ? Array.from(
        { length: Math.ceil(Math.max(...ys)) - Math.floor(Math.min(...ys)) + 1 },
        (_, i) => Math.floor(Math.min(...ys)) + i,
      )
    : niceTicks(Math.min(0, ...ys), Math.max(...ys));
  const [xLo, xHi] = [Math.min(...xTicks), Math.max(...xTicks)];
  const [yLo, yHi] = [Math.min(...yTicks), Math.max(...yTicks)];
  const px = (v: number) => M.left + ((v - xLo) / (xHi - xLo || 1)) * (W - M.left - M.right);
  const py = (v: number) => H - M.bottom - ((v - yLo) / (yHi - yLo || 1)) * (H - M.top - M.bottom);
  const f = (n: number) => n.toFixed(1);
  const body = [...axes(c.xLabel, c.yLabel)];
  for (const t of xTicks) {
    const label = c.logX ? compact(2 ** t) : compact(t);
    body.push(
      `<line x1="${f(px(t))}" y1="${H - M.bottom}" x2="${f(px(t))}" y2="${H - M.bottom + 5}" stroke="black"/>`,
    );
    body.push(`<text x="${f(px(t))}" y="${H - M.bottom + 18}" text-anchor="middle">${label}</text>`);
  }
  for (const t of yTicks) {
    const label = c.logY ? compact(10 ** t) : compact(t);
    body.push(
      `<line x1="${M.left}" y1="${f(py(t))}" x2="${W - M.right}" y2="${f(py(t))}" stroke="#e5e5e5"/>`,
    );
    body.push(`<text x="${M.left - 8}" y="${f(py(t) + 4)}" text-anchor="end">${label}</text>`);
  }
  c.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = [...s.points].sort((a, b) => a.x - b.x).map((p) => `${f(px(tx(p.x)))},${f(py(ty(p.y)))}`);
    const dash = s.dashed ? ` stroke-dasharray="5,3"` : "";
    body.push(`<polyline fill="none" stroke="${color}" stroke-width="2"${dash} points="${pts.join(" ")}"/>`);
    for (const p of pts) {
      const [x, y] = p.split(",");
      body.push(`<circle cx="${x}" cy="${y}" r="3" fill="${color}"/>`);
    }
  });
  body.push(...legend(c.series));
  return frame(c.title, body);
}

export function barChart(c: BarChart): string {
  const values = c.groups.flatMap((g) => g.values.filter((v): v is number => v !== null));
  if (!values.length) throw new Error(`${c.title}: no values to plot`);
  const yTicks = niceTicks(0, Math.max(...values));
  const yHi = Math.max(...yTicks);
  const py = (v: number) => H - M.bottom - (v / yHi) * (H - M.top - M.bottom);
  const slot = (W - M.left - M.right) / c.categories.length;
  const bar = (slot * 0.8) / c.groups.length;
  const f = (n: number) => n.toFixed(1);
  const body = [...axes("", c.yLabel)];
  for (const t of yTicks) {
    body.push(
      `<line x1="${M.left}" y1="${f(py(t))}" x2="${W - M.right}" y2="${f(py(t))}" stroke="#e5e5e5"/>`,
    );
    body.push(`<text x="${M.left - 8}" y="${f(py(t) + 4)}" text-anchor="end">${compact(t)}</text>`);
  }
  c.categories.forEach((cat, ci) => {
    const x0 = M.left + ci * slot + slot * 0.1;
    body.push(
      `<text x="${f(M.left + (ci + 0.5) * slot)}" y="${H - M.bottom + 18}" text-anchor="middle">${escapeXml(cat)}</text>`,
    );
    c.groups.forEach((g, gi) => {
      const v = g.values[ci];
      if (v === null || v === undefined) return;
      const x = x0 + gi * bar;
      body.push(
        `<rect x="${f(x)}" y="${f(py(v))}" width="${f(bar - 2)}" height="${f(H - M.bottom - py(v))}" fill="${COLORS[gi % COLORS.length]}"><title>${escapeXml(`${g.name} ${cat}: ${v}`)}</title></rect>`,
      );
      body.push(
        `<text x="${f(x + (bar - 2) / 2)}" y="${f(py(v) - 4)}" text-anchor="middle" font-size="10">${compact(v)}</text>`,
      );
    });
  });
  body.push(...legend(c.groups));
  return frame(c.title, body);
}
