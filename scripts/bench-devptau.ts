// Times the INSECURE known-τ development ptau (prover/artifacts/devptau.ts) at the given powers:
//   npx tsx scripts/bench-devptau.ts 14 16 [--repeat 3] [--dir /tmp] [--no-save]
// Each run is its own child process, so its peak RSS (main thread + workers) is its own. The best
// and median seconds per power are merged into docs/bench/devptau.json; files go to --dir and are
// deleted after each run (2^20 is 1.2 GB).
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runMeasuredChild, sendMeasured, type RunCost } from "./bench/child-run.js";
import { benchMachine } from "./bench/machine.js";
import { writeDevPtau } from "../prover/artifacts/devptau.js";

type RunResult = RunCost & { bytes: number };

async function child(power: number, dir: string): Promise<void> {
  const file = path.join(dir, `zkvai-INSECURE-bench-devptau-${process.pid}-${power}.ptau`);
  try {
    await sendMeasured(async () => {
      await writeDevPtau(file, { power });
      return { bytes: statSync(file).size };
    });
  } finally {
    await rm(file, { force: true });
  }
}

const runChild = (power: number, dir: string): Promise<RunResult> =>
  runMeasuredChild(fileURLToPath(import.meta.url), ["--child", String(power), dir], `2^${power}`);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x: number, digits = 1) => Number(x.toFixed(digits));

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "--child") return child(Number(argv[1]), argv[2]);
  let repeat = 1;
  let dir = os.tmpdir();
  let save = true;
  const powers: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--repeat") repeat = Number(argv[++i]);
    else if (argv[i] === "--dir") dir = argv[++i];
    else if (argv[i] === "--no-save") save = false;
    else powers.push(Number(argv[i]));
  }
  if (!powers.length || powers.some((p) => !Number.isInteger(p) || p < 1 || p > 27) || !(repeat >= 1))
    throw new Error("usage: bench-devptau.ts POWER... [--repeat N] [--dir DIR] [--no-save]");

  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const out = path.join(root, "docs/bench/devptau.json");
  const saved = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>) : {};
  const best = (saved.devSetupSeconds ?? {}) as Record<string, number>;
  const detail = (saved.runs ?? {}) as Record<string, unknown>;
  for (const power of powers) {
    const runs: RunResult[] = [];
    const loads: number[] = [];
    for (let r = 0; r < repeat; r++) {
      const load = os.loadavg()[0];
      loads.push(load);
      const run = await runChild(power, dir);
      runs.push(run);
      console.log(
        `INSECURE dev ptau 2^${power}: ${run.seconds.toFixed(2)} s (CPU ${run.cpuSeconds.toFixed(1)} s), peak RSS ${run.peakRssMB.toFixed(0)} MB, ` +
          `${(run.bytes / 2 ** 20).toFixed(1)} MiB, load average before ${load.toFixed(2)}`,
      );
    }
    const seconds = runs.map((r) => r.seconds);
    const key = `2^${power}`;
    best[key] = round(Math.min(...seconds), 2);
    detail[key] = {
      best: round(Math.min(...seconds), 2),
      median: round(median(seconds), 2),
      runs: seconds.map((s) => round(s, 2)),
      cpuSeconds: runs.map((r) => round(r.cpuSeconds)),
      peakRssMB: round(Math.max(...runs.map((r) => r.peakRssMB)), 0),
      fileMiB: round(runs[0].bytes / 2 ** 20),
      loadAverageBefore: loads.map((l) => round(l, 2)),
      measuredAt: new Date().toISOString(),
    };
    if (runs.length > 1)
      console.log(`2^${power}: best ${best[key]} s, median ${round(median(seconds), 2)} s`);
  }
  if (!save) return;
  const sorted = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => Number(a.slice(2)) - Number(b.slice(2))));
  const json = { devSetupSeconds: sorted(best), runs: sorted(detail), machine: benchMachine() };
  writeFileSync(out, JSON.stringify(json, null, 2) + "\n");
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
}

await main(process.argv.slice(2));
