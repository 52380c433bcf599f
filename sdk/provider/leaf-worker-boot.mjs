// The entry of the SDK's worker threads: the leaf hasher's (sdk/provider/leaf-hasher.ts) and the Postgres
// trace store's (sdk/provider/sync-worker.ts), each started by URL with its module in workerData.entry. Plain
// JavaScript, because a worker thread in Node 20 does not inherit tsx's loader: from a checkout (tests,
// scripts run with tsx) the worker registers tsx itself before it loads the TypeScript source; from the built
// package the entry is the compiled .js and tsx is not needed. scripts/copy-assets.mjs copies this file into
// dist/.
import { workerData } from "node:worker_threads";

try {
  if (workerData.entry.endsWith(".ts")) {
    const { register } = await import("tsx/esm/api");
    register();
  }
  await import(workerData.entry);
} catch (e) {
  // A synchronous caller (sync-worker.ts) is blocked waiting for a reply: give it this failure now, rather
  // than let it wait out its timeout for a worker that is gone.
  if (workerData.flag && workerData.port) {
    workerData.port.postMessage({
      ok: false,
      error: { name: "WorkerStart", message: `the worker could not start: ${e?.message ?? e}` },
    });
    const flag = new Int32Array(workerData.flag);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }
  throw e;
}
