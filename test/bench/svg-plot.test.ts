// The bench's SVG charts and fits: well-formed SVG with the points where the axes say, and fits that
// recover known coefficients.
import { describe, expect, it } from "vitest";
import { linearFit, polyFit, spread } from "../../scripts/bench/analysis.js";
import { proveCostModel, type ResultRow } from "../../scripts/bench/report.js";
import { barChart, compact, escapeXml, lineChart, niceTicks } from "../../scripts/lib/svg-plot.js";

const polyline = (svg: string) =>
  [...svg.matchAll(/<polyline[^>]* points="([^"]+)"/g)].map((m) =>
    m[1].split(" ").map((p) => p.split(",").map(Number)),
  );

describe("lineChart", () => {
  const svg = lineChart({
    title: 't <&> "q"',
    xLabel: "records",
    yLabel: "s",
    logX: true,
    series: [
      {
        name: "A",
        points: [
          { x: 16, y: 2 },
          { x: 4, y: 1 },
          { x: 64, y: 4 },
        ],
      },
      { name: "B", points: [{ x: 4, y: 0 }], dashed: true },
    ],
  });

  it("is one well-formed svg element with escaped text", () => {
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toContain("t &#60;&#38;&#62; &#34;q&#34;");
    expect(svg).not.toMatch(/<[^>]*<&>/);
    expect(svg).toContain('stroke-dasharray="5,3"');
  });

  it("places points in x order, equally spaced on a log2 axis, higher y higher up", () => {
    const [a] = polyline(svg);
    expect(a).toHaveLength(3);
    const [x4, x16, x64] = a.map(([x]) => x);
    expect(x16 - x4).toBeCloseTo(x64 - x16, 0);
    const [y1, y2, y4] = a.map(([, y]) => y);
    expect(y1).toBeGreaterThan(y2);
    expect(y2).toBeGreaterThan(y4);
  });

  it("labels log2 ticks with the capacities", () => {
    for (const label of [">4<", ">8<", ">16<", ">32<", ">64<"]) expect(svg).toContain(label);
  });

  it("refuses non-positive values on a log axis and empty charts", () => {
    expect(() =>
      lineChart({
        title: "x",
        xLabel: "",
        yLabel: "",
        logY: true,
        series: [{ name: "a", points: [{ x: 1, y: 0 }] }],
      }),
    ).toThrow(/log axis/);
    expect(() => lineChart({ title: "x", xLabel: "", yLabel: "", series: [] })).toThrow(/no points/);
  });
});

describe("barChart", () => {
  it("draws one rect per non-null value, taller for larger values", () => {
    const svg = barChart({
      title: "gas",
      yLabel: "gas",
      categories: ["settle", "checkpoint"],
      groups: [
        { name: "ours", values: [290_000, 62_529] },
        { name: "ref", values: [null, 80_000] },
      ],
    });
    const heights = [...svg.matchAll(/<rect x="[^"]+" y="[^"]+" width="[^"]+" height="([^"]+)"/g)].map((m) =>
      Number(m[1]),
    );
    expect(heights).toHaveLength(3);
    expect(heights[0]).toBeGreaterThan(heights[2]);
    expect(heights[2]).toBeGreaterThan(heights[1]);
    expect(svg).toContain("290k");
  });
});

describe("helpers", () => {
  it("niceTicks covers the range with 1-2-5 steps", () => {
    expect(niceTicks(0, 9.3)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0, 290_000)).toEqual([0, 100_000, 200_000, 300_000]);
  });
  it("compact and escapeXml", () => {
    expect(compact(62_529)).toBe("62.5k");
    expect(compact(2_500_000)).toBe("2.5M");
    expect(compact(0.25)).toBe("0.25");
    expect(escapeXml("a<b")).toBe("a&#60;b");
  });
});

describe("fits", () => {
  it("polyFit recovers a quadratic exactly and a noisy line approximately", () => {
    const quad = [4, 8, 16, 32, 64].map((x) => ({ x, y: 5000 + 700 * x + 3 * x * x }));
    const f = polyFit(quad, 2);
    expect(f.coefficients[0]).toBeCloseTo(5000, 3);
    expect(f.coefficients[1]).toBeCloseTo(700, 5);
    expect(f.coefficients[2]).toBeCloseTo(3, 6);
    expect(f.rms).toBeLessThan(1e-6);
    const line = [10_000, 20_000, 40_000, 80_000].map((x, i) => ({
      x,
      y: 0.5 + 4e-5 * x + (i % 2 ? 0.1 : -0.1),
    }));
    const g = polyFit(line, 1);
    expect(Math.abs(g.coefficients[1] / 4e-5 - 1)).toBeLessThan(0.1);
    // Least squares with an intercept: residuals sum to zero and stay within the noise.
    expect(g.residuals.reduce((s, r) => s + r.residual, 0)).toBeCloseTo(0, 9);
    for (const r of g.residuals) expect(Math.abs(r.residual)).toBeLessThan(0.15);
    expect(() => polyFit(line.slice(0, 2), 2)).toThrow(/needs 3 points/);
  });

  it("linearFit separates two features: a cost in key size and one in the padded domain", () => {
    const circuits = [
      [17_000, 2 ** 15],
      [30_000, 2 ** 15],
      [120_000, 2 ** 17],
      [240_000, 2 ** 18],
      [400_000, 2 ** 19],
      [640_000, 2 ** 20],
    ];
    const seconds = ([c, d]: number[]) => 0.9 + 8e-5 * c + 3e-5 * d;
    const f = linearFit(circuits.map((x) => ({ x, y: seconds(x) })));
    expect(f.coefficients[0]).toBeCloseTo(0.9, 6);
    expect(f.coefficients[1] / 8e-5).toBeCloseTo(1, 6);
    expect(f.coefficients[2] / 3e-5).toBeCloseTo(1, 6);
    expect(f.r2).toBeCloseTo(1, 9);
    expect(() => linearFit(circuits.slice(0, 2).map((x) => ({ x, y: 1 })))).toThrow(/needs 3 points/);

    // proveCostModel fits it from proven rows that carry their domain, and not from fewer than 4.
    const row = ([zkeyMB, domainSize]: number[]): ResultRow => ({
      predicate: "AAP-3",
      capacity: 0,
      status: "proven",
      constraints: zkeyMB,
      zkeyMB,
      domainSize,
      constraintsPerRecord: 0,
      constraintsPerCheckpoint: 0,
      proveSeconds: { min: 0, median: seconds([zkeyMB, domainSize]), max: 0 },
      proveCpuSeconds: { min: 0, median: 1, max: 0 },
      peakRssMB: zkeyMB / 1000,
    });
    const model = proveCostModel(circuits.map(row));
    expect(model?.proveSecondsByShape?.coefficients[2]).toBeCloseTo(3e-5, 9);
    expect(proveCostModel(circuits.slice(0, 3).map(row))?.proveSecondsByShape).toBeUndefined();
  });

  it("spread gives min, median and max", () => {
    expect(spread([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3 });
    expect(spread([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4 });
  });
});
