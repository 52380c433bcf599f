// How the Session treats a call whose observed fact breaks a bound of the profile (record encoding v3,
// sdk/core/observations.ts): a result the tool already returned is stored as the `$unstorable` marker
// (the record kept, the agent given its value, a warning logged); args are refused before the tool runs;
// Session.append, which brings a result someone already holds, refuses it and writes nothing.
// The escrow is offline (./offline-escrow.ts): nothing is checkpointed, closed or proven.
import { describe, expect, it } from "vitest";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { stringToField } from "../../sdk/core/hash.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import { InvalidCallError } from "../../sdk/provider/session.js";
import { UNSTORABLE_KEY } from "../../sdk/provider/session-results.js";
import { openOfflineSession } from "./offline-escrow.js";

const PROFILE: EncodingProfile = {
  version: 1,
  tools: {
    list_files: { observe: { fact: "file", from: "result", path: "$.files[*]", max: 2 } },
    send_email: { observe: { fact: "recipient", from: "args", path: "$.to[*]", normalise: "fold" } },
  },
};

async function open() {
  const log = memoryLogger();
  const { session, store, sessionId } = await openOfflineSession("obs", { profile: PROFILE, log });
  const encoded = () => encodeTrace(store.records(sessionId), PROFILE, store.session(sessionId)!.secret);
  return { session, store, sessionId, log, encoded };
}

/** A tool that counts its runs. */
function counted<T>(value: T) {
  const t = { ran: 0, run: async () => (t.ran++, value) };
  return t;
}

describe("a result whose fact yields more values than max", () => {
  it("is stored as the $unstorable marker: the record exists, status ok, observing nothing; the agent gets the value", async () => {
    const { session, store, sessionId, log, encoded } = await open();
    const three = { files: ["a.txt", "b.txt", "c.txt"] };
    const tool = counted(three);
    await expect(session.call("list_files", { dir: "/w" }, tool.run)).resolves.toBe(three);
    expect(tool.ran).toBe(1);
    const [record] = store.records(sessionId);
    expect(record).toMatchObject({
      kind: "call",
      seq: 0,
      tool: "list_files",
      args: { dir: "/w" },
      result: {
        [UNSTORABLE_KEY]: expect.stringMatching(
          /^record 0: list_files\.file yields 3 values; the profile allows at most 2/,
        ),
        preview: JSON.stringify(three),
      },
    });
    expect(record).not.toHaveProperty("error");
    const [enc] = encoded();
    expect(enc).toMatchObject({ status: 1n, obs: [0n, 0n], observed: true });
    expect(log.entries).toContainEqual({
      level: "warn",
      event: "call.result_unstorable",
      fields: expect.objectContaining({
        sessionId,
        seq: 0,
        tool: "list_files",
        reason: expect.stringMatching(/yields 3 values/),
      }),
    });
  });

  it("while a result within max is stored as it is and observed", async () => {
    const { session, store, sessionId, log, encoded } = await open();
    await session.call("list_files", { dir: "/w" }, async () => ({ files: ["a.txt", "b.txt"] }));
    expect(store.records(sessionId)[0]).toMatchObject({ result: { files: ["a.txt", "b.txt"] } });
    expect(encoded()[0]).toMatchObject({ status: 1n, obs: [stringToField("a.txt"), stringToField("b.txt")] });
    expect(log.entries.filter((e) => e.event === "call.result_unstorable")).toEqual([]);
  });
});

describe("args whose fact yields more values than max", () => {
  it("refuse the call before its tool runs, and store nothing", async () => {
    const { session, store, sessionId } = await open();
    const tool = counted("sent");
    const call = session.call("send_email", { to: ["a@x", "b@x", "c@x"] }, tool.run);
    await expect(call).rejects.toThrow(InvalidCallError);
    await expect(call).rejects.toThrow(/call "send_email": record 0: send_email\.recipient yields 3 values/);
    expect(tool.ran).toBe(0);
    expect(store.records(sessionId)).toEqual([]);
    // The session goes on: the next call is seq 0.
    await session.call("send_email", { to: [" Bob@X "] }, tool.run);
    expect(store.records(sessionId)).toMatchObject([{ seq: 0, tool: "send_email" }]);
  });
});

describe("Session.append with a result whose fact breaks a bound", () => {
  it("is refused, and nothing is written", async () => {
    const { session, store, sessionId } = await open();
    const append = () =>
      session.append({ kind: "call", tool: "list_files", args: {}, result: { files: ["a", "b", "c"] } });
    expect(append).toThrow(InvalidCallError);
    expect(append).toThrow(/call "list_files": record 0: list_files\.file yields 3 values/);
    expect(store.records(sessionId)).toEqual([]);
    // A record that fits is appended at seq 0, and an appended error observes no result fact.
    session.append({ kind: "call", tool: "list_files", args: {}, result: { files: ["a"] } });
    session.append({
      kind: "call",
      tool: "list_files",
      args: {},
      error: "boom",
      result: { files: ["a", "b", "c"] },
    });
    expect(store.records(sessionId).map((r) => r.seq)).toEqual([0, 1]);
  });
});
