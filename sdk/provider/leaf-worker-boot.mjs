// The entry of the SDK's worker threads: the leaf hasher's (sdk/provider/leaf-hasher.ts) and the Postgres trace
// store's (sdk/provider/sync-worker.ts), each started by URL with its module in workerData.entry. Plain JavaScript, because a
// worker thread in Node 20 does not inherit tsx's loader: from a checkout (tests, scripts run with tsx) the
// worker registers tsx itself before it loads the TypeScript source; from the built package the entry is
// the compiled .js and tsx is not needed. scripts/copy-assets.mjs copies this file into dist/.
import { workerData } from "node:worker_threads";

if (workerData.entry.endsWith(".ts")) {
  const { register } = await import("tsx/esm/api");
  register();
}
await import(workerData.entry);
