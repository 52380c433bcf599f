// Receipts reach the user (SessionOptions.receipts): every `every` records and at close, the session signs a
// receipt and hands it to the host's `deliver`, which each harness wires to its channel to the user. Each one
// verifies against the escrow (the provider's EIP-712 signature over the session's chain head), the last one
// covers the whole session, and a delivery that fails never fails the tool call.
import { beforeAll, describe, expect, it } from "vitest";
import { verifyReceipt, type SignedReceipt } from "../../sdk/chain/receipts.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import { ReceiptCourier } from "../../sdk/provider/session-receipts.js";
import { SessionOpenError } from "../../sdk/core/errors.js";
import { FAST, openSession, sessionEnv, type SessionEnv } from "./session-fixture.js";

let env: SessionEnv;
beforeAll(async () => {
  env = await sessionEnv();
});

describe("receipts for the user, on a policy", () => {
  it("every k records and at close, each signed over the head of its prefix", async () => {
    const delivered: SignedReceipt[] = [];
    const { session } = await openSession(env, {
      policy: FAST,
      receipts: { every: 2, deliver: (r) => void delivered.push(r) },
    });
    for (let i = 0; i < 5; i++) await session.call("read", { i }, async () => `page ${i}`);
    const closed = await session.close();
    expect(delivered.map((r) => r.n)).toEqual([2, 4, 5]);
    expect(closed.finalN).toBe(5);
    for (const r of delivered) {
      expect(r.root).toBe(session.head(r.n));
      const check = await verifyReceipt(
        { chainId: env.chain.chainId, escrow: env.escrow.address },
        r,
        r.signature,
      );
      expect(check.ok).toBe(true);
    }
    expect(session.latestReceipt).toEqual(delivered[2]);
  });

  it("no second receipt at close when the last record's went out already; none at close when asked not to", async () => {
    const delivered: number[] = [];
    const { session } = await openSession(env, {
      policy: FAST,
      receipts: { every: 2, deliver: (r) => void delivered.push(r.n) },
    });
    for (let i = 0; i < 4; i++) await session.call("read", { i }, async () => "ok");
    await session.close();
    expect(delivered).toEqual([2, 4]);

    const quiet: number[] = [];
    const { session: s2 } = await openSession(env, {
      policy: FAST,
      receipts: { every: 3, atClose: false, deliver: (r) => void quiet.push(r.n) },
    });
    for (let i = 0; i < 4; i++) await s2.call("read", { i }, async () => "ok");
    await s2.close();
    expect(quiet).toEqual([3]);
  });

  it("a delivery that fails is logged, and the tool's result still reaches the agent", async () => {
    const log = memoryLogger();
    const { session } = await openSession(env, {
      policy: FAST,
      log,
      receipts: {
        every: 1,
        deliver: async () => {
          throw new Error("the user's inbox is down");
        },
      },
    });
    await expect(session.call("read", {}, async () => "the result")).resolves.toBe("the result");
    await session.close();
    expect(log.entries.some((e) => e.event === "session.receipt_failed")).toBe(true);
  });

  it("a malformed policy is refused before anything is written", async () => {
    await expect(openSession(env, { receipts: { every: 0, deliver: () => {} } })).rejects.toThrow(
      SessionOpenError,
    );
    await expect(openSession(env, { receipts: { every: 2 } as never })).rejects.toThrow(/deliver/);
  });
});

describe("receipt order", () => {
  it("delivers in the order of n even when a later receipt is signed first (a loaded signer)", async () => {
    const delivered: number[] = [];
    const delays: Record<number, number> = { 2: 60, 4: 0, 5: 20 };
    const courier = new ReceiptCourier(
      { every: 2, atClose: true, deliver: (r) => void delivered.push(r.n) },
      (n) =>
        new Promise<SignedReceipt>((resolve) =>
          setTimeout(() => resolve({ n } as unknown as SignedReceipt), delays[n] ?? 0),
        ),
      memoryLogger(),
      "s",
    );
    for (let count = 1; count <= 5; count++) courier.recorded(count);
    await courier.closing(5);
    expect(delivered).toEqual([2, 4, 5]);
    expect(courier.latest?.n).toBe(5);
  });
});
