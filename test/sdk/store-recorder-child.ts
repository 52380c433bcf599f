// A second recorder process for the store concurrency tests (store-concurrency.test.ts).
//   record STORE N SESSION...: opens each SESSION on STORE and records N calls in each, the
//     sessions concurrently and each session's calls in order, every tool yielding once;
//     prints "done" and exits.
//   hold STORE SESSION: opens SESSION, prints "ready", and idles until killed.
// The escrow is offline: what is under test is the store, shared with another process.
import type { Hex } from "viem";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { NO_CHECKPOINTS, offlineEscrow } from "./offline-escrow.js";

const [mode, storePath, ...rest] = process.argv.slice(2);
const store = TraceStore.open(storePath);
const open = (sessionId: string) =>
  Session.open({
    store,
    escrow: offlineEscrow(),
    sessionId: sessionId as Hex,
    user: "0x1111111111111111111111111111111111111111",
    profile: { version: 1, tools: { read: {} } },
    policy: NO_CHECKPOINTS,
  });
const yieldOnce = () => new Promise<void>((resolve) => setImmediate(resolve));

if (mode === "hold") {
  await open(rest[0]);
  console.log("ready");
  setInterval(() => {}, 1_000);
} else {
  const [n, ...sessionIds] = rest;
  await Promise.all(
    sessionIds.map(async (id) => {
      const session = await open(id);
      for (let i = 0; i < Number(n); i++) {
        await session.call("read", { i, pid: process.pid }, async () => (await yieldOnce(), i));
      }
    }),
  );
  console.log("done");
}
