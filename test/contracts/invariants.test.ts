// Random sequences of every escrow operation (fast-check), checking after each step that
//  - the escrow's balance equals free reserves + earmarks + open bonds + credits (P6: nothing created, nothing
//    lost), and each promise's earmarks are exactly its covered pairs not yet resolved or released;
//  - every ether paid in is either still held or was withdrawn (conservation, from the events);
//  - no (session, promise) pair is paid twice, nor resolved twice, and a payout is exactly p + b;
//  - a covered session's claim is always paid: its user's filing within the window never fails, a proof of
//    violation always settles it (simulated for every open claim) and a default always pays, whatever the
//    provider did before: sock-puppet sessions naming its own address as user, self-claims front-running the
//    honest one, defaults timed against it, retiring, withdrawing;
//  - a spare receipt never lands after close on a claimed session once RECEIPT_WINDOW has passed;
//  - a receipt is folded only when the session's user posts it with its provider's signature, as the kind it
//    asked for (spare or not), and one that reverts spends nothing (the spare stays as it was);
//  - at the end, every session's acc is the fold of its Checkpointed and ReceiptPosted events, with at most
//    one spare receipt, and a closed session's entries fit checkpointSlots(finalN);
//  - every revert is one of the escrow's custom errors: never a panic (over/underflow) or a bare revert.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseEventLogs, type Abi, type Hex, type TransactionReceipt } from "viem";
import { EscrowRevertError, type CoverOption, type EscrowClient } from "../../sdk/chain/escrow.js";
import { type Wallet } from "../../sdk/chain/network.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";
import { accumulate } from "../../sdk/core/hash.js";
import { escrowFixture, ledger, proofsValid, sid, signed, type Fixture } from "./fixture.js";
// A fixed amount of work, not a race: test:full's run count on a loaded 2-core box passed vitest's 120 s.
import { PROPERTY_TIMEOUT_MS } from "../helpers/circuit.js";

// A budget step of 2: with checkpoint steps of 0 to 3 records, some checkpoints land within it and some not.
const fx = escrowFixture({ checkpointInterval: 2 });
const UNIT = 1000n;
// npm test: 40 sequences; npm run test:full (ZKVAI_FULL=1): 200.
const RUNS = Number(process.env.INVARIANT_RUNS ?? (process.env.ZKVAI_FULL === "1" ? 200 : 40));

type Cmd =
  | { op: "register"; p: number; payout: number; extra: number }
  | { op: "fund"; i: number; units: number }
  | { op: "retire"; i: number; other: boolean }
  | { op: "withdrawReserve"; i: number }
  | { op: "open"; p: number; u: number; cover: "auto" | "none" | "pick"; i: number }
  | { op: "release"; i: number }
  | { op: "drain"; close: boolean }
  | { op: "frontrun"; i: number }
  | { op: "defaultSelf" }
  /** The prologue's: session s's user claims on promise i, which covers it. */
  | { op: "claimOn"; s: number; i: number }
  | { op: "checkpoint"; s: number; step: number }
  | { op: "close"; s: number; step: number }
  | { op: "receipt"; s: number; step: number; spare: boolean; wrongUser: boolean; forged: boolean }
  | { op: "claim"; s: number; i: number; bond: number; wrongUser: boolean }
  | { op: "storm"; i: number }
  | { op: "settle"; c: number; violated: boolean; valid: boolean }
  | { op: "default"; c: number }
  | { op: "withdraw"; a: number }
  | { op: "warp"; seconds: number };

