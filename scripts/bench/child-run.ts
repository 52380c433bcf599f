// One measured run per child process, so that each run's peak RSS (main thread and workers) is its own:
// the parent forks a script with arguments, the child does the work and sends one message with what it
// cost. Used by scripts/bench-devptau.ts and scripts/bench-devzkey.ts.
import { fork } from "node:child_process";

export interface RunCost {
  seconds: number;
  /** user + system CPU of all threads: what the run costs when the cores are shared. */
  cpuSeconds: number;
  peakRssMB: number;
}

/** In the child: runs `work`, then sends its result and its cost to the parent. */
export async function sendMeasured<T extends object>(work: () => Promise<T>): Promise<void> {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const result = await work();
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  process.send!({
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    // ru_maxrss is in KiB on Linux and covers every thread of the process.
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    ...result,
  });
}

/** In the parent: forks `script` with `args` and resolves with the message its child sends. */
export function runMeasuredChild<T extends object>(
  script: string,
  args: string[],
  label: string,
): Promise<T & RunCost> {
  return new Promise((resolve, reject) => {
    const proc = fork(script, args);
    let result: (T & RunCost) | undefined;
    proc.on("message", (m) => (result = m as T & RunCost));
    proc.on("error", reject);
    proc.on("exit", (code) =>
      result ? resolve(result) : reject(new Error(`${label}: child exited with ${code}`)),
    );
  });
}
