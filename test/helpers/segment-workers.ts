// Segment worker processes for the BullMQ tests (test/prover/segment-queue*.test.ts): spawned, their JSON event
// lines collected, waited on by event, stopped with SIGTERM (SIGKILL after 20 s).
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { SegmentWorkerEvent } from "../../prover/segments/queue.js";

export type WorkerEvent = SegmentWorkerEvent & { event: string };

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  events: WorkerEvent[];
  waitFor(match: (e: WorkerEvent) => boolean, what: string, timeoutMs?: number): Promise<WorkerEvent>;
  stop(): Promise<void>;
}

/**
 * Starts a segment worker process (scripts/segment-worker.ts, or a test's own worker script taking the same
 * options) on `url` and waits for its "ready" line. Locks are short, so that a killed worker's segment moves
 * on within seconds: its lock lapses within lockMs, and a survivor's stalled check, every stalledMs, needs two
 * passes to take it back.
 */
export async function spawnWorker(
  url: string,
  opts: { prefix: string; lockMs: number; stalledMs: number; waitMs: number },
  script = "scripts/segment-worker.ts",
  extra: string[] = [],
): Promise<WorkerProcess> {
  const WAIT_MS = opts.waitMs;
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      script,
      "--redis",
      url,
      "--lock-ms",
      String(opts.lockMs),
      "--stalled-ms",
      String(opts.stalledMs),
      "--prefix",
      opts.prefix,
      ...extra,
    ],
    { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] },
  );
  const events: WorkerEvent[] = [];
  const listeners = new Set<() => void>();
  let stderr = "";
  child.stderr!.on("data", (c) => (stderr += c.toString()));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    try {
      events.push(JSON.parse(line) as WorkerEvent);
    } catch {
      return; // not one of ours
    }
    for (const l of listeners) l();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", () => {
    for (const l of listeners) l();
  });
  const waitFor = (match: (e: WorkerEvent) => boolean, what: string, timeoutMs = WAIT_MS) =>
    new Promise<WorkerEvent>((resolve, reject) => {
      const check = () => {
        const hit = events.find(match);
        if (hit) return finish(() => resolve(hit));
        if (child.exitCode !== null || child.signalCode !== null)
          finish(() =>
            reject(new Error(`worker ${child.pid} exited before ${what}: ${stderr.slice(-2000)}`)),
          );
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(
              new Error(`worker ${child.pid}: no ${what} within ${timeoutMs} ms: ${stderr.slice(-2000)}`),
            ),
          ),
        timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(killer);
    }
  };
  await waitFor((e) => e.event === "ready", "ready");
  return { child, pid: child.pid!, events, waitFor, stop };
}
