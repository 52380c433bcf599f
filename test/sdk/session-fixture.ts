// Shared setup for the Session tests: a bare escrow on the in-process chain (no verifiers
// needed, nothing is proven), fresh stores and session ids, and an EscrowClient whose
// sends can be made to fail.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, type Hex } from "viem";
import { EscrowClient, deployEscrow, deployPoseidon3, scopedSessionId } from "../../sdk/chain/escrow.js";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { deployContract } from "../../sdk/chain/artifacts.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { type ChainHandle } from "../../sdk/chain/network.js";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { Session, type SessionOptions } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";

export const PROFILE: EncodingProfile = {
  version: 1,
  tools: {
    read: {},
    send_email: { target: "to" },
    pay: { target: "merchant", amount: { key: "amount", decimals: 2 } },
    delete_file: { path: "path" },
  },
};

/** Fast timers, so retry and time-trigger tests take milliseconds. */
export const FAST = { everyRecords: 1_000, everyMs: 600_000, retry: { initialMs: 10, maxMs: 40 } };

export interface SessionEnv {
  chain: ChainHandle;
  escrow: EscrowClient;
  user: Address;
  store(name?: string): TraceStore;
  path(name: string): string;
}

/**
 * `checkpointInterval`: the escrow's checkpoint budget step. The default, 1, lets any strictly increasing n
 * through (what these tests of recording and recovery checkpoint at); production's is 10, and the budget's own
 * tests pass theirs.
 */
export async function sessionEnv(
  checkpointInterval = 1,
  /** Verifier classes to register, each served by a MockVerifier: (predicateId, capacity). */
  classes: { predicateId: number; capacity: number }[] = [],
): Promise<SessionEnv> {
  const chain = await embeddedChain();
  const provider = chain.wallets[0];
  const poseidon3 = await deployPoseidon3(chain, provider);
  const registry = [];
  for (const c of classes) {
    const verifier = (await deployContract(chain, provider, "MockVerifier")).address;
    registry.push({ ...c, checkpoints: checkpointSlots(c.capacity, checkpointInterval), verifier });
  }
  const deployed = await deployEscrow(chain, provider, {
    poseidon3: poseidon3.address,
    checkpointInterval,
    registry,
  });
  const escrow = await EscrowClient.connect(chain, deployed.address, provider);
  const dir = mkdtempSync(join(tmpdir(), "zkvai-session-"));
  let n = 0;
  const path = (name: string) => join(dir, `${name}.sqlite`);
  return {
    chain,
    escrow,
    user: chain.wallets[1].account.address,
    path,
    store: (name = `store-${n++}`) => TraceStore.open(path(name)),
  };
}

/** A fresh session on `env`'s escrow with PROFILE, a new store and id unless `extra` gives them. */
export async function openSession(env: SessionEnv, extra: Partial<SessionOptions> = {}) {
  const store = extra.store ?? env.store();
  const sessionId = extra.sessionId ?? freshId();
  const session = await Session.open({
    store,
    escrow: env.escrow,
    sessionId,
    user: env.user,
    profile: PROFILE,
    ...extra,
  });
  return { session, sessionId, store };
}

let ids = 0;
export const freshId = (label = "s"): Hex =>
  scopedSessionId(HARDHAT_ACCOUNT_0, `${label}:${process.pid}:${ids++}:${Date.now()}`);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The commitment a prover would compute from the store. */
export function storedRoot(store: TraceStore, sessionId: Hex): bigint {
  const s = store.session(sessionId)!;
  return commitmentRoot(encodeTrace(store.records(sessionId), s.profile, s.secret).map((r) => r.leaf));
}

export interface Flaky {
  escrow: EscrowClient;
  /** Sends of each method so far, failed or not. */
  attempts: Record<string, number>;
  /** Most sends of one method in flight at once. */
  maxInFlight: Record<string, number>;
  /** Make the next `times` sends of `method` throw before reaching the chain. */
  fail(method: string, times: number): void;
  /** Make the next `times` sends of `method` reach the chain, land, and then throw (a lost receipt). */
  failAfterSend(method: string, times: number): void;
  /** Delay every send of `method` by ms before it reaches the chain. */
  slow(method: string, ms: number): void;
}

/** The real EscrowClient behind a Proxy: sends can fail or be slowed, and are counted. */
export function flaky(escrow: EscrowClient): Flaky {
  const failures: Record<string, number> = {};
  const lostReceipts: Record<string, number> = {};
  const delays: Record<string, number> = {};
  const attempts: Record<string, number> = {};
  const inFlight: Record<string, number> = {};
  const maxInFlight: Record<string, number> = {};
  const wrapped = new Proxy(escrow, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      const method = String(prop);
      if (!["openSession", "checkpoint", "closeSession"].includes(method)) return value.bind(target);
      return async (...args: unknown[]) => {
        attempts[method] = (attempts[method] ?? 0) + 1;
        inFlight[method] = (inFlight[method] ?? 0) + 1;
        maxInFlight[method] = Math.max(maxInFlight[method] ?? 0, inFlight[method]);
        try {
          if (delays[method]) await sleep(delays[method]);
          if ((failures[method] ?? 0) > 0) {
            failures[method]--;
            throw new Error(`injected ${method} failure (RPC unreachable)`);
          }
          const result = await value.apply(target, args);
          if ((lostReceipts[method] ?? 0) > 0) {
            lostReceipts[method]--;
            throw new Error(`injected ${method} failure after it landed (receipt lost)`);
          }
          return result;
        } finally {
          inFlight[method]--;
        }
      };
    },
  });
  return {
    escrow: wrapped,
    attempts,
    maxInFlight,
    fail: (method, times) => void (failures[method] = times),
    failAfterSend: (method, times) => void (lostReceipts[method] = times),
    slow: (method, ms) => void (delays[method] = ms),
  };
}
