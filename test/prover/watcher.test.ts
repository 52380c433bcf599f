// The claim watcher on the in-process chain with real proofs (four in all, on aap4_n8): it answers claims on
// its own, survives a restart and an RPC outage without missing or double-settling a claim, sends nothing
// for a claim resolved elsewhere or one it cannot prove, and refuses to run twice on one state file.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createPublicClient,
  createWalletClient,
  custom,
  HttpRequestError,
  parseEther,
  type EIP1193RequestFn,
  type Hex,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerClaim } from "../../prover/claims.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { releaseProver } from "../../prover/prove.js";
import { ClaimWatcher, type WatcherOptions } from "../../prover/watcher.js";
import { WatcherLockedError } from "../../prover/watcher-state.js";
import { ClaimStatus, EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import { embeddedChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { type ChainHandle } from "../../sdk/chain/network.js";
import { memoryLogger, type Logger } from "../../sdk/provider/log.js";
import { profileHash, type EncodingProfile } from "../../sdk/core/profile.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

const PROFILE: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
const THETA = { outboundTools: ["send_email"], allowlist: ["alice@a.example", "bob@a.example"] };
const PAYOUT = parseEther("1");
const BOND = parseEther("0.25");
const THREE_DAYS = 3 * 24 * 3600;
// Short timers: a test must not wait out production backoff.
const FAST = { pollMs: 20, retry: { initialMs: 5, maxMs: 20 } };

const dir = mkdtempSync(join(tmpdir(), "zkvai-watcher-"));
let chain: DevChainHandle;
let escrow: EscrowClient;
let asUser: EscrowClient;
let seedStore: TraceStore;
let promiseId: bigint;
let provider: Hex;
let user: Hex;
const stores: TraceStore[] = [];

/** Each test gets its own store, so a watcher only takes on that test's claims. */
function freshStore(name: string): TraceStore {
  const store = TraceStore.open(join(dir, `${name}.store.sqlite`));
  store.putPromise(seedStore.promise(promiseId)!);
  stores.push(store);
  return store;
}

type Step = { tool: string; to?: string } | { checkpoint: true };
async function record(store: TraceStore, label: string, steps: Step[]) {
  const rec = await Session.open({
    store,
    escrow,
    sessionId: scopedSessionId(HARDHAT_ACCOUNT_0, label),
    user,
    profile: PROFILE,
    policy: { everyRecords: Infinity, everyMs: Infinity },
  });
  for (const s of steps) {
    if ("checkpoint" in s) await rec.checkpointNow();
    else rec.append({ kind: "call", tool: s.tool, args: s.to ? { to: s.to } : {}, result: "ok" });
  }
  return rec;
}
const VIOLATING: Step[] = [
  { tool: "read" },
  { checkpoint: true },
  { tool: "send_email", to: "eve@evil.example" },
];
const SATISFIED: Step[] = [
  { tool: "send_email", to: "alice@a.example" },
  { checkpoint: true },
  { tool: "read" },
];

function open(store: TraceStore, statePath: string, log: Logger, extra: Partial<WatcherOptions> = {}) {
  return ClaimWatcher.open({ store, escrow, statePath, log, ...FAST, ...extra });
}

async function settledEvents(claimId: bigint) {
  return chain.publicClient.getContractEvents({
    address: escrow.address,
    abi: escrow.abi,
    eventName: "ClaimSettled",
    args: { claimId },
    fromBlock: escrow.fromBlock,
  });
}
const providerNonce = () => chain.publicClient.getTransactionCount({ address: provider });
const events = (log: ReturnType<typeof memoryLogger>, event: string) =>
  log.entries.filter((e) => e.event === event);

/**
 * The same node behind a transport that fails on demand, as an unreachable node would (connection refused,
 * then HTTP errors): nothing reaches the chain while it fails.
 */
function flakyEscrow() {
  let failing = 0;
  const forward = chain.publicClient.request as unknown as EIP1193RequestFn;
  const transport = custom(
    {
      request: (async (args: Parameters<EIP1193RequestFn>[0]) => {
        if (failing > 0) {
          failing--;
          throw failing % 2
            ? Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8545"), { code: "ECONNREFUSED" })
            : new HttpRequestError({ url: "http://127.0.0.1:8545", status: 502, details: "Bad Gateway" });
        }
        return forward(args);
      }) as EIP1193RequestFn,
    },
    { retryCount: 0 },
  );
  const base = chain.publicClient.chain;
  const flaky: ChainHandle = {
    ...chain,
    publicClient: createPublicClient({ chain: base, transport, pollingInterval: 10 }),
    wallets: [createWalletClient({ chain: base, transport, account: provider, pollingInterval: 10 })],
  };
  return {
    connect: () =>
      EscrowClient.connect(flaky, escrow.address, flaky.wallets[0], { fromBlock: escrow.fromBlock }),
    failNext: (n: number) => void (failing = n),
  };
}

beforeAll(async () => {
  chain = await embeddedChain();
  const deployment = await deployZkVai(chain, chain.wallets[0], DEV);
  escrow = deployment.escrow;
  provider = chain.wallets[0].account.address;
  user = chain.wallets[1].account.address;
  asUser = escrow.as(chain.wallets[1]);
  seedStore = TraceStore.open(join(dir, "seed.store.sqlite"));
  stores.push(seedStore);
  const spec = {
    predicate: "AAP-4",
    theta: THETA,
    profile: PROFILE,
    payout: PAYOUT,
    reserve: parseEther("10"),
  };
  promiseId = (await registerPromise(deployment.record, escrow, seedStore, spec)).promiseId;
});

afterAll(async () => {
  for (const s of stores) s.close();
  await releaseProver();
});

describe("ClaimWatcher", () => {
  it("settles a claim on a violating session by itself, crediting the user, and skips others' sessions", async () => {
    const store = freshStore("violating");
    const rec = await record(store, "w-violating", VIOLATING);
    await rec.close();
    const { claimId } = await asUser.fileClaim(rec.sessionId, promiseId, BOND);
    // A session this provider never recorded (opened on-chain only): not the watcher's business.
    const foreign = scopedSessionId(HARDHAT_ACCOUNT_0, "w-foreign");
    await escrow.openSession(foreign, user, profileHash(PROFILE));
    const other = await asUser.fileClaim(foreign, promiseId, BOND);

    const log = memoryLogger();
    const watcher = open(store, join(dir, "violating.state.sqlite"), log);
    const before = await escrow.credits(user);
    const head = await chain.publicClient.getBlockNumber();
    const report = await watcher.tick();
    const state = watcher.claims();
    watcher.close();

    expect(report).toMatchObject({ newClaims: [claimId], settled: [claimId], refused: [], deferred: [] });
    expect(state).toMatchObject([{ claimId, status: "settled", verdict: "violated", attempts: 1 }]);
    expect(report.scannedTo).toBe(head);
    expect((await escrow.credits(user)) - before).toBe(PAYOUT + BOND);
    const settled = events(log, "claim.settled");
    expect(settled).toHaveLength(1);
    expect(settled[0].fields).toMatchObject({ claimId, verdict: "violated", seq: 1, circuit: "aap4_n8" });
    expect(settled[0].fields.gas).toBeGreaterThan(0n);
    expect(settled[0].fields.proveSeconds).toBeGreaterThan(0);
    expect(settled[0].fields.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(events(log, "claim.skipped").map((e) => e.fields.claimId)).toEqual([other.claimId]);
    for (const e of ["watcher.started", "scan", "claim.new", "claim.proving", "watcher.stopped"])
      expect(events(log, e).length, e).toBeGreaterThan(0);
  });

  it("restarts through a deferral and an RPC outage, settles exactly once, and never re-settles", async () => {
    const store = freshStore("restart");
    const statePath = join(dir, "restart.state.sqlite");
    const rec = await record(store, "w-restart", SATISFIED);
    // Claimed before the provider closed the session: nothing to prove yet.
    const { claimId } = await asUser.fileClaim(rec.sessionId, promiseId, BOND);

    const log1 = memoryLogger();
    const first = open(store, statePath, log1);
    const r1 = await first.tick();
    expect(r1).toMatchObject({ newClaims: [claimId], deferred: [claimId], settled: [] });
    expect(first.claims()).toMatchObject([{ claimId, status: "pending", attempts: 1 }]);
    expect(first.claims()[0].lastError).toMatch(/no final commitment/);
    expect(events(log1, "claim.deferred")).toHaveLength(1);
    first.close();
    await rec.close();

    // The restarted watcher's node is down: it retries, gives up for this tick, and answers nothing.
    const node = flakyEscrow();
    const log2 = memoryLogger();
    let failAfterProof = false;
    const second = open(
      store,
      statePath,
      {
        log(level, event, fields) {
          log2.log(level, event, fields);
          if (event === "claim.proving" && failAfterProof) node.failNext(2);
        },
      },
      { escrow: await node.connect(), retry: { initialMs: 5, maxMs: 20, maxAttempts: 3 } },
    );
    const nonce = await providerNonce();
    node.failNext(1_000);
    const r2 = await second.tick();
    expect(r2).toMatchObject({ newClaims: [], settled: [], refused: [], deferred: [], retrying: [claimId] });
    expect(second.claims()).toMatchObject([{ claimId, status: "pending", attempts: 2 }]);
    expect(second.claims()[0].lastError).toMatch(/RPC node failed 3 times/);
    expect(events(log2, "rpc.retry").length).toBeGreaterThanOrEqual(4);
    expect(events(log2, "rpc.retry")[0].fields).toMatchObject({ attempt: 1, delayMs: 5 });
    expect(events(log2, "claim.refused")).toEqual([]);
    expect(await providerNonce()).toBe(nonce);
    expect((await escrow.claim(claimId)).status).toBe(ClaimStatus.Open);

    // The node is back, but fails twice more right after the proof: retried, then settled.
    node.failNext(0);
    failAfterProof = true;
    await new Promise((r) => setTimeout(r, 30));
    const before = await escrow.credits(provider);
    const r3 = await second.tick();
    expect(r3).toMatchObject({ settled: [claimId], retrying: [] });
    expect(events(log2, "rpc.retry").some((e) => e.fields.operation === "publicInputs")).toBe(true);
    expect((await escrow.credits(provider)) - before).toBe(BOND);
    expect(second.claims()).toMatchObject([{ claimId, status: "settled", verdict: "satisfied" }]);
    second.close();

    // Same state: nothing left to do. Fresh state: the claim is found again, seen settled, and left alone.
    const again = open(store, statePath, memoryLogger());
    const r4 = await again.tick();
    again.close();
    expect(r4).toMatchObject({ newClaims: [], settled: [], resolvedElsewhere: [] });
    const log5 = memoryLogger();
    const fresh = open(store, join(dir, "restart-fresh.state.sqlite"), log5);
    const r5 = await fresh.tick();
    expect(fresh.claims()).toMatchObject([{ claimId, status: "resolved-elsewhere", resolution: "Settled" }]);
    fresh.close();
    expect(r5).toMatchObject({ newClaims: [claimId], settled: [], resolvedElsewhere: [claimId] });
    expect(events(log5, "claim.proving")).toEqual([]);
    expect(await settledEvents(claimId)).toHaveLength(1);
  });

  it("sends nothing for a claim someone else settled after the watcher took it on", async () => {
    const store = freshStore("elsewhere");
    const rec = await record(store, "w-elsewhere", SATISFIED);
    const { claimId } = await asUser.fileClaim(rec.sessionId, promiseId, BOND);
    const log = memoryLogger();
    const watcher = open(store, join(dir, "elsewhere.state.sqlite"), log);
    expect((await watcher.tick()).deferred).toEqual([claimId]);
    await rec.close();
    await answerClaim(store, escrow.as(chain.wallets[5]), claimId);

    const nonce = await providerNonce();
    await new Promise((r) => setTimeout(r, 30));
    const report = await watcher.tick();
    expect(report).toMatchObject({ settled: [], refused: [], resolvedElsewhere: [claimId] });
    expect(watcher.claims()).toMatchObject([
      { claimId, status: "resolved-elsewhere", resolution: "Settled" },
    ]);
    watcher.close();
    expect(await providerNonce()).toBe(nonce);
    expect(events(log, "claim.proving")).toEqual([]);
    expect(await settledEvents(claimId)).toHaveLength(1);
  });

  it("runs once per state file, in this process or another, and a killed holder frees it", async () => {
    const store = freshStore("lock");
    const statePath = join(dir, "lock.state.sqlite");
    const first = open(store, statePath, memoryLogger());
    expect(() => open(store, statePath, memoryLogger())).toThrow(WatcherLockedError);
    expect(() => open(store, statePath, memoryLogger())).toThrow(
      new RegExp(`another claim watcher is running on .*pid ${process.pid}`),
    );
    first.close();

    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `const { WatcherState } = await import("./prover/watcher-state.ts");
         WatcherState.open(${JSON.stringify(statePath)}, { escrow: "${escrow.address}", chainId: 1, startBlock: 0n });
         console.log("held"); setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("held") && resolve());
      child.on("exit", (code) => reject(new Error(`child exited with ${code}`)));
    });
    expect(() => open(store, statePath, memoryLogger())).toThrow(new RegExp(`pid ${child.pid}`));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    open(store, statePath, memoryLogger()).close();
  });

  it("scans in chunks of 2,000 blocks up to head − confirmations, in the trace store's own file", async () => {
    const store = freshStore("chunks");
    await chain.testClient.mine({ blocks: 4500 });
    const head = await chain.publicClient.getBlockNumber();
    const log = memoryLogger();
    const watcher = open(store, join(dir, "chunks.store.sqlite"), log, { confirmations: 3 });
    const report = await watcher.tick();
    watcher.close();
    expect(store.promise(promiseId)).toBeDefined(); // the store's own tables are untouched
    expect(report.scannedTo).toBe(head - 3n);
    const ranges = events(log, "scan").map((e) => [e.fields.from as bigint, e.fields.to as bigint]);
    expect(ranges.length).toBeGreaterThanOrEqual(3);
    for (const [i, [from, to]] of ranges.entries()) {
      expect(to - from + 1n).toBeLessThanOrEqual(2000n);
      if (i > 0) expect(from).toBe(ranges[i - 1][1] + 1n);
    }
    expect(ranges[0][0]).toBe(escrow.fromBlock);
    expect(ranges.at(-1)![1]).toBe(head - 3n);
  });

  it("run() polls until aborted, then returns promptly", async () => {
    const log = memoryLogger();
    const watcher = open(freshStore("run"), join(dir, "run.state.sqlite"), log, { pollMs: 10 });
    const stop = new AbortController();
    const running = watcher.run(stop.signal);
    await expect(watcher.run(stop.signal)).rejects.toThrow(/already running/);
    // Each new block gives the loop something to scan.
    while (events(log, "scan").length < 3) {
      await chain.testClient.mine({ blocks: 1 });
      await new Promise((r) => setTimeout(r, 5));
    }
    const stopped = performance.now();
    stop.abort();
    await running;
    expect(performance.now() - stopped).toBeLessThan(1000);
    watcher.close();
    expect(events(log, "watcher.stopped")).toHaveLength(1);
    expect(events(log, "tick.failed")).toEqual([]);
  });

  it("refuses a claim its store cannot reproduce, sends nothing, and the claim defaults to the user", async () => {
    const store = freshStore("mismatch");
    const rec = await record(store, "w-mismatch", SATISFIED);
    // The chain's final commitment is not the stored records' root.
    await escrow.closeSession(rec.sessionId, rec.count, 12345n);
    const mismatch = (await asUser.fileClaim(rec.sessionId, promiseId, BOND)).claimId;
    // A good claim, defaulted by the user while the watcher proves it: the re-read before settle sees it.
    const good = await record(store, "w-defaulted", SATISFIED);
    await good.close();
    const defaulted = (await asUser.fileClaim(good.sessionId, promiseId, BOND)).claimId;

    const log = memoryLogger();
    let proving = false;
    let settleCalls = 0;
    const watched = new Proxy(escrow, {
      get(target, prop) {
        if (prop === "settle") settleCalls++;
        if (prop === "claim")
          return async (id: bigint) => {
            if (proving && id === defaulted) {
              proving = false;
              await chain.testClient.increaseTime({ seconds: THREE_DAYS + 1 });
              await chain.testClient.mine({ blocks: 1 });
              await asUser.claimDefault(defaulted);
            }
            return target.claim(id);
          };
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const watcher = ClaimWatcher.open({
      store,
      escrow: watched,
      statePath: join(dir, "mismatch.state.sqlite"),
      ...FAST,
      log: {
        log(level, event, fields) {
          log.log(level, event, fields);
          if (event === "claim.proving" && fields?.claimId === defaulted) proving = true;
        },
      },
    });
    const nonce = await providerNonce();
    const report = await watcher.tick();
    const state = watcher.claims();
    watcher.close();

    expect(report).toMatchObject({ refused: [mismatch], resolvedElsewhere: [defaulted], settled: [] });
    expect(state.find((c) => c.claimId === mismatch)).toMatchObject({ status: "refused" });
    expect(state.find((c) => c.claimId === defaulted)).toMatchObject({ resolution: "Defaulted" });
    const refusals = events(log, "claim.refused");
    expect(refusals).toHaveLength(1);
    expect(refusals[0].level).toBe("error");
    expect(refusals[0].fields).toMatchObject({ claimId: mismatch });
    expect(refusals[0].fields.reason).toMatch(/final root .* on-chain but the stored records give/);
    expect(await providerNonce()).toBe(nonce);
    expect(settleCalls).toBe(0); // not even tried: the status read before sending saw the default
    expect(await settledEvents(mismatch)).toHaveLength(0);
    expect(await settledEvents(defaulted)).toHaveLength(0);

    const before = await escrow.credits(user);
    await asUser.claimDefault(mismatch);
    expect((await escrow.credits(user)) - before).toBe(PAYOUT + BOND);
  });
});
