// Guard mode under an AAP-6 (strict grounding) promise: a delete of a path no earlier successful listing
// showed is refused before the tool runs and recorded as blocked; a delete of a listed path runs. The
// guard itself is tested in ./session-guard.test.ts; here it is the first predicate that reads observations.
// The escrow is offline (./offline-escrow.ts): nothing is checkpointed, closed or proven.
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { STATUS } from "../../sdk/core/observations.js";
import { predicateById } from "../../sdk/core/predicates/index.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { GuardRefusal, type PromiseRef } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { openOfflineSession } from "./offline-escrow.js";

const PROFILE: EncodingProfile = {
  version: 1,
  tools: {
    list_files: { observe: { fact: "path", from: "result", path: "$.files[*]" } },
    delete_file: { observe: { fact: "path", from: "args", path: "$.path" } },
  },
};
const AAP6: PromiseRef = {
  predicate: "AAP-6",
  theta: { consequential: { delete_file: "path" }, sources: { list_files: "path" } },
};

const open = () => openOfflineSession("guard6", { profile: PROFILE, promises: [AAP6], guard: true });

function verdict(store: TraceStore, sessionId: Hex) {
  const def = predicateById(AAP6.predicate);
  return def.evaluate(store.records(sessionId), def.parseTheta(AAP6.theta), PROFILE);
}

describe("guard mode under AAP-6", () => {
  it("refuses a delete of a path never listed (not run, blocked) and runs one of a listed path", async () => {
    const { session, store, sessionId } = await open();
    const deleted: string[] = [];
    const del = (path: string) => async () => (deleted.push(path), "deleted");

    await session.call("list_files", { dir: "/w" }, async () => ({ files: ["a.txt", "b.txt"] }));
    const refused = session.call("delete_file", { path: "c.txt" }, del("c.txt"));
    await expect(refused).rejects.toThrow(GuardRefusal);
    await expect(refused).rejects.toMatchObject({
      predicate: "AAP-6",
      promiseIndex: 0,
      seq: 1,
      reason: expect.stringContaining("'c.txt'"),
    });
    expect(await session.call("delete_file", { path: "a.txt" }, del("a.txt"))).toBe("deleted");
    expect(deleted).toEqual(["a.txt"]);

    const records = store.records(sessionId);
    expect(records.map((r) => r.kind === "call" && [r.tool, !!r.blocked])).toEqual([
      ["list_files", false],
      ["delete_file", true],
      ["delete_file", false],
    ]);
    expect(records[1]).toMatchObject({ error: expect.stringMatching(/refused by guard/) });
    // The blocked record observes nothing and is no executed call: the promise still holds.
    const encoded = encodeTrace(records, PROFILE, store.session(sessionId)!.secret);
    expect(encoded[1]!.status).toBe(STATUS.blocked);
    expect(encoded[1]!.obs).toEqual([0n, 0n]);
    expect(verdict(store, sessionId).violated).toBe(false);
  });

  it("a failed listing grounds nothing: the delete after it is refused", async () => {
    const { session, store, sessionId } = await open();
    await expect(
      session.call("list_files", { dir: "/w" }, async () => {
        throw new Error("permission denied");
      }),
    ).rejects.toThrow(/permission denied/);
    let ran = 0;
    await expect(
      session.call("delete_file", { path: "a.txt" }, async () => (ran++, "deleted")),
    ).rejects.toThrow(GuardRefusal);
    expect(ran).toBe(0);
    expect(verdict(store, sessionId).violated).toBe(false);
  });
});
