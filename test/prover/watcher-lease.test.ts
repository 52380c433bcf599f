// The claim watchers' lease on a Postgres store (issue 40, prover/watcher-lease.ts), on a private cluster and
// without a chain: one holder at a time, a standby that takes over only once the lease expired (its token
// bumped), a former holder fenced off before it proves or settles, a claim recorded settled answered by no
// one else, and a clean release handing over at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PrivatePostgres } from "../../scripts/lib/private-postgres.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import { migrateStore } from "../../sdk/provider/store.js";
import { AnsweredElsewhereError, LeaseLostError, PostgresWatcherLease } from "../../prover/watcher-lease.js";

let cluster: PrivatePostgres;
let databases = 0;
const leases: PostgresWatcherLease[] = [];
const ESCROW = `0x${"ab".repeat(20)}`;

async function pair(ttlMs: number) {
  const url = await cluster.createDatabase(`lease_${++databases}`);
  await migrateStore(url);
  const open = async () => {
    const log = memoryLogger();
    const lease = await PostgresWatcherLease.open({ url, escrow: ESCROW, chainId: 31337, ttlMs, log });
    leases.push(lease);
    return { lease, log };
  };
  return [await open(), await open()] as const;
}

async function until(ok: () => Promise<boolean>, timeoutMs = 20_000): Promise<number> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const l of leases) await l.close();
  await cluster?.stop();
});

describe("the watchers' lease on Postgres", () => {
  it("has one holder; a standby takes over only after expiry, and the former holder is fenced off", async () => {
    const [a, b] = await pair(1000);
    expect(await a.lease.hold()).toBe(true);
    expect(await b.lease.hold()).toBe(false);
    expect(await a.lease.hold()).toBe(true); // a renewal
    const standby = b.log.entries.filter((e) => e.event === "lease.standby");
    expect(standby).toHaveLength(1);
    expect(standby[0]!.fields.message).toMatch(
      new RegExp(`^standby: lease held by host .+ pid ${process.pid} until \\d{4}-`),
    );
    await a.lease.fence(1n, "prove");

    // a stops renewing (as if it hung or died): b takes over once the lease expired, not before.
    const tookMs = await until(() => b.lease.hold());
    expect(tookMs).toBeGreaterThan(500);
    expect(tookMs).toBeLessThan(10_000);
    expect(b.log.entries.find((e) => e.event === "lease.acquired")!.fields).toMatchObject({ token: 2n });
    await expect(a.lease.fence(1n, "settle")).rejects.toThrow(LeaseLostError);
    await expect(a.lease.fence(1n, "prove")).rejects.toThrow(/no longer holds the lease/);
    expect(await a.lease.hold()).toBe(false);

    // b answers claim 1; recorded settled, no one answers it again.
    await b.lease.fence(1n, "settle");
    await b.lease.settled(1n, "0x01");
    await expect(b.lease.fence(1n, "settle")).rejects.toThrow(AnsweredElsewhereError);
    await b.lease.fence(2n, "prove");
  });

  it("a released lease is taken at once; a live holder's renewals keep a standby out", async () => {
    const [a, b] = await pair(60_000);
    expect(await a.lease.hold()).toBe(true);
    expect(await b.lease.hold()).toBe(false);
    await a.lease.release();
    expect(a.log.entries.some((e) => e.event === "lease.released")).toBe(true);
    expect(await b.lease.hold()).toBe(true);
    expect(await a.lease.hold()).toBe(false);
    await expect(a.lease.fence(5n, "prove")).rejects.toThrow(LeaseLostError);
  });

  it("through a database restart: hold() says not held while down (no throw), and holds again after", async () => {
    const [a] = await pair(1000);
    expect(await a.lease.hold()).toBe(true);
    await cluster.down("immediate");
    expect(await a.lease.hold()).toBe(false);
    await expect(a.lease.fence(7n, "settle")).rejects.toThrow(LeaseLostError);
    expect(a.log.entries.some((e) => e.event === "lease.unreachable")).toBe(true);
    await cluster.up();
    await until(() => a.lease.hold());
    await a.lease.fence(7n, "settle");
  });

  it("refuses a lease shorter than 300 ms", async () => {
    await expect(
      PostgresWatcherLease.open({
        url: cluster.url,
        escrow: ESCROW,
        chainId: 1,
        ttlMs: 10,
        log: memoryLogger(),
      }),
    ).rejects.toThrow(RangeError);
  });
});