const idx = fc.nat({ max: 7 });
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant("register" as const),
      p: fc.nat({ max: 1 }),
      payout: fc.constantFrom(0, 1, 1, 2, 3),
      extra: fc.nat({ max: 3 }),
    }),
    weight: 1,
  },
  fc.record({ op: fc.constant("fund" as const), i: idx, units: fc.integer({ min: 0, max: 3 }) }),
  {
    arbitrary: fc.record({
      op: fc.constant("retire" as const),
      i: idx,
      other: fc.constantFrom(false, false, true),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant("withdrawReserve" as const), i: idx }), weight: 3 },
  {
    arbitrary: fc.record({
      op: fc.constant("open" as const),
      p: fc.nat({ max: 1 }),
      // u = 2 is provider 0 itself: a sock-puppet session (for provider 1, a user it does not control).
      u: fc.nat({ max: 2 }),
      cover: fc.constantFrom(
        "auto" as const,
        "auto" as const,
        "auto" as const,
        "none" as const,
        "pick" as const,
      ),
      i: idx,
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant("release" as const), i: idx }), weight: 2 },
  // The sock-puppet strategies of provider 0 (#34 finding 1): drain its promises with sessions naming itself and
  // self-claims on them, front-run an honest claim with a self-claim, default its self-claims timed against
  // honest claims still open.
  { arbitrary: fc.record({ op: fc.constant("drain" as const), close: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant("frontrun" as const), i: idx }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant("defaultSelf" as const) }), weight: 2 },
  fc.record({ op: fc.constant("checkpoint" as const), s: idx, step: fc.nat({ max: 3 }) }),
  {
    arbitrary: fc.record({ op: fc.constant("close" as const), s: idx, step: fc.nat({ max: 2 }) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      op: fc.constant("receipt" as const),
      s: idx,
      // Down to 2 below lastN: a receipt for fewer records than the last entry, which only the spare takes.
      step: fc.integer({ min: -2, max: 3 }),
      // The kind the user asks for: never inferred, so a non-spare receipt outside the rules just reverts.
      spare: fc.boolean(),
      wrongUser: fc.constantFrom(false, false, false, false, false, true),
      forged: fc.constantFrom(false, false, false, false, false, true),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      op: fc.constant("claim" as const),
      s: idx,
      i: idx,
      bond: fc.constantFrom(0, 1, 1, 1, 1, 1, 1, 2),
      wrongUser: fc.constantFrom(false, false, false, false, false, false, false, true),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      op: fc.constant("settle" as const),
      c: idx,
      violated: fc.boolean(),
      valid: fc.constantFrom(true, true, true, false),
    }),
    weight: 4,
  },
  fc.record({ op: fc.constant("storm" as const), i: idx }),
  { arbitrary: fc.record({ op: fc.constant("default" as const), c: idx }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant("withdraw" as const), a: fc.nat({ max: 4 }) }), weight: 2 },
  {
    arbitrary: fc.record({
      op: fc.constant("warp" as const),
      seconds: fc.constantFrom(60, 3600, 3 * 86400 - 1, 3 * 86400, 10 * 86400, 30 * 86400 + 1),
    }),
    weight: 4,
  },
);

interface World {
  promises: bigint[];
  /** Provider index and creation order of each promise, in `promises` order. */
  promiseMeta: { p: number; order: number }[];
  sessions: { id: Hex; p: number; u: number; lastN: number; order: number; closed: boolean }[];
  /** Pairs whose payout was earmarked at open (SessionCovered covered), and those released since. */
  covered: Set<string>;
  released: Set<string>;
  /** Sessions with a claim filed on them: their spare receipt is frozen once RECEIPT_WINDOW has passed. */
  claimedSessions: Set<string>;
  order: number;
  /** Bias only (the chain is the truth): open claims, retired promises, accounts with a credit. */
  openClaims: Set<bigint>;
  openPairs: Set<string>;
  retired: Set<bigint>;
  owed: Set<string>;
  claims: bigint[];
  paidIn: bigint;
  withdrawn: bigint;
  paidPairs: Set<string>;
  resolvedPairs: Set<string>;
  payouts: Map<bigint, bigint>; // promiseId -> payout
  bonds: Map<bigint, { bond: bigint; pair: string }>; // claimId -> bond, pair
}

/** Every run starts from a promise per provider and sessions they cover, so claims have something to hit. */
const PROLOGUE: Cmd[] = [
  { op: "register", p: 0, payout: 2, extra: 3 }, // room for two sessions' earmarks
  { op: "register", p: 1, payout: 1, extra: 0 }, // one payout drains it: claims on it race
  { op: "open", p: 0, u: 0, cover: "auto", i: 0 },
  { op: "open", p: 0, u: 1, cover: "auto", i: 0 }, // promise 1 has room for one more; promise 2 has none
  { op: "open", p: 1, u: 0, cover: "auto", i: 0 },
  { op: "open", p: 1, u: 1, cover: "auto", i: 0 },
  { op: "checkpoint", s: 0, step: 2 },
  { op: "checkpoint", s: 1, step: 3 }, // stays open: receipts on it at or below lastN go to the spare
  { op: "close", s: 0, step: 1 },
  { op: "close", s: 2, step: 0 },
  { op: "close", s: 3, step: 2 },
  { op: "claimOn", s: 1, i: 0 }, // a claim open on a session still open: its spare lands with a claim open
];

