import os from "node:os";

/** The machine a benchmark ran on, as every results file records it. */
export function benchMachine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model?.trim(),
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAverage1m: Number(os.loadavg()[0].toFixed(2)),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    note: "shared development machine: other work ran alongside, so read times as upper bounds",
  };
}
