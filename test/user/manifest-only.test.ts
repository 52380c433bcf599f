// A user checks a deployment with a manifest and the chain alone: the escrow and verifiers are deployed from
// the build, then ZKVAI_BUILD_DIR points at a build that does not exist and the manifest is a copy elsewhere
// (with its keys embedded, as setup now writes it). verifySettlement and checkPromise must still work, compiling
// every expected runtime code from the package's sources and the manifest's keys; reject every tampered checksum
// alike; flag development keys; check segment verifiers (a promise served by segments alone, and an escrow whose
// segment verifier accepts everything); and tell "no such claim" and "not settled" from "NOT valid".
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployEscrow, EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import { deployContract } from "../../sdk/chain/artifacts.js";
import { checkpointSlots, CHECKPOINT_INTERVAL } from "../../sdk/core/checkpoints.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { embeddedChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { answerClaim } from "../../prover/claims.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { loadManifest, withEmbeddedKeys, type Manifest } from "../../sdk/manifest/manifest.js";
import { verifierSource, vkeyFileText } from "../../sdk/manifest/verifier-source.js";
import { releaseProver } from "../../prover/prove.js";
import {
  checkPromise,
  ClaimNotSettled,
  NoSuchClaim,
  SettlementInvalid,
  SettlementUncheckable,
  verifySettlement,
} from "../../sdk/user/index.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";
import { claimOn, segmentWorld, type SegmentWorld } from "../helpers/segment-claims.js";
import { answerSegmentedClaim } from "../../prover/segments/claims.js";
import { createHash } from "node:crypto";

const PROFILE: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
const THETA = { outboundTools: ["send_email"], allowlist: ["alice@a.example"] };
const BOND = parseEther("0.1");
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

let chain: DevChainHandle;
let deployment: ZkVaiDeployment;
let store: TraceStore;
let dir: string;
let manifest: Manifest;
let manifestFile: string;
let promiseId: bigint;
const claims = {} as { settled: bigint; open: bigint; overdue: bigint; defaulted: bigint };
/** An escrow whose AAP-3 is served by its segment circuit alone, and one whose segment verifier is a fake. */
const other = {} as { segmentOnly: Address; segmentOnlyPromise: bigint; fake: Address; fakePromise: bigint };
/** A claim settled by a chain of 3 segment proofs (aap3_seg8), on the segment world's own escrow. */
const segmented = {} as { world: SegmentWorld; claimId: bigint };
const savedBuildDir = process.env.ZKVAI_BUILD_DIR;
const savedCacheDir = process.env.ZKVAI_CACHE_DIR;

async function violatingSession(label: string, escrow: EscrowClient): Promise<Hex> {
  const sessionId = scopedSessionId(HARDHAT_ACCOUNT_0, label);
  const user = chain.wallets[1].account.address;
  const s = await Session.open({ store, escrow, sessionId, user, profile: PROFILE });
  await s.call("read", {}, async () => "inbox");
  await s.call("send_email", { to: "eve@evil.example" }, async () => "sent");
  await s.close();
  return sessionId;
}

/** An escrow over the deployment's Poseidon with these registries, and an AAP-3 promise on it. */
async function escrowWith(o: {
  registry: { capacity: number; verifier: Address }[];
  segment: { segmentSize: number; verifier: Address };
}): Promise<[Address, bigint]> {
  const deployer = chain.wallets[0];
  const { address } = await deployEscrow(chain, deployer, {
    poseidon3: deployment.record.poseidon3,
    checkpointInterval: CHECKPOINT_INTERVAL,
    receiptWindow: 0,
    registry: o.registry.map((r) => ({
      predicateId: 3,
      capacity: r.capacity,
      checkpoints: checkpointSlots(r.capacity, CHECKPOINT_INTERVAL),
      verifier: r.verifier,
    })),
    segments: [
      {
        predicateId: 3,
        segmentSize: o.segment.segmentSize,
        checkpoints: checkpointSlots(o.segment.segmentSize, CHECKPOINT_INTERVAL),
        verifier: o.segment.verifier,
      },
    ],
  });
  const escrow = await EscrowClient.connect(chain, address, deployer);
  const { promiseId: id } = await escrow.registerPromise({
    predicateId: 3,
    paramsHash: 1234n,
    profileHash: 77n,
    payout: parseEther("1"),
  });
  return [address, id];
}