const successes = new Map<string, number>();
/** Open claims whose settle(violated) was simulated and would pay (provenViolationsPay). */
let provenPaid = 0;
let lastRevert = "";
/** The sock-puppet strategies that ran to the point of spending something, by name. */
const strategies = new Map<string, number>();
const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
const reverts = new Map<string, number>();
/** Receipts folded, by path: within the checkpoint rules, or the spare (before or after close, with a claim open). */
const receiptKinds = new Map<string, number>();
let sessionSeq = 0;

function wallets(f: Fixture) {
  return {
    providers: [f.provider, f.otherProvider] as Wallet[],
    // The first provider is also a user: its self-claims on its own promises race honest ones.
    users: [f.user, f.otherUser, f.provider] as Wallet[],
    all: [f.provider, f.user, f.stranger, f.otherProvider, f.otherUser] as Wallet[],
  };
}

const pick = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);
/** Three times in four, an element of `likely` (when there is one); otherwise any element of `all`. */
const biased = <T>(all: T[], likely: T[], i: number): T | undefined =>
  i % 4 !== 0 && likely.length ? pick(likely, i) : pick(all, i);

/** (session, promise) pairs the model expects can be claimed: earmarked at open, neither open, resolved nor released. */
function freePairs(w: World) {
  return w.sessions.flatMap((ss) =>
    w.promises
      .map((id) => ({ s: ss, id, key: `${ss.id}/${id}` }))
      .filter(({ key }) => w.covered.has(key) && !w.resolvedPairs.has(key) && !w.openPairs.has(key))
      .filter(({ key }) => !w.released.has(key)),
  );
}

/** Honest users are fx.user and fx.otherUser (users 0 and 1); user 2 is provider 0's own address. */
const SOCK = 2;

/**
 * Files the session user's claim on a free pair; when the pair's claim window is comfortably open, the filing
 * must succeed: no earlier claim, self-claim or default can have spent the session's coverage.
 */
async function honestFile(w: World, t: { s: World["sessions"][number]; id: bigint }, bond: bigint) {
  const { users } = wallets(fx);
  const deadline = await fx.chain.testClient
    .mine({ blocks: 1 })
    .then(() => fx.escrow.claimDeadline(t.s.id, t.id));
  // Mined first: a warp (increaseTime) moves the next block's time, not the latest block's.
  const now = (await fx.chain.publicClient.getBlock()).timestamp;
  const r = await receiptOrRevert(fx.escrow.as(users[t.s.u]).fileClaim(t.s.id, t.id, bond));
  if (!r && bond > 0n && (deadline === null || deadline > now + 60n))
    throw new Error(`the covered pair ${t.s.id}/${t.id} (user ${t.s.u}) could not be claimed: ${lastRevert}`);
  return r;
}

