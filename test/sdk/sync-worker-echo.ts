// A worker for test/sdk/sync-worker.test.ts: answers echo, fail (a StoreConflictError) and sleep.
import { StoreConflictError } from "../../sdk/provider/store-model.js";
import { serveSync } from "../../sdk/provider/sync-worker.js";

serveSync({
  echo: async (value: unknown) => value,
  fail: async (message: string) => {
    throw new StoreConflictError(message, { details: { why: "test" } });
  },
  sleep: async (ms: number) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)),
});
