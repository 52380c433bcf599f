// Issue 16, finding 7: with the store file unlinked under a running session, calls and close()
// still succeeded, writing into an inode no later process can open, so nothing could be proven
// once the process exited. Now the store checks, before acknowledging any record, that its
// path still names the file it opened, and refuses (sticky) once it does not.
import { copyFileSync, mkdtempSync, renameSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, toHex, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { TraceRecord } from "../../sdk/core/records.js";
import {
  RecordWriteError,
  Session,
  SessionCloseError,
  StoreUnavailableError,
} from "../../sdk/provider/session.js";
import { StoreError, TraceStore } from "../../sdk/provider/store.js";
import { NO_CHECKPOINTS, offlineEscrow } from "./offline-escrow.js";

const PROFILE = { version: 1 as const, tools: { read: {} } };
const USER = "0x1111111111111111111111111111111111111111" as const;
let n = 0;
const freshId = (): Hex => keccak256(toHex(`file:${process.pid}:${n++}`));
const rec = (seq: number): TraceRecord => ({ kind: "call", seq, ts: 1, tool: "read", args: { seq } });

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "zkvai-file-"));
  const path = join(dir, "trace.sqlite");
  const store = TraceStore.open(path);
  const sessionId = freshId();
  store.createSession({ sessionId, secret: 5n, profile: PROFILE, user: USER });
  return { dir, path, store, sessionId };
}

describe("a store whose file was unlinked or replaced refuses every record", () => {
  it("unlinked: refused, with the path named, and it stays refused", () => {
    const { path, store, sessionId } = fresh();
    store.append(sessionId, rec(0));
    unlinkSync(path);
    expect(() => store.append(sessionId, rec(1))).toThrow(StoreError);
    expect(() => store.append(sessionId, rec(1))).toThrow(
      new RegExp(`trace store ${path} was unlinked or moved after it was opened`),
    );
    expect(() => store.ping()).toThrow(/unavailable: .*unlinked/);
  });

  it("replaced by another file (a rename over the path): refused", () => {
    const { dir, path, store, sessionId } = fresh();
    store.append(sessionId, rec(0));
    const other = join(dir, "other.sqlite");
    copyFileSync(path, other);
    renameSync(other, path);
    expect(() => store.append(sessionId, rec(1))).toThrow(/was replaced by another file/);
  });

  it("moved away and back: the same file, so it is accepted again only if never seen missing", () => {
    const { dir, path, store, sessionId } = fresh();
    const aside = join(dir, "aside.sqlite");
    renameSync(path, aside);
    renameSync(aside, path);
    // Unseen while away: the path names the same inode, and the records are readable from it.
    expect(store.append(sessionId, rec(0))).toBe("inserted");
    renameSync(path, aside);
    expect(() => store.append(sessionId, rec(1))).toThrow(/unlinked or moved/);
    renameSync(aside, path);
    // Seen missing once: refused for good, since a record may have gone to the file while away.
    expect(() => store.append(sessionId, rec(1))).toThrow(/unlinked or moved/);
  });
});

describe("a Session on a store whose file was unlinked", () => {
  const open = (store: TraceStore, guard = false) =>
    Session.open({
      store,
      escrow: offlineEscrow(),
      sessionId: freshId(),
      user: USER,
      profile: PROFILE,
      policy: NO_CHECKPOINTS,
      guard,
    });

  it("acknowledges no call after it, and close() refuses to commit", async () => {
    const { path } = fresh();
    const store = TraceStore.open(path);
    const session = await open(store);
    await session.call("read", { i: 0 }, async () => 0);
    unlinkSync(path);
    await expect(session.call("read", { i: 1 }, async () => 1)).rejects.toThrow(RecordWriteError);
    await expect(session.call("read", { i: 1 }, async () => 1)).rejects.toThrow(/unlinked or moved/);
    expect(session.count).toBe(1);
    await expect(session.close()).rejects.toThrow(SessionCloseError);
    await expect(session.close()).rejects.toThrow(/unlinked or moved/);
  });

  it("in guard mode does not run the tool at all", async () => {
    const { path } = fresh();
    const store = TraceStore.open(path);
    const session = await open(store, true);
    unlinkSync(path);
    let ran = 0;
    await expect(session.call("read", {}, async () => (ran++, 0))).rejects.toThrow(StoreUnavailableError);
    expect(ran).toBe(0);
  });
});