/** Runs one command; returns its receipt, or undefined when it reverted (with a custom error) or had no target. */
async function step(w: World, c: Cmd): Promise<TransactionReceipt | undefined> {
  const { providers, users, all } = wallets(fx);
  const e = (wallet: Wallet): EscrowClient => fx.escrow.as(wallet);
  let tx: Promise<{ txHash: Hex }> | undefined;
  switch (c.op) {
    case "register": {
      const payout = BigInt(c.payout) * UNIT;
      const value = payout + BigInt(c.extra) * UNIT;
      const r = await receiptOrRevert(
        e(providers[c.p]).registerPromise({
          predicateId: 4,
          paramsHash: 1n,
          profileHash: 7n,
          payout,
          value,
        }),
      );
      if (r) w.promiseMeta.push({ p: c.p, order: w.order++ });
      return r;
    }
    case "fund": {
      const id = pick(w.promises, c.i);
      if (id !== undefined) tx = e(fx.stranger).fund(id, BigInt(c.units) * UNIT);
      break;
    }
    case "retire": {
      const id = pick(w.promises, c.i);
      if (id !== undefined) {
        const owner = (await fx.escrow.promise(id)).provider;
        const wallet = c.other ? fx.stranger : all.find((x) => x.account.address === owner)!;
        tx = e(wallet).retirePromise(id);
      }
      break;
    }
    case "withdrawReserve": {
      const id = biased(w.promises, [...w.retired], c.i);
      if (id !== undefined) {
        const owner = (await fx.escrow.promise(id)).provider;
        tx = e(all.find((x) => x.account.address === owner)!).withdrawReserve(id);
      }
      break;
    }
    case "open": {
      const id = sid(`inv-${sessionSeq++}`, providers[c.p]!.account!.address);
      // "pick" names any one promise: another provider's or a retired one reverts, a short one leaves the
      // session uncovered by it.
      const picked = pick(w.promises, c.i);
      const cover: CoverOption = c.cover === "none" ? [] : c.cover === "pick" && picked ? [picked] : "auto";
      const r = await receiptOrRevert(
        e(providers[c.p]).openSession(id, users[c.u].account.address, 7n, cover),
      );
      if (r) w.sessions.push({ id, p: c.p, u: c.u, lastN: 0, order: w.order++, closed: false });
      return r;
    }
    case "release": {
      // Anyone releases an earmark: it succeeds only once the pair's window is over with no claim open.
      const pairs = [...w.covered].filter((k) => !w.resolvedPairs.has(k) && !w.released.has(k));
      const key = pick(pairs, c.i);
      if (key) {
        const [sessionId, promiseId] = key.split("/");
        tx = e(fx.stranger).releaseCoverage(sessionId as Hex, BigInt(promiseId));
      }
      break;
    }
    case "drain": {
      // Provider 0 opens a session naming its own address, covering whatever its free reserves allow, and
      // self-claims on every promise that covered it.
      const id = sid(`sock-${sessionSeq++}`, providers[0]!.account!.address);
      const opened = await receiptOrRevert(e(providers[0]).openSession(id, users[SOCK].account.address, 7n));
      if (!opened) return undefined;
      book(w, opened);
      const ss = { id, p: 0, u: SOCK, lastN: 0, order: w.order++, closed: false };
      w.sessions.push(ss);
      if (c.close) {
        const r = await receiptOrRevert(e(providers[0]).closeSession(id, 1, 999n));
        if (r) (book(w, r), (ss.closed = true));
      }
      for (const t of freePairs(w).filter((x) => x.s === ss)) {
        const r = await honestFile(w, t, 1n); // the provider's claim on its own session is a claim all the same
        if (r) (book(w, r), count(strategies, "drain: self-claim"));
      }
      return undefined; // booked above
    }
    case "frontrun": {
      // An honest claim is pending on promise X; provider 0 lands a self-claim on X first (a free sock pair, or
      // a fresh sock session), then the honest claim goes through: it must.
      const honest = freePairs(w).filter((x) => x.s.u !== SOCK && x.s.p === 0);
      const target = pick(honest, c.i);
      if (!target) break;
      let sock = freePairs(w).find((x) => x.s.u === SOCK && x.id === target.id);
      if (!sock && (await fx.escrow.promise(target.id)).provider === providers[0].account.address) {
        // None yet: open one for the occasion, naming X, topping X up first when nothing is free.
        const { payout } = await fx.escrow.promise(target.id);
        if ((await fx.escrow.availableReserve(target.id)) < payout) {
          const funded = await receiptOrRevert(e(providers[0]).fund(target.id, payout));
          if (funded) book(w, funded);
        }
        const id = sid(`sock-${sessionSeq++}`, providers[0]!.account!.address);
        const opened = await receiptOrRevert(
          e(providers[0]).openSession(id, users[SOCK].account.address, 7n, [target.id]),
        );
        if (opened) {
          book(w, opened);
          w.sessions.push({ id, p: 0, u: SOCK, lastN: 0, order: w.order++, closed: false });
          sock = freePairs(w).find((x) => x.s.id === id);
        }
      }
      const first = sock && (await receiptOrRevert(e(users[SOCK]).fileClaim(sock.s.id, sock.id, 1n)));
      if (first) book(w, first);
      const r = await honestFile(w, target, UNIT / 10n);
      if (r) book(w, r);
      if (first && r) count(strategies, "front-run: self-claim, then the honest claim");
      return undefined; // booked above
    }
    case "claimOn": {
      const t = freePairs(w).find((x) => x.s === w.sessions[c.s] && x.id === w.promises[c.i]);
      if (!t) throw new Error("the prologue's claim has no covered pair");
      const r = await honestFile(w, t, UNIT / 10n);
      if (r) book(w, r);
      return undefined; // booked above
    }
    case "defaultSelf": {
      // Default every open self-claim as soon as its window allows, while honest claims may still be open.
      const self: bigint[] = [];
      for (const id of w.openClaims) {
        const claim = await fx.escrow.claim(id);
        if (claim.claimant === users[SOCK].account.address) self.push(id);
      }
      if (!self.length) break;
      const filed = await Promise.all(self.map(async (id) => (await fx.escrow.claim(id)).filedAt));
      const end = filed.reduce((a, b) => (a > b ? a : b)) + 3n * 86400n;
      const now = (await fx.chain.publicClient.getBlock()).timestamp;
      if (end > now) await fx.chain.testClient.increaseTime({ seconds: Number(end - now) });
      for (const id of self) {
        const r = await receiptOrRevert(e(fx.stranger).claimDefault(id), true);
        if (r) book(w, r);
        if (r && w.openClaims.size) count(strategies, "self-claim defaulted with an honest claim open");
      }
      return undefined; // booked above
    }
    case "checkpoint": {
      const s = pick(w.sessions, c.s);
      if (s) {
        const n = s.lastN + c.step; // step 0: not increasing
        const r = await receiptOrRevert(e(providers[s.p]).checkpoint(s.id, n, BigInt(n) + 100n));
        if (r) s.lastN = n;
        return r;
      }
      break;
    }
    case "close": {
      const s = pick(w.sessions, c.s);
      if (s) {
        const r = await receiptOrRevert(e(providers[s.p]).closeSession(s.id, s.lastN + c.step, 999n));
        if (r) s.closed = true;
        return r;
      }
      break;
    }
    case "receipt": {
      // The user posts a receipt for lastN + step records, as the spare or not: not the spare, it folds as a
      // checkpoint before close when it follows the rules and reverts with the rule's error (AlreadyClosed after
      // close) otherwise; the spare folds once, at any time. Three times in four on an open session, when there
      // is one: sessions close fast, and the spare before close must be reached too.
      const s = biased(
        w.sessions,
        w.sessions.filter((x) => !x.closed),
        c.s,
      );
      const n = s ? s.lastN + c.step : 0;
      if (!s || n < 1) break; // signReceipt refuses n = 0 before anything is sent
      const receipt = { sessionId: s.id, n, root: BigInt(n) + 100n };
      const signature = await signed(fx, receipt, { signer: c.forged ? fx.stranger : providers[s.p] });
      const poster = users[c.wrongUser ? (s.u + 1) % users.length : s.u];
      const before = await fx.escrow.session(s.id);
      const r = await receiptOrRevert(e(poster).postReceipt(receipt, signature, { spare: c.spare }));
      if (r && (c.forged || c.wrongUser))
        throw new Error(`a receipt was folded: forged ${c.forged}, by ${poster}`);
      if (!r) {
        // A refused receipt spends nothing: above all not the spare (no silent fallback to it).
        const after = await fx.escrow.session(s.id);
        if (after.spareReceiptUsed !== before.spareReceiptUsed || after.acc !== before.acc)
          throw new Error(`a refused receipt (spare ${c.spare}) changed the session`);
      }
      const [posted] = r
        ? parseEventLogs({ abi: fx.escrow.abi, logs: r.logs, eventName: "ReceiptPosted" })
        : [];
      if (posted) {
        const info = await fx.escrow.session(s.id);
        if (posted.args.spare !== c.spare)
          throw new Error(`asked for spare ${c.spare}, folded as spare ${posted.args.spare}`);
        if (posted.args.spare && !info.spareReceiptUsed) throw new Error("a spare left the flag unset");
        if (!posted.args.spare && (before.closed || n <= before.lastN))
          throw new Error(`a non-spare receipt for ${n} folded outside the rules (lastN ${before.lastN})`);
        // RECEIPT_WINDOW is 0 here: after close, a claimed session's fold is frozen at once.
        if (posted.args.spare && before.closed && w.claimedSessions.has(s.id))
          throw new Error(`a spare landed after close on the claimed session ${s.id}`);
        // A spare before close raises lastN only when above it; after close lastN never moves.
        const expected = !info.closed && n > s.lastN ? n : s.lastN;
        if (info.lastN !== expected)
          throw new Error(`lastN ${info.lastN} after a receipt for ${n}, not ${expected}`);
        s.lastN = info.lastN;
        const claimOpen = [...w.openPairs].some((pair) => pair.startsWith(`${s.id}/`));
        const kind = !posted.args.spare ? "rules" : info.closed ? "spare after close" : "spare before close";
        receiptKinds.set(kind, (receiptKinds.get(kind) ?? 0) + 1);
        if (posted.args.spare && claimOpen)
          receiptKinds.set("spare, claim open", (receiptKinds.get("spare, claim open") ?? 0) + 1);
      }
      return r;
    }
    case "storm": {
      // Every user files on every free pair of one promise at once: claims race for the reserve.
      const id = pick(w.promises, c.i);
      if (id === undefined) break;
      for (const t of freePairs(w).filter((x) => x.id === id)) {
        const r = await honestFile(w, t, UNIT / 10n);
        if (r) book(w, r);
      }
      return undefined; // booked above
    }
    case "claim": {
      // Three times in four a pair that can be claimed (covering promise, pair free); else anything.
      const free = freePairs(w);
      const any = w.sessions.flatMap((ss) => w.promises.map((id) => ({ s: ss, id })));
      const target = biased(any, free, c.s * 8 + c.i);
      if (target) {
        const bond = BigInt(c.bond) * (UNIT / 10n);
        if (!c.wrongUser && free.some((x) => x.s === target.s && x.id === target.id))
          return honestFile(w, target, bond);
        const by = c.wrongUser ? users[(target.s.u + 1) % users.length] : users[target.s.u];
        tx = e(by).fileClaim(target.s.id, target.id, bond);
      }
      break;
    }
    case "settle": {
      const id = biased(w.claims, [...w.openClaims], c.c);
      if (id !== undefined) {
        if (!c.valid) await proofsValid(fx, false);
        try {
          return await receiptOrRevert(
            fx.escrow.as(fx.stranger).settle(id, [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n], c.violated),
            c.violated,
          );
        } finally {
          if (!c.valid) await proofsValid(fx, true);
        }
      }
      break;
    }
    case "default": {
      const id = biased(w.claims, [...w.openClaims], c.c);
      if (id !== undefined) return receiptOrRevert(e(fx.stranger).claimDefault(id), true);
      break;
    }
    case "withdraw":
      tx = e(
        biased(
          all,
          all.filter((x) => w.owed.has(x.account.address)),
          c.a,
        )!,
      ).withdraw();
      break;
    case "warp":
      await fx.chain.testClient.increaseTime({ seconds: c.seconds });
      return undefined;
  }
  return tx ? receiptOrRevert(tx) : undefined;
}

