// A recorder process for the Postgres store's process tests (store-postgres.test.ts).
//   append URL SESSION: creates SESSION, claims its writer lock, prints "claimed", then appends records
//     without end, printing "acked <seq>" after each append returned, until it is killed.
import { TraceStore } from "../../sdk/provider/store.js";

const [mode, url, sessionId] = process.argv.slice(2);
if (mode !== "append") throw new Error(`unknown mode ${mode}`);
const store = TraceStore.open(url);
store.createSession({
  sessionId: sessionId as `0x${string}`,
  secret: 3n,
  profile: { version: 1, tools: { read: {} } },
  user: "0x1111111111111111111111111111111111111111",
});
store.claimWriter(sessionId);
console.log("claimed");
// stdout to a pipe is synchronous on Linux: each line is out before the next append starts.
for (let seq = 0; ; seq++) {
  store.append(sessionId, { kind: "call", seq, ts: seq, tool: "read", args: { i: seq } });
  console.log(`acked ${seq}`);
}