beforeAll(async () => {
  chain = await embeddedChain();
  deployment = await deployZkVai(chain, chain.wallets[0], { receiptWindow: 0, segmentSize: 8 });
  const escrow = deployment.escrow;
  dir = mkdtempSync(join(tmpdir(), "zkvai-manifest-only-"));
  store = TraceStore.open(join(dir, "store.sqlite"));
  const spec = { predicate: "AAP-4", theta: THETA, profile: PROFILE, payout: parseEther("1") };
  promiseId = (await registerPromise(deployment.record, escrow, store, { ...spec, reserve: parseEther("5") }))
    .promiseId;
  const asUser = escrow.as(chain.wallets[1]);
  const file = async (label: string) =>
    (await asUser.fileClaim(await violatingSession(label, escrow), promiseId, BOND)).claimId;
  claims.settled = await file("settled");
  await answerClaim(store, escrow, claims.settled);
  claims.defaulted = await file("defaulted");
  claims.overdue = await file("overdue");
  await chain.testClient.increaseTime({ seconds: 3 * 24 * 3600 + 1 });
  await chain.testClient.mine({ blocks: 1 });
  await escrow.claimDefault(claims.defaulted);
  claims.open = await file("open");

  const aap3 = deployment.record.verifiers.find((v) => v.circuit === "aap3_n4")!;
  const seg = deployment.record.segmentVerifiers.find((v) => v.circuit === "aap3_seg8")!;
  [other.segmentOnly, other.segmentOnlyPromise] = await escrowWith({
    registry: [],
    segment: { segmentSize: 8, verifier: seg.address },
  });
  // MockVerifier3 answers `true` to every proof until told otherwise: an accept-everything segment verifier.
  const fake = (await deployContract(chain, chain.wallets[0], "MockVerifier3")).address;
  [other.fake, other.fakePromise] = await escrowWith({
    registry: [{ capacity: aap3.capacity, verifier: aap3.address }],
    segment: { segmentSize: 8, verifier: fake },
  });

  segmented.world = await segmentWorld();
  segmented.claimId = (await claimOn(segmented.world, 20, [17])).claimId;
  await answerSegmentedClaim(segmented.world.store, segmented.world.deployment.escrow, segmented.claimId, {
    prover: segmented.world.pool,
  });
  await segmented.world.close();

  // From here on, no build: the manifest (keys embedded, as setup writes it now) is a copy in another folder,
  // and compiled code comes from a cold cache.
  manifest = { ...loadManifest(), circuits: withEmbeddedKeys(loadManifest().circuits) };
  mkdirSync(join(dir, "elsewhere"));
  manifestFile = join(dir, "elsewhere", "manifest.json");
  writeFileSync(manifestFile, JSON.stringify(manifest));
  process.env.ZKVAI_BUILD_DIR = join(dir, "no-checkout", "build");
  process.env.ZKVAI_CACHE_DIR = join(dir, "cache");
}, 600_000);

afterAll(async () => {
  const restore = (k: string, v: string | undefined) =>
    v === undefined ? delete process.env[k] : (process.env[k] = v);
  restore("ZKVAI_BUILD_DIR", savedBuildDir);
  restore("ZKVAI_CACHE_DIR", savedCacheDir);
  store?.close();
  await releaseProver();
});

