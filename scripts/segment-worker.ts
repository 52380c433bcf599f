// A segment worker process: `tsx scripts/segment-worker.ts --redis redis://127.0.0.1:6379 [--concurrency 1]
// [--lock-ms N] [--stalled-ms N] [--prefix bull]`. Proves segments from the BullMQ queue zkvai-segments
// (prover/segments/queue.ts) and prints one JSON line per event on stdout: ready, started {claimId, index},
// proven {claimId, index, seconds}, failed, dead-lettered, stalled, error, stopping, stopped. Needs the
// circuits' artifacts at the paths the tasks name (run setup on this machine). SIGTERM or SIGINT: it takes no
// new segment, finishes the ones under way and exits 0; a second signal stops at once (the segment under way
// is then picked up by another worker once its lock lapses).
import { parseArgs } from "node:util";
import { startSegmentWorker, type SegmentWorkerEvent } from "../prover/segments/queue.js";

const say = (event: SegmentWorkerEvent | { event: string; [key: string]: unknown }) =>
  process.stdout.write(`${JSON.stringify(event)}\n`);

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: tsx scripts/segment-worker.ts --redis redis://host:port [--concurrency n] ` +
      `[--lock-ms ms] [--stalled-ms ms] [--prefix p]\n`,
  );
  process.exit(2);
}

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) usage(`--${name} must be a positive integer, not ${value}`);
  return n;
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      redis: { type: "string" },
      concurrency: { type: "string" },
      "lock-ms": { type: "string" },
      "stalled-ms": { type: "string" },
      prefix: { type: "string" },
    },
    strict: true,
  }));
} catch (e) {
  usage((e as Error).message);
}
if (!values.redis) usage("--redis is required");
const lockDurationMs = positive("lock-ms", values["lock-ms"]);
const stalledIntervalMs = positive("stalled-ms", values["stalled-ms"]);
const concurrency = positive("concurrency", values.concurrency);

// The handlers come first: a signal that arrives while the worker connects still stops it cleanly.
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) {
    say({ event: "stopped", signal, forced: true });
    process.exit(130);
  }
  stopping = true;
  say({ event: "stopping", signal });
  let code = 0;
  try {
    await (await worker).close();
  } catch (e) {
    say({ event: "error", error: String((e as Error)?.message ?? e) });
    code = 1;
  }
  say({ event: "stopped", signal });
  process.exit(code);
};
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));

// Proving runs in child processes (a LocalSegmentPool per concurrency slot), so this one holds no snarkjs threads.
const worker = startSegmentWorker({
  connection: values.redis,
  ...(concurrency === undefined ? {} : { concurrency }),
  ...(lockDurationMs === undefined ? {} : { lockDurationMs }),
  ...(stalledIntervalMs === undefined ? {} : { stalledIntervalMs }),
  ...(values.prefix === undefined ? {} : { prefix: values.prefix }),
  onEvent: say,
});
try {
  await worker;
} catch (e) {
  process.stderr.write(`segment worker could not start: ${String((e as Error)?.message ?? e)}\n`);
  process.exit(1);
}
