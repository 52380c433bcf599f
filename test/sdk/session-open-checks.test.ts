// Issue 33 items 7 and 9: Session.open refuses, before writing anything, a session whose profile is not the
// one its promises pin (ProfileMismatchError, naming both hashes) unless the caller opts out, and a missing or
// unusable store or escrow client with a SessionOpenError (a ZkvaiError with a code), never a TypeError.
import { beforeAll, describe, expect, it } from "vitest";
import { EscrowClient } from "../../sdk/chain/escrow.js";
import { paramsHashOf, predicateById } from "../../sdk/core/predicates/index.js";
import { profileHash, type EncodingProfile } from "../../sdk/core/profile.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import {
  GuardRefusal,
  ProfileMismatchError,
  Session,
  SessionOpenError,
  SessionRecoveryError,
  ZkvaiError,
  type SessionOptions,
} from "../../sdk/provider/session.js";
import type { TraceStore } from "../../sdk/provider/store.js";
import { PROFILE, freshId, sessionEnv, type SessionEnv } from "./session-fixture.js";

const AAP4 = predicateById("AAP-4");
const THETA = { outboundTools: ["send_email"], allowlist: ["alice@acme.example"] };
/** Another profile: one tool more, so another hash. */
const OTHER: EncodingProfile = { ...PROFILE, tools: { ...PROFILE.tools, lookup: {} } };
const hex = (x: bigint) => `0x${x.toString(16).padStart(64, "0")}`;

let env: SessionEnv;
let promiseId: bigint;
let readOnly: EscrowClient;

beforeAll(async () => {
  env = await sessionEnv(1, [{ predicateId: AAP4.code, capacity: 8 }]);
  readOnly = await EscrowClient.connect(env.chain, env.escrow.address);
  const theta = AAP4.parseTheta(THETA);
  ({ promiseId } = await env.escrow.registerPromise({
    predicateId: AAP4.code,
    paramsHash: paramsHashOf(AAP4, theta),
    profileHash: profileHash(PROFILE),
    payout: 10n ** 15n,
    value: 10n ** 17n,
  }));
});

function options(store: TraceStore, extra: Partial<SessionOptions> = {}): SessionOptions {
  return { store, escrow: env.escrow, sessionId: freshId(), user: env.user, profile: PROFILE, ...extra };
}

/** Session.open must throw `type` with `message` and leave the store without the session. */
async function refused(
  opts: SessionOptions,
  type: abstract new (...args: never[]) => Error,
  message: RegExp,
) {
  const opening = Session.open(opts);
  await expect(opening).rejects.toThrow(type);
  await expect(opening).rejects.toThrow(message);
  expect(opts.store.session(opts.sessionId)).toBeUndefined();
  await expect(env.escrow.session(opts.sessionId)).rejects.toThrow(/UnknownSession/);
}

describe("a session whose profile is not its promises' is refused at open (issue 33 item 7)", () => {
  const both = () =>
    new RegExp(`${hex(profileHash(OTHER))}.*promise ${promiseId} pins profile ${hex(profileHash(PROFILE))}`);

  it("the README path: registered under one profile, opened under another, covered by nothing", async () => {
    const store = env.store();
    const opening = Session.open(options(store, { profile: OTHER }));
    await expect(opening).rejects.toThrow(ProfileMismatchError);
    const e = (await opening.catch((x: unknown) => x)) as ProfileMismatchError;
    expect(e).toBeInstanceOf(ZkvaiError);
    expect(e.code).toBe("PROFILE_MISMATCH");
    expect(e.message).toMatch(both());
    expect(e.message).toMatch(/allowProfileMismatch: true/);
    expect(e.sessionProfileHash).toBe(profileHash(OTHER));
    expect(e.mismatched).toEqual([{ promiseId, profileHash: profileHash(PROFILE) }]);
    expect(store.session(options(store).sessionId)).toBeUndefined();
  });

  it("promises given by θ are matched to the registered promise and its profile", async () => {
    await refused(
      options(env.store(), { profile: OTHER, promises: [{ predicate: "AAP-4", theta: THETA }] }),
      ProfileMismatchError,
      /promises\[0\] \(AAP-4\) as registered pin another profile/,
    );
  });

  it("a promise named in cover that pins another profile is refused before anything is written", async () => {
    await refused(options(env.store(), { profile: OTHER, cover: [promiseId] }), ProfileMismatchError, both());
  });

  it("allowProfileMismatch opens it anyway, uncovered by that promise, and says so in the log", async () => {
    const log = memoryLogger();
    const store = env.store();
    const opts = options(store, { profile: OTHER, cover: [promiseId], allowProfileMismatch: true, log });
    const session = await Session.open(opts);
    expect(session.openTx?.coverage).toEqual([]);
    expect(log.entries.find((x) => x.event === "session.profile_mismatch")).toMatchObject({
      level: "warn",
      fields: { sessionProfileHash: hex(profileHash(OTHER)) },
    });
    const auto = await Session.open(options(env.store(), { profile: OTHER, allowProfileMismatch: true }));
    expect(auto.openTx?.coverage).toEqual([]);
  });

  it("the promise's own profile opens covered, and cover ids bring the stored θ to guard mode", async () => {
    const plain = await Session.open(options(env.store()));
    expect(plain.openTx?.coverage.map((c) => [c.promiseId, c.covered])).toEqual([[promiseId, true]]);
    const store = env.store();
    store.putPromise({ promiseId, predicate: "AAP-4", theta: AAP4.parseTheta(THETA), paramsHash: 0n });
    const guarded = await Session.open(options(store, { cover: [promiseId], guard: true }));
    await expect(
      guarded.call("send_email", { to: "mallory@else.example" }, async () => "sent"),
    ).rejects.toThrow(GuardRefusal);
  });

  it("cover naming a promise that does not exist is refused", async () => {
    await refused(options(env.store(), { cover: [promiseId + 100n] }), SessionOpenError, /does not exist/);
  });
});

describe("Session.open and recover without a usable store or escrow (issue 33 item 9)", () => {
  const cases: [string, (o: SessionOptions) => SessionOptions, RegExp][] = [
    [
      "no escrow",
      (o) => ({ ...o, escrow: undefined as unknown as EscrowClient }),
      /escrow must be an EscrowClient.*got undefined/,
    ],
    [
      "a plain object as escrow",
      (o) => ({ ...o, escrow: {} as EscrowClient }),
      /escrow must be an EscrowClient.*got Object/,
    ],
    ["an escrow client without a wallet", (o) => ({ ...o, escrow: readOnly }), /no wallet to send from/],
    [
      "no store",
      (o) => ({ ...o, store: undefined as unknown as TraceStore }),
      /store must be a TraceStore.*got undefined/,
    ],
  ];

  it.each(cases)("%s: SessionOpenError with a code, not a TypeError", async (_, change, message) => {
    const opts = change(options(env.store()));
    const opening = Session.open(opts);
    await expect(opening).rejects.toThrow(SessionOpenError);
    await expect(opening).rejects.toThrow(message);
    await expect(opening).rejects.toMatchObject({ code: "SESSION_OPEN_FAILED" });
    const recovering = Session.recover({ ...opts });
    await expect(recovering).rejects.toThrow(SessionRecoveryError);
    await expect(recovering).rejects.toThrow(message);
  });
});
