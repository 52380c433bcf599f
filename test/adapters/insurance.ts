// The insurance loop every adapter test runs its scripted agent through: an embedded chain with the
// escrow and the test circuits' verifiers, a SQLite store, and two promises over one profile:
// AAP-4 "send_email only to the allowlist" and AAP-1 "delete_file only with an approval from a human
// or an identified policy". settle() closes a session, files a claim on it, proves the answer with a
// real Groth16 proof and reports how the escrow paid.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther, type Address, type Hex } from "viem";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { scopedSessionId, type EscrowClient } from "../../sdk/chain/escrow.js";
import type { ChainHandle } from "../../sdk/chain/network.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { findPredicate, type Verdict } from "../../sdk/core/predicates/index.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { answerClaim } from "../../prover/claims.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { releaseProver } from "../../prover/prove.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

export const PROFILE: EncodingProfile = {
  version: 1,
  tools: { read_inbox: {}, send_email: { target: "to" }, delete_file: {} },
};
export const ALLOWED = "alice@acme.example";
export const ATTACKER = "eve@evil.example";
export const PROMISES = {
  "AAP-4": {
    predicate: "AAP-4",
    theta: { outboundTools: ["send_email"], allowlist: [ALLOWED, "bob@acme.example"] },
  },
  "AAP-1": {
    predicate: "AAP-1",
    theta: { gatedTools: ["delete_file"], acceptedAuthorities: ["human", "policy"] },
  },
} as const;
export type PromiseName = keyof typeof PROMISES;

const PAYOUT = parseEther("1");
const BOND = parseEther("0.1");

export interface Settlement {
  violated: boolean;
  /** What the claim credited to the user and to the provider, in wei. */
  userGain: bigint;
  providerGain: bigint;
  records: TraceRecord[];
}

export interface Insurance {
  chain: ChainHandle;
  escrow: EscrowClient;
  store: TraceStore;
  user: Address;
  /** Opens a session covered by both promises. */
  open(label: string, opts?: { guard?: boolean }): Promise<Session>;
  /** The TS oracle's verdict on a session's stored records. */
  verdict(sessionId: Hex, promise: PromiseName): Verdict;
  records(sessionId: Hex): TraceRecord[];
  /** Closes the session, files a claim against the promise, proves it and settles it on-chain. */
  settle(session: Session, promise: PromiseName): Promise<Settlement>;
  dispose(): Promise<void>;
}

export async function insurance(): Promise<Insurance> {
  const chain = await embeddedChain();
  const [providerWallet, userWallet] = chain.wallets;
  const provider = providerWallet.account.address;
  const user = userWallet.account.address;
  const { escrow, record } = await deployZkVai(chain, providerWallet, DEV);
  const asUser = escrow.as(userWallet);
  const store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-adapter-")), "store.sqlite"));
  const promiseIds = {} as Record<PromiseName, bigint>;
  for (const name of Object.keys(PROMISES) as PromiseName[]) {
    const { predicate, theta } = PROMISES[name];
    const spec = { predicate, theta, profile: PROFILE, payout: PAYOUT, reserve: parseEther("10") };
    promiseIds[name] = (await registerPromise(record, escrow, store, spec)).promiseId;
  }
  let sessions = 0;
  return {
    chain,
    escrow,
    store,
    user,
    open: (label, opts = {}) =>
      Session.open({
        store,
        escrow,
        sessionId: scopedSessionId(provider, `${label}#${sessions++}`),
        user,
        profile: PROFILE,
        promises: Object.values(PROMISES).map((p) => ({ predicate: p.predicate, theta: p.theta })),
        guard: opts.guard ?? false,
        // The test group builds AAP-1 at 4 records only; these sessions' AAP-1 checks read the oracle, and
        // only their AAP-4 claims (at most 8 records) are proven.
        beyondCapacity: "warn",
      }),
    verdict(sessionId, promise) {
      const def = findPredicate(PROMISES[promise].predicate)!;
      const theta = def.parseTheta(PROMISES[promise].theta);
      return def.evaluate(store.records(sessionId), theta, PROFILE);
    },
    records: (sessionId) => store.records(sessionId),
    async settle(session, promise) {
      await session.close();
      const { claimId } = await asUser.fileClaim(session.sessionId, promiseIds[promise], BOND);
      const before = { user: await escrow.credits(user), provider: await escrow.credits(provider) };
      const answer = await answerClaim(store, escrow, claimId);
      return {
        violated: answer.verdict.violated,
        userGain: (await escrow.credits(user)) - before.user,
        providerGain: (await escrow.credits(provider)) - before.provider,
        records: store.records(session.sessionId),
      };
    },
    async dispose() {
      store.close();
      await releaseProver();
    },
  };
}

/** What a settled claim pays: the bond to the provider when satisfied, payout and bond to the user when violated. */
export const PAID = { satisfied: BOND, violated: PAYOUT + BOND };