async function receiptOrRevert(
  tx: Promise<{ txHash: Hex }>,
  pays = false,
): Promise<TransactionReceipt | undefined> {
  try {
    const { txHash } = await tx;
    return await fx.chain.publicClient.getTransactionReceipt({ hash: txHash });
  } catch (err) {
    const msg = String((err as Error).message);
    // fileClaim's failures come as an EscrowRevertError naming the custom error; the rest as viem's errors.
    const custom =
      err instanceof EscrowRevertError
        ? [msg, err.revert]
        : (/reverted with custom error '(\w+)\(/.exec(msg) ?? /Error: (\w+)\(/.exec(msg));
    if (!custom || /panic/i.test(msg) || custom[1] === "Panic" || custom[1] === "Error")
      throw new Error(`not a custom-error revert: ${msg.slice(0, 400)}`);
    reverts.set(custom[1], (reverts.get(custom[1]) ?? 0) + 1);
    lastRevert = custom[1];
    // settle(violated) and claimDefault pay an open claim: its earmarked payout must always be there.
    if (pays && custom[1] === "InsufficientReserve") reverts.set("InsufficientReserve:payout", 1);
    return undefined;
  }
}

/** Books a successful command's events into the world and checks the per-event invariants. */
function book(w: World, receipt: TransactionReceipt) {
  const abi: Abi = fx.escrow.abi; // untyped: events are booked by name below
  const logs = parseEventLogs({ abi, logs: receipt.logs });
  for (const l of logs) {
    const a = l.args as Record<string, never>;
    const name = l.eventName as string;
    successes.set(name, (successes.get(name) ?? 0) + 1);
    switch (name) {
      case "PromiseRegistered":
        w.promises.push(a.promiseId);
        w.payouts.set(a.promiseId, a.payout);
        w.paidIn += a.reserve as bigint;
        break;
      case "PromiseFunded":
        w.paidIn += a.amount as bigint;
        break;
      case "SessionCovered":
        if (a.covered) w.covered.add(`${a.sessionId}/${a.promiseId}`);
        break;
      case "CoverageReleased": {
        const pair = `${a.sessionId}/${a.promiseId}`;
        expect(w.covered.has(pair) && !w.openPairs.has(pair), `released ${pair}`).toBe(true);
        w.released.add(pair);
        break;
      }
      case "ClaimFiled": {
        expect(w.covered.has(`${a.sessionId}/${a.promiseId}`), "a claim on a pair not covered").toBe(true);
        w.claimedSessions.add(a.sessionId);
        w.claims.push(a.claimId);
        w.paidIn += a.bond as bigint;
        w.bonds.set(a.claimId, { bond: a.bond, pair: `${a.sessionId}/${a.promiseId}` });
        w.openClaims.add(a.claimId);
        w.openPairs.add(`${a.sessionId}/${a.promiseId}`);
        break;
      }
      case "ClaimSettled":
      case "ClaimDefaulted": {
        const { bond, pair } = w.bonds.get(a.claimId)!;
        w.openClaims.delete(a.claimId);
        w.openPairs.delete(pair);
        w.owed.add(a.beneficiary);
        const promiseId = BigInt(pair.split("/")[1]);
        const pays = name === "ClaimDefaulted" || (a.violated as boolean);
        expect(w.resolvedPairs.has(pair), `pair ${pair} resolved twice`).toBe(false);
        w.resolvedPairs.add(pair);
        if (pays) {
          expect(w.paidPairs.has(pair), `pair ${pair} paid twice`).toBe(false);
          w.paidPairs.add(pair);
          expect(a.amount).toBe(w.payouts.get(promiseId)! + bond);
        } else expect(a.amount).toBe(bond);
        break;
      }
      case "PromiseRetired":
        w.retired.add(a.promiseId);
        break;
      case "ReserveWithdrawn":
        w.owed.add(a.provider);
        break;
      case "Withdrawn":
        w.withdrawn += a.amount as bigint;
        w.owed.delete(a.account);
        break;
    }
  }
}

async function checkInvariants(w: World) {
  const accounts = wallets(fx).all.map((x) => x.account.address);
  const l = await ledger(fx, accounts);
  expect(l.balance, "balance = reserves + open bonds + credits").toBe(l.reserves + l.openBonds + l.credits);
  expect(l.balance + w.withdrawn, "paid in = held + withdrawn").toBe(w.paidIn);
  // Earmarks: exactly the covered pairs not yet resolved or released, each holding a payout of the reserve.
  const live = new Map<bigint, number>();
  for (const key of w.covered) {
    if (w.resolvedPairs.has(key) || w.released.has(key)) continue;
    const id = BigInt(key.split("/")[1]);
    live.set(id, (live.get(id) ?? 0) + 1);
  }
  let free = 0n;
  for (const id of w.promises) {
    const p = await fx.escrow.promise(id);
    expect(p.earmarks, `promise ${id}: earmarks`).toBe(live.get(id) ?? 0);
    expect(p.reserve, `promise ${id}: reserve holds its earmarks`).toBeGreaterThanOrEqual(
      BigInt(p.earmarks) * p.payout,
    );
    const available = await fx.escrow.availableReserve(id);
    expect(available).toBe(p.reserve - BigInt(p.earmarks) * p.payout);
    free += available;
  }
  expect(l.balance, "balance = free reserves + earmarks + open bonds + credits").toBe(
    free + l.earmarked + l.openBonds + l.credits,
  );
  expect(reverts.get("InsufficientReserve:payout"), "an open claim found its payout missing").toBeUndefined();
  await provenViolationsPay(w);
}

/**
 * A covered session with a proven violation is always paid: for every open claim, settle(violated) with an
 * accepted proof succeeds (simulated) unless a window still forbids it (session not closed, receipt window, the
 * proof window over, where claimDefault pays instead), and never for want of the payout.
 */
async function provenViolationsPay(w: World) {
  const windows = ["SessionNotClosed", "ReceiptWindowOpen", "ProofWindowClosed"];
  for (const id of w.openClaims) {
    try {
      await fx.chain.publicClient.simulateContract({
        address: fx.escrow.address,
        abi: fx.escrow.abi,
        functionName: "settle",
        args: [id, [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n], true],
        account: fx.stranger.account,
      });
      provenPaid++;
    } catch (err) {
      const name = /Error: (\w+)\(/.exec(String((err as Error).message))?.[1] ?? String(err).slice(0, 200);
      if (!windows.includes(name)) throw new Error(`claim ${id}: a proven violation would not pay: ${name}`);
    }
  }
}

/**
 * Storage's acc and count are exactly the fold of the session's events, there is at most one spare receipt, and
 * a closed session's entries fit the circuit for its finalN (checkpointSlots, the count bound).
 */
async function checkFolds(w: World) {
  for (const s of w.sessions) {
    const info = await fx.escrow.session(s.id);
    const entries = await fx.escrow.checkpointsOf(s.id);
    expect(info.acc, `session ${s.id}: acc is the fold of its events`).toBe(accumulate(entries));
    expect(info.checkpointCount).toBe(entries.length);
    const spares = entries.filter((x) => x.spare);
    expect(spares.length).toBe(info.spareReceiptUsed ? 1 : 0);
    if (info.closed)
      expect(
        info.checkpointCount,
        `session ${s.id}: entries fit checkpointSlots(finalN)`,
      ).toBeLessThanOrEqual(checkpointSlots(Math.max(info.finalN, 1), fx.interval));
  }
}

describe("escrow invariants under random operation sequences", () => {
  it(
    "conserves money, pays each pair at most once, and reverts only with custom errors",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(cmd, { minLength: 10, maxLength: 40, size: "max" }), async (cmds) => {
          const snap = await fx.chain.testClient.snapshot();
          const w: World = {
            promises: [],
            promiseMeta: [],
            sessions: [],
            covered: new Set(),
            released: new Set(),
            claimedSessions: new Set(),
            order: 0,
            openClaims: new Set(),
            openPairs: new Set(),
            retired: new Set(),
            owed: new Set(),
            claims: [],
            paidIn: 0n,
            withdrawn: 0n,
            paidPairs: new Set(),
            resolvedPairs: new Set(),
            payouts: new Map(),
            bonds: new Map(),
          };
          try {
            for (const c of [...PROLOGUE, ...cmds]) {
              const receipt = await step(w, c);
              if (receipt) book(w, receipt);
              await checkInvariants(w);
            }
            await checkFolds(w);
          } finally {
            await fx.chain.testClient.revert({ id: snap });
          }
        }),
        { numRuns: RUNS, seed: Number(process.env.INVARIANT_SEED ?? 20260401), endOnFailure: true },
      );
      console.log(
        "successes",
        Object.fromEntries(successes),
        "\nreverts",
        Object.fromEntries(reverts),
        "\nreceipts",
        Object.fromEntries(receiptKinds),
        "\nproven violations that would pay",
        provenPaid,
        "\nsock-puppet strategies",
        Object.fromEntries(strategies),
      );
      expect([...strategies.keys()].sort()).toEqual(
        [
          "drain: self-claim",
          "front-run: self-claim, then the honest claim",
          "self-claim defaulted with an honest claim open",
        ].sort(),
      );
      expect(provenPaid).toBeGreaterThan(0);
      expect([...receiptKinds.keys()].sort()).toEqual(
        ["rules", "spare after close", "spare before close", "spare, claim open"].sort(),
      );
      // The generator must reach every transition, or the property says little.
      const reached = [...successes.keys()].sort();
      expect(reached).toEqual(
        [
          "Checkpointed",
          "ClaimDefaulted",
          "ClaimFiled",
          "ClaimSettled",
          "CoverageReleased",
          "PromiseFunded",
          "PromiseRegistered",
          "PromiseRetired",
          "ReceiptPosted",
          "ReserveWithdrawn",
          "SessionClosed",
          "SessionCovered",
          "SessionOpened",
          "Withdrawn",
        ].sort(),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
