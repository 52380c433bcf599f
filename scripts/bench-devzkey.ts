// Times the INSECURE development setup (prover/artifacts/devzkey.ts: the Groth16 key straight from the
// public τ) on built circuits:
//   npx tsx scripts/bench-devzkey.ts aap3_n64 aap4_n1024 [--repeat 3] [--no-save]
// Each run is its own child process, so its peak RSS (main thread + workers) is its own; the key goes to
// a temporary file next to the instance's, deleted afterwards. Results per instance, and the best
// seconds per domain power, are merged into docs/bench/devzkey.json (`npm run bench` reports them as
// devSetupSeconds).
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runMeasuredChild, sendMeasured, type RunCost } from "./bench/child-run.js";
import { benchMachine } from "./bench/machine.js";
import { pathsFor, ROOT } from "../prover/artifacts/circuit-build.js";
import { writeDevZkey } from "../prover/artifacts/devzkey.js";

type RunResult = RunCost & { zkeyMiB: number; power: number; constraints: number };

async function child(name: string): Promise<void> {
  const file = `${pathsFor(name).devZkey}.bench-${process.pid}`;
  try {
    await sendMeasured(async () => {
      const { power, constraints } = await writeDevZkey(pathsFor(name).r1cs, file);
      return { zkeyMiB: statSync(file).size / 2 ** 20, power, constraints };
    });
  } finally {
    await rm(file, { force: true });
  }
}

const runChild = (name: string): Promise<RunResult> =>
  runMeasuredChild(fileURLToPath(import.meta.url), ["--child", name], name);

const round = (x: number, digits = 1) => Number(x.toFixed(digits));

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "--child") return child(argv[1]);
  let repeat = 1;
  let save = true;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--repeat") repeat = Number(argv[++i]);
    else if (argv[i] === "--no-save") save = false;
    else names.push(argv[i]);
  }
  const missing = names.filter((n) => !existsSync(pathsFor(n).r1cs));
  if (!names.length || !(repeat >= 1) || missing.length)
    throw new Error(
      "usage: bench-devzkey.ts INSTANCE... [--repeat N] [--no-save]; each instance compiled first" +
        (missing.length ? ` (no r1cs for ${missing.join(", ")}: npm run setup -- --only <name>)` : ""),
    );

  const out = path.join(ROOT, "docs/bench/devzkey.json");
  const saved = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>) : {};
  const runs = (saved.runs ?? {}) as Record<
    string,
    RunResult & { runs: number[]; loadAverageBefore: number[] }
  >;
  for (const name of names) {
    const results: RunResult[] = [];
    const loads: number[] = [];
    for (let r = 0; r < repeat; r++) {
      loads.push(os.loadavg()[0]);
      const run = await runChild(name);
      results.push(run);
      console.log(
        `INSECURE dev zkey ${name} (2^${run.power}, ${run.constraints} constraints): ${run.seconds.toFixed(2)} s ` +
          `(CPU ${run.cpuSeconds.toFixed(1)} s), peak RSS ${run.peakRssMB.toFixed(0)} MB, ${run.zkeyMiB.toFixed(1)} MiB, ` +
          `load average before ${loads.at(-1)!.toFixed(2)}`,
      );
    }
    const best = results.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    runs[name] = {
      ...best,
      seconds: round(best.seconds, 2),
      cpuSeconds: round(best.cpuSeconds),
      peakRssMB: round(best.peakRssMB, 0),
      zkeyMiB: round(best.zkeyMiB),
      runs: results.map((r) => round(r.seconds, 2)),
      loadAverageBefore: loads.map((l) => round(l, 2)),
    };
  }
  if (!save) return;
  // Per power, the fastest instance measured at that power (the domain, not the constraint count, sets
  // the H points; the signals set the rest).
  const byPower: Record<string, number> = {};
  for (const r of Object.values(runs)) {
    const key = `2^${r.power}`;
    byPower[key] = Math.min(byPower[key] ?? Infinity, r.seconds);
  }
  const sorted = <T>(o: Record<string, T>, key: (k: string) => number) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => key(a) - key(b)));
  const json = {
    devSetupSeconds: sorted(byPower, (k) => Number(k.slice(2))),
    runs: sorted(runs, (k) => runs[k].power * 1e7 + runs[k].constraints),
    machine: benchMachine(),
  };
  writeFileSync(out, JSON.stringify(json, null, 2) + "\n");
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
}

await main(process.argv.slice(2));
