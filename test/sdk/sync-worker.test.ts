// The synchronous bridge the Postgres store stands on (sdk/provider/sync-worker.ts): a call blocks until the
// worker's async handler answered, values and errors cross intact, a worker that cannot start fails the call
// at once, and a call that timed out leaves the bridge refusing later calls (a late reply must never be
// taken for the next call's).
import { afterEach, describe, expect, it } from "vitest";
import { SyncWorker } from "../../sdk/provider/sync-worker.js";

const workers: SyncWorker[] = [];
const start = (entry: URL) => {
  const worker = new SyncWorker(entry, {});
  workers.push(worker);
  return worker;
};
afterEach(() => {
  for (const worker of workers.splice(0)) worker.terminate();
});
const echo = new URL("./sync-worker-echo.ts", import.meta.url);

describe("SyncWorker", () => {
  it("returns an async handler's value synchronously, in order, bigints and nesting intact", () => {
    const worker = start(echo);
    const value = { n: 1n << 80n, list: [1, "two", null], nested: { ok: true } };
    expect(worker.call("echo", [value], 30_000)).toEqual({ ok: true, value });
    for (let i = 0; i < 50; i++) expect(worker.call("echo", [i], 5_000)).toEqual({ ok: true, value: i });
    expect(worker.call("sleep", [50], 5_000)).toEqual({ ok: true, value: 50 });
  });

  it("carries a thrown error's name, message, code and details", () => {
    const worker = start(echo);
    expect(worker.call("fail", ["taken"], 30_000)).toEqual({
      ok: false,
      error: {
        name: "StoreConflictError",
        message: "taken",
        code: "STORE_CONFLICT",
        details: { why: "test" },
      },
    });
    expect(worker.call("nothing", [], 5_000)).toMatchObject({ ok: false, error: { message: /no handler/ } });
  });

  it("fails a call at once when its worker cannot start", () => {
    const worker = start(new URL("./no-such-worker.ts", import.meta.url));
    const began = Date.now();
    expect(worker.call("echo", [1], 30_000)).toMatchObject({
      ok: false,
      error: { name: "WorkerStart", message: /could not start/ },
    });
    expect(Date.now() - began).toBeLessThan(20_000);
  });

  it("fails the first call of a worker that failed to start before it was made", async () => {
    const worker = start(new URL("./no-such-worker.ts", import.meta.url));
    await new Promise((r) => setTimeout(r, 3_000));
    const began = Date.now();
    // Its failure came both as a message and as the worker's 'error' event: either one fails the call.
    expect(worker.call("echo", [1], 30_000)).toMatchObject({
      ok: false,
      error: { message: /could not start|thread stopped.*no-such-worker/ },
    });
    expect(Date.now() - began).toBeLessThan(1_000);
  });

  it("refuses every call after one timed out", () => {
    const worker = start(echo);
    expect(worker.call("echo", [0], 30_000)).toEqual({ ok: true, value: 0 });
    expect(worker.call("sleep", [500], 50)).toMatchObject({ ok: false, error: { name: "Timeout" } });
    expect(worker.call("echo", [1], 5_000)).toMatchObject({
      ok: false,
      error: { message: /did not answer sleep/ },
    });
  });
});
