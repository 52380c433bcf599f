// Small statistics for the bench report: min/median/max, and least-squares polynomial fits with their
// residuals (the cost model time ≈ a + b·constraints [+ c·domain], and constraints ≈ a + b·N + c·N² for
// extrapolation).

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export function spread(xs: readonly number[]): Spread {
  if (!xs.length) throw new Error("spread of no values");
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { min: s[0], median, max: s[s.length - 1] };
}

/** The p-quantile (0 ≤ p ≤ 1) of xs by the nearest rank below, 0 for none: a bench's p50 and p99. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}

export interface Fit {
  /** Coefficients, lowest degree first: y ≈ c[0] + c[1]·x + c[2]·x² … */
  coefficients: number[];
  residuals: Array<{ x: number; y: number; predicted: number; residual: number; relative: number }>;
  /** Root mean square of the residuals. */
  rms: number;
  r2: number;
}

/** Solves A·x = b by Gaussian elimination with partial pivoting (the systems here are 2×2 or 3×3). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (Math.abs(m[p][c]) < 1e-300) throw new Error("fit: singular system (too few distinct points)");
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const k = m[r][c] / m[c][c];
      for (let j = c; j <= n; j++) m[r][j] -= k * m[c][j];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

export interface LinearFit {
  /** y ≈ c[0] + c[1]·x[0] + c[2]·x[1] … */
  coefficients: number[];
  residuals: Array<{ x: number[]; y: number; predicted: number; residual: number; relative: number }>;
  rms: number;
  r2: number;
}

/** Least-squares y ≈ c0 + Σ c_i·x_i over any number of features. */
export function linearFit(
  points: ReadonlyArray<{ x: readonly number[]; y: number }>,
  /** Minimise relative rather than absolute residuals (weights 1/y²). */
  relative = false,
): LinearFit {
  const features = points[0]?.x.length ?? 0;
  const k = features + 1;
  if (points.length < k) throw new Error(`fit of ${k} coefficients needs ${k} points, got ${points.length}`);
  // Scale each feature to ~1 so the normal equations stay well conditioned for x in the millions.
  const scale = Array.from(
    { length: features },
    (_, i) => Math.max(...points.map((p) => Math.abs(p.x[i]))) || 1,
  );
  const ata = Array.from({ length: k }, () => Array<number>(k).fill(0));
  const atb = Array<number>(k).fill(0);
  for (const p of points) {
    const row = [1, ...p.x.map((v, i) => v / scale[i])];
    const w = relative ? 1 / (p.y * p.y || 1) : 1;
    for (let i = 0; i < k; i++) {
      atb[i] += w * row[i] * p.y;
      for (let j = 0; j < k; j++) ata[i][j] += w * row[i] * row[j];
    }
  }
  const coefficients = solve(ata, atb).map((c, i) => (i === 0 ? c : c / scale[i - 1]));
  const predict = (x: readonly number[]) =>
    x.reduce((s, v, i) => s + coefficients[i + 1] * v, coefficients[0]);
  const residuals = points.map((p) => {
    const predicted = predict(p.x);
    return { x: [...p.x], y: p.y, predicted, residual: p.y - predicted, relative: (p.y - predicted) / p.y };
  });
  const mean = points.reduce((s, p) => s + p.y, 0) / points.length;
  const ssRes = residuals.reduce((s, r) => s + r.residual ** 2, 0);
  const ssTot = points.reduce((s, p) => s + (p.y - mean) ** 2, 0);
  return {
    coefficients,
    residuals,
    rms: Math.sqrt(ssRes / points.length),
    r2: ssTot === 0 ? 1 : 1 - ssRes / ssTot,
  };
}

/** Least-squares polynomial of `degree` through the points; needs more points than coefficients to mean much. */
export function polyFit(
  points: ReadonlyArray<{ x: number; y: number }>,
  degree: number,
  /** Minimise relative rather than absolute residuals (weights 1/y²). */
  relative = false,
): Fit {
  if (points.length < degree + 1)
    throw new Error(`fit of degree ${degree} needs ${degree + 1} points, got ${points.length}`);
  const powers = (x: number) => Array.from({ length: degree }, (_, i) => x ** (i + 1));
  const fit = linearFit(
    points.map((p) => ({ x: powers(p.x), y: p.y })),
    relative,
  );
  return { ...fit, residuals: fit.residuals.map((r, i) => ({ ...r, x: points[i].x })) };
}

export function evaluatePoly(coefficients: readonly number[], x: number): number {
  return coefficients.reduce((s, c, i) => s + c * x ** i, 0);
}
