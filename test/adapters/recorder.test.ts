// HarnessRecorder, the part every adapter shares: wrapped runs, begin/finish hooks with deduplication,
// approvals as authorization records, cancelled calls, refusals. Every adapter's own test settles real claims.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GuardRefusal } from "../../sdk/core/errors.js";
import {
  FailedResult,
  HarnessInputError,
  HarnessRecorder,
  OutcomeUnknownError,
  toolArgs,
  type Authority,
} from "../../sdk/adapters/recorder.js";
import { ALLOWED, ATTACKER, insurance, type Insurance } from "./insurance.js";

let ins: Insurance;
beforeAll(async () => {
  ins = await insurance();
});
afterAll(async () => ins?.dispose());

describe("HarnessRecorder", () => {
  it("hands the agent the tool's real result when the record can hold only a marker for it (issue 33 item 8)", async () => {
    const session = await ins.open("unstorable");
    const rec = new HarnessRecorder(session);
    const sentAt = new Date(Date.UTC(2026, 0, 2));
    // Wrapped run: a Date is stored as JSON carries it, a BigInt as a marker; the caller gets each value.
    const dated = { id: "m1", sentAt };
    expect(
      await rec.run({ callId: "u1", tool: "send_email", args: { to: ALLOWED } }, async () => dated),
    ).toBe(dated);
    expect(await rec.run({ callId: "u2", tool: "read_inbox", args: {} }, async () => 7n)).toBe(7n);
    // Begin/finish hooks: the framework already holds the result; finish() stores the marker and does not throw.
    const hooked = { callId: "u3", tool: "read_inbox", args: {} };
    expect(await rec.begin(hooked)).toEqual({ allowed: true, replayed: false });
    await expect(rec.finish(hooked.callId, { result: { total: 10n ** 20n } })).resolves.toBeUndefined();
    const calls = ins.records(session.sessionId).filter((r) => r.kind === "call");
    expect(calls.map((r) => r.kind === "call" && r.error)).toEqual([undefined, undefined, undefined]);
    expect(calls.map((r) => r.kind === "call" && r.result)).toEqual([
      { id: "m1", sentAt: "2026-01-02T00:00:00.000Z" },
      { $unstorable: "$: bigint is not JSON", preview: '"7n"' },
      { $unstorable: "$.total: bigint is not JSON", preview: '{"total":"100000000000000000000n"}' },
    ]);
    await session.close();
  });

  it("records wrapped runs under the call id", async () => {
    const session = await ins.open("wrapped");
    const rec = new HarnessRecorder(session);
    expect(await rec.run({ callId: "c1", tool: "read_inbox", args: {} }, async () => ["hi"])).toEqual(["hi"]);
    await rec.run({ callId: "c2", tool: "send_email", args: { to: ALLOWED } }, async () => "sent");
    // A replayed call id returns the stored result without running again.
    let ran = 0;
    await rec.run({ callId: "c2", tool: "send_email", args: { to: ALLOWED } }, async () => (ran++, "again"));
    expect(ran).toBe(0);
    const failed = await rec.run({ callId: "c3", tool: "read_inbox", args: {} }, async () => {
      throw new FailedResult({ isError: true }, "mailbox offline");
    });
    expect(failed).toEqual({ isError: true });
    expect(
      ins.records(session.sessionId).map((r) => r.kind === "call" && [r.actionId, r.error ?? r.result]),
    ).toEqual([
      ["c1", ["hi"]],
      ["c2", "sent"],
      ["c3", "mailbox offline"],
    ]);
    expect(ins.verdict(session.sessionId, "AAP-4").violated).toBe(false);
    await session.close();
  });

  it("begin/finish: a repeated start hook gets the first gate, a repeated end hook is a no-op", async () => {
    const session = await ins.open("hooks");
    const rec = new HarnessRecorder(session);
    const call = { callId: "run1:t1", tool: "send_email", args: { to: ATTACKER } };
    const [a, b] = await Promise.all([rec.begin(call), rec.begin(call)]);
    expect(a).toEqual({ allowed: true, replayed: false });
    expect(b).toBe(a);
    await rec.finish(call.callId, { result: "sent" });
    await rec.finish(call.callId, { result: "sent twice" });
    // After it finished, the same id replays: allowed, nothing new recorded.
    expect(await rec.begin(call)).toEqual({ allowed: true, replayed: true });
    const failing = { callId: "run1:t2", tool: "read_inbox", args: {} };
    await rec.begin(failing);
    await rec.finish(failing.callId, { error: new Error("boom") });
    await rec.begin({ callId: "run1:t3", tool: "read_inbox", args: {} });
    expect(rec.open).toBe(1);
    expect(await rec.finishPending()).toBe(1);
    const records = ins.records(session.sessionId);
    expect(records.map((r) => r.kind === "call" && (r.error ?? r.result))).toEqual([
      "sent",
      "boom",
      "the harness reported no outcome for this call",
    ]);
    expect(new OutcomeUnknownError("x").code).toBe("OUTCOME_UNKNOWN");
    expect(ins.verdict(session.sessionId, "AAP-4")).toMatchObject({ violated: true, seq: 0 });
    await session.close();
  });

  it("guard mode: begin refuses a violating call with a reason the model can read, and stores the blocked record", async () => {
    const session = await ins.open("guard", { guard: true });
    const rec = new HarnessRecorder(session);
    const gate = await rec.begin({ callId: "g1", tool: "send_email", args: { to: ATTACKER } });
    expect(gate.allowed).toBe(false);
    if (gate.allowed) return;
    expect(gate.error).toBeInstanceOf(GuardRefusal);
    expect(gate.reason).toMatch(/zkVAI guard refused send_email: it would break promise 0 \(AAP-4\)/);
    expect(rec.open).toBe(0);
    expect(ins.records(session.sessionId)).toMatchObject([{ kind: "call", blocked: true, actionId: "g1" }]);
    await session.close();
  });

  it("approvals: authorization records over the call's args, the integrator names the authority", async () => {
    const session = await ins.open("approvals");
    const rec = new HarnessRecorder(session);
    const del = { callId: "d1", tool: "delete_file", args: { path: "/tmp/x" } };
    const first = rec.approve(del, { decision: "allow", authority: "human" });
    expect(rec.approve(del, { decision: "allow", authority: "human" })).toBe(first);
    await rec.run(del, async () => "deleted");
    const denied = { callId: "d2", tool: "delete_file", args: { path: "/etc" } };
    rec.approve(denied, { decision: "deny", authority: "policy", policyId: "no-etc" });
    expect(() => rec.approve(denied, { decision: "allow" } as never)).toThrow(HarnessInputError);
    expect(() => rec.approve(denied, { decision: "allow", authority: "someone" as Authority })).toThrow(
      /never assumes who decided/,
    );
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    await rec.run({ callId: "d3", tool: "delete_file", args: { path: "/" } }, async () => "deleted");
    expect(ins.verdict(session.sessionId, "AAP-1")).toMatchObject({ violated: true, seq: 3 });
    await session.close();
  });

  it("cancel: a begun call the harness did not run is a blocked record, and its actionId stays free", async () => {
    const session = await ins.open("cancel");
    const rec = new HarnessRecorder(session);
    const call = { callId: "x1", tool: "send_email", args: { to: ATTACKER } };
    await rec.begin(call);
    await rec.cancel("x1", "not run: the user denied it");
    expect(ins.records(session.sessionId)).toMatchObject([
      { kind: "call", actionId: "x1", blocked: true, error: "not run: the user denied it" },
    ]);
    expect(ins.verdict(session.sessionId, "AAP-4").violated).toBe(false);
    // Not consumed: the same id may still run (and is then recorded as the call it is).
    expect(await rec.begin(call)).toEqual({ allowed: true, replayed: false });
    await rec.finish("x1", { result: "sent" });
    expect(ins.verdict(session.sessionId, "AAP-4")).toMatchObject({ violated: true, seq: 1 });
    await session.close();
  });

  it("guard mode: a gate not admitted in time, or given up by the harness, is refused and stored as blocked", async () => {
    const session = await ins.open("gate-timeout", { guard: true });
    const rec = new HarnessRecorder(session, { gateTimeoutMs: 50 });
    const first = { callId: "a", tool: "read_inbox", args: {} };
    expect(await rec.begin(first)).toEqual({ allowed: true, replayed: false });
    // The first call holds guard mode's turn; the second waits, times out, and can no longer start.
    const late = await rec.begin({ callId: "b", tool: "send_email", args: { to: ALLOWED } });
    expect(late).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/not admitted within 50 ms/),
    });
    const controller = new AbortController();
    const given = rec.begin({ callId: "c", tool: "read_inbox", args: {} }, { signal: controller.signal });
    controller.abort();
    expect(await given).toMatchObject({ allowed: false, reason: expect.stringMatching(/stopped waiting/) });
    await rec.finish("a", { result: "inbox" });
    await session.flush();
    // Each refused call, when its turn came, was stored as a blocked record: neither reads as executed.
    await vi.waitFor(() => expect(ins.records(session.sessionId)).toHaveLength(3));
    expect(ins.records(session.sessionId)).toMatchObject([
      { actionId: "a", result: "inbox" },
      { actionId: "b", blocked: true },
      { actionId: "c", blocked: true },
    ]);
    expect(rec.open).toBe(0);
    await session.close();
  });

  it("finishPending: a started call's outcome is unknown; one never admitted is blocked; close() returns", async () => {
    const session = await ins.open("pending", { guard: true });
    const rec = new HarnessRecorder(session);
    await rec.begin({ callId: "p1", tool: "read_inbox", args: {} });
    const waiting = rec.begin({ callId: "p2", tool: "send_email", args: { to: ALLOWED } });
    expect(await rec.finishPending()).toBe(2);
    expect((await waiting).allowed).toBe(false);
    expect(ins.records(session.sessionId)).toMatchObject([
      { actionId: "p1", error: "the harness reported no outcome for this call" },
      { actionId: "p2", blocked: true },
    ]);
    expect(ins.records(session.sessionId)[0]).not.toHaveProperty("blocked");
    await session.close();
  });

  it("guard mode refuses a recorded call made from inside another's tool instead of deadlocking", async () => {
    const session = await ins.open("nested", { guard: true });
    const rec = new HarnessRecorder(session);
    const outer = rec.run({ callId: "outer", tool: "read_inbox", args: {} }, async () =>
      rec.run({ callId: "inner", tool: "send_email", args: { to: ALLOWED } }, async () => "sent"),
    );
    await expect(outer).rejects.toThrow(/nested call cannot be guarded/);
    expect(ins.records(session.sessionId)).toMatchObject([
      { actionId: "outer", error: expect.stringMatching(/nested/) },
    ]);
    await session.close();
  });

  it("approve: the same decision over other args is a new record", async () => {
    const session = await ins.open("approve-args");
    const rec = new HarnessRecorder(session);
    const a = rec.approve(
      { callId: "d", tool: "delete_file", args: { path: "/tmp/a" } },
      { decision: "allow", authority: "human" },
    );
    const b = rec.approve(
      { callId: "d", tool: "delete_file", args: { path: "/tmp/b" } },
      { decision: "allow", authority: "human" },
    );
    expect(b.seq).toBe(a.seq + 1);
    await rec.run({ callId: "d", tool: "delete_file", args: { path: "/tmp/b" } }, async () => "deleted");
    expect(ins.verdict(session.sessionId, "AAP-1").violated).toBe(false);
    expect(() => new HarnessRecorder(session, { gateTimeoutMs: 0 })).toThrow(HarnessInputError);
    await session.close();
  });

  it("toolArgs: objects, nothing, JSON strings; refuses the rest", () => {
    expect(toolArgs("t", { a: 1 })).toEqual({ a: 1 });
    expect(toolArgs("t", undefined)).toEqual({});
    expect(toolArgs("t", '{"a":1}')).toEqual({ a: 1 });
    expect(() => toolArgs("t", "nope")).toThrow(HarnessInputError);
    expect(() => toolArgs("t", [1])).toThrow(/an array/);
  });
});