const verify = (claimId: bigint, m: Manifest = manifest) =>
  verifySettlement({
    chain,
    escrow: deployment.escrow.address,
    fromBlock: 0n,
    claimId,
    manifest: m,
    manifestPath: manifestFile,
  });
const check = (
  m: Manifest = manifest,
  escrow: Address = deployment.escrow.address,
  id = promiseId,
  sessionId?: Hex,
) => checkPromise({ chain, escrow, promiseId: id, manifest: m, manifestPath: manifestFile, sessionId });

describe("with a manifest and the chain alone", () => {
  it("verify: the settlement is valid, and says its keys are INSECURE development keys", async () => {
    const cold = Date.now();
    const report = await verify(claims.settled);
    const coldMs = Date.now() - cold;
    expect(report).toMatchObject({ violated: true, circuit: "aap4_n8", insecureKeys: true });
    const checks = report.checks.join("\n");
    expect(checks).toMatch(/runs the Escrow compiled from this package's contracts\/Escrow.sol/);
    expect(checks).toMatch(/aap4_n8's verification key, embedded in the manifest, has the sha256 it records/);
    expect(checks).toMatch(/Verifier_aap4_n8.sol, regenerated from that key with snarkjs' template/);
    expect(checks).toMatch(/verifier \(≤ 8 records\) 0x[0-9a-fA-F]{40} runs exactly that code/);
    expect(checks).toMatch(/the Groth16 proof verifies locally/);
    // The second time every compiled code comes from the cache.
    const warm = Date.now();
    await verify(claims.settled);
    console.log(`verify, manifest only: ${coldMs} ms with a cold solc cache, ${Date.now() - warm} ms warm`);
    expect(Date.now() - warm).toBeLessThan(coldMs);
  });

  it("verify: a settlement by a chain of segment proofs, each verified under the manifest's segment key", async () => {
    const report = await verifySettlement({
      chain,
      escrow: segmented.world.deployment.escrow.address,
      fromBlock: 0n,
      claimId: segmented.claimId,
      manifest,
      manifestPath: manifestFile,
    });
    expect(report).toMatchObject({ violated: true, circuit: "aap3_seg8", insecureKeys: true });
    const checks = report.checks.join("\n");
    expect(checks).toMatch(/aap3_seg8's verification key, embedded in the manifest/);
    expect(checks).toMatch(
      /segment verifier \(segments of 8 records\) 0x[0-9a-fA-F]{40} runs exactly that code/,
    );
    expect(checks).toMatch(/all 3 segment proofs verify locally under aap3_seg8's key/);
  });

  it("promise check: the escrow, its Poseidon, the whole-claim verifiers and keys; insecure keys flagged", async () => {
    const report = await check();
    expect(report).toMatchObject({ predicate: "AAP-4", insecureKeys: true, covered: true });
    // Every AAP-4 whole-claim circuit the build holds was deployed (the test group builds aap4_n8), and its
    // segment circuit of 8 records when the build holds one (the bench-batch group builds aap4_seg8).
    const aap4 = Object.entries(manifest.circuits).filter(([, c]) => c.predicate === "AAP-4" && !c.kind);
    const aap4Segments = "aap4_seg8" in manifest.circuits ? 1 : 0;
    expect(report.verifiers.filter((v) => v.kind === "claim")).toHaveLength(aap4.length);
    expect(report.verifiers.filter((v) => v.kind !== "claim")).toHaveLength(aap4Segments);
    expect(report.verifiers).toContainEqual(
      expect.objectContaining({ kind: "claim", capacity: 8, circuit: "aap4_n8" }),
    );
    // Keys from a trusted ceremony (the manifest says so) are not flagged.
    const ceremony: Manifest = structuredClone(manifest);
    ceremony.ptau.insecure = false;
    for (const c of Object.values(ceremony.circuits)) c.insecureDevSetup = false;
    expect((await check(ceremony)).insecureKeys).toBe(false);
    expect((await verify(claims.settled, ceremony)).insecureKeys).toBe(false);
  });

  it("promise check --session: what the promise owes one session, from the escrow's storage", async () => {
    const escrow = deployment.escrow;
    // Free reserve for one more session, whatever the other tests' sessions hold.
    await escrow.fund(promiseId, parseEther("1"));
    const covered = await violatingSession("coverage-check", escrow);
    const report = await checkPromise({
      chain,
      escrow: escrow.address,
      promiseId,
      manifest,
      manifestPath: manifestFile,
      sessionId: covered,
    });
    expect(report.session).toMatchObject({
      sessionId: covered,
      user: chain.wallets[1].account.address,
      windowEnded: false,
      coverage: "earmarked",
      amount: parseEther("1"),
      openClaimId: null,
    });
    // Closed: claimable for 30 days from the close.
    expect(report.session!.claimDeadline).not.toBeNull();
    const claim = await escrow.as(chain.wallets[1]).fileClaim(covered, promiseId, BOND);
    const withClaim = await check(manifest, escrow.address, promiseId, covered);
    expect(withClaim.session).toMatchObject({ coverage: "earmarked", openClaimId: claim.claimId });

    // A session opened naming no promise is not covered, and says so.
    const bare = scopedSessionId(HARDHAT_ACCOUNT_0, "not-covered");
    const s = await Session.open({
      store,
      escrow,
      sessionId: bare,
      user: chain.wallets[1].account.address,
      profile: PROFILE,
      cover: [],
    });
    await s.close();
    expect((await check(manifest, escrow.address, promiseId, bare)).session).toMatchObject({
      coverage: "none",
      amount: 0n,
    });
    await expect(
      check(manifest, escrow.address, promiseId, scopedSessionId(HARDHAT_ACCOUNT_0, "never-opened")),
    ).rejects.toThrow(/was never opened/);
  });

  it("promise check: a promise served by its segment circuit alone is checked through its segment verifier", async () => {
    const report = await check(manifest, other.segmentOnly, other.segmentOnlyPromise);
    expect(report.predicate).toBe("AAP-3");
    expect(report.verifiers).toEqual([
      expect.objectContaining({ kind: "segment", capacity: 8, circuit: "aap3_seg8" }),
    ]);
    expect(report.checks.join("\n")).toMatch(
      /segment verifier \(segments of 8 records\) 0x[0-9a-fA-F]{40} runs exactly that code: the manifest's aap3_seg8/,
    );
  });

  it("promise check: an escrow whose segment verifier accepts every proof is refused", async () => {
    await expect(check(manifest, other.fake, other.fakePromise)).rejects.toThrow(
      new RegExp(
        "the on-chain code of segment verifier \\(segments of 8 records\\) 0x[0-9a-fA-F]{40} is not Verifier_aap3_seg8",
      ),
    );
    await expect(check(manifest, other.fake, other.fakePromise)).rejects.toBeInstanceOf(SettlementInvalid);
  });

  it("a tampered checksum or key fails promise check and verify alike", async () => {
    const entry = manifest.circuits.aap4_n8!;
    const forged = structuredClone(entry.verificationKey!);
    forged.vk_alpha_1 = forged.IC[0]!;
    const forgedSource = verifierSource(forged, "aap4_n8", entry.files.zkey.sha256);
    const cases: [string, (e: typeof entry) => void, RegExp][] = [
      [
        "vkey sha256",
        (e) => (e.files.vkey.sha256 = "0".repeat(64)),
        /the verification key .* embeds for aap4_n8 has sha256 [0-9a-f]{64}, but the entry records 0{64}/,
      ],
      [
        "verifier source sha256",
        (e) => (e.files.verifierSol.sha256 = "1".repeat(64)),
        /verifier source contracts\/generated\/Verifier_aap4_n8.sol: the manifest records sha256 1{64}, but regenerating it from aap4_n8's key with snarkjs' template \(snarkjs \S+\) gives [0-9a-f]{64}/,
      ],
      [
        "a forged key with its own sha256",
        (e) => {
          e.verificationKey = forged;
          e.files.vkey.sha256 = sha256(vkeyFileText(forged));
        },
        /verifier source .*: the manifest records sha256 [0-9a-f]{64}, but regenerating it from aap4_n8's key/,
      ],
      [
        "a forged key and the source made from it, both hashes recorded",
        (e) => {
          e.verificationKey = forged;
          e.files.vkey.sha256 = sha256(vkeyFileText(forged));
          e.files.verifierSol.sha256 = sha256(forgedSource);
        },
        /the on-chain code of verifier \(≤ 8 records\) 0x[0-9a-fA-F]{40} is not Verifier_aap4_n8 compiled from contracts\/generated\/Verifier_aap4_n8.sol/,
      ],
      [
        "a key that is not a Groth16 key for 6 inputs",
        (e) => {
          e.verificationKey = { ...forged, nPublic: 3 };
          e.files.vkey.sha256 = sha256(vkeyFileText(e.verificationKey));
        },
        /aap4_n8's verification key is not a bn128 Groth16 key for 6 public inputs/,
      ],
    ];
    for (const [what, edit, reason] of cases) {
      const m: Manifest = structuredClone(manifest);
      edit(m.circuits.aap4_n8!);
      await expect(check(m), what).rejects.toThrow(reason);
      await expect(verify(claims.settled, m), what).rejects.toThrow(reason);
      await expect(verify(claims.settled, m), what).rejects.toBeInstanceOf(SettlementInvalid);
    }
  });

  it("a manifest without embedded keys names what is missing; one pointing outside its build is refused", async () => {
    const old: Manifest = structuredClone(manifest);
    for (const c of Object.values(old.circuits)) delete c.verificationKey;
    const missing = verify(claims.settled, old);
    await expect(missing).rejects.toBeInstanceOf(SettlementUncheckable);
    await expect(verify(claims.settled, old)).rejects.toThrow(
      /embeds no verification key for aap4_n8 \(it was written before setup embedded keys\), and the key file build\/circuits\/aap4_n8\/aap4_n8.vkey.json it names is not here/,
    );
    await expect(check(old)).rejects.toBeInstanceOf(SettlementUncheckable);
    old.circuits.aap4_n8!.files.vkey.path = "../../../../etc/passwd";
    await expect(check(old)).rejects.toThrow(
      /names verification key \.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd, outside the build/,
    );
  });

  it("no such claim, not settled yet and defaulted are told apart from NOT valid", async () => {
    const outcome = (claimId: bigint) =>
      verify(claimId).then(
        () => undefined,
        (e: unknown) => e,
      );
    const none = await outcome(999n);
    expect(none).toBeInstanceOf(NoSuchClaim);
    expect((none as NoSuchClaim).code).toBe("NO_SUCH_CLAIM");
    const open = await outcome(claims.open);
    expect(open).toBeInstanceOf(ClaimNotSettled);
    expect(open).toMatchObject({ state: "open", code: "CLAIM_NOT_SETTLED" });
    expect((open as Error).message).toMatch(
      /is not settled yet: it is open, and its proof window runs until \d{4}-\d\d-\d\dT/,
    );
    const overdue = await outcome(claims.overdue);
    expect(overdue).toMatchObject({ state: "overdue" });
    expect((overdue as Error).message).toMatch(/no proof came within its proof window \(ended \d{4}-/);
    const defaulted = await outcome(claims.defaulted);
    expect(defaulted).toMatchObject({ state: "defaulted" });
    expect((defaulted as Error).message).toMatch(
      /was not settled by a proof: it defaulted.*1\.1 ETH went to 0x/,
    );
    for (const e of [none, open, overdue, defaulted]) expect(e).not.toBeInstanceOf(SettlementInvalid);
  });
});
