// The check page (sdk/page) in a real browser: Debian's chromium driven by playwright-core, against a `hardhat
// node` with zkVAI deployed. Each case opens the page from a link (?rpc=…&escrow=…&claim=…) and reads its
// one-line verdict: a satisfied claim, a violated claim, a segment chain, a default, an overdue and an open
// claim, a claim settled through a verifier that is not the manifest's, a manifest from a URL, an RPC that is
// down (and a wrong chain, an address with no escrow), a claim that does not exist, a good and a forged receipt,
// and a promise (with its document). Every claim's verdict is also `verifySettlement`'s (what `vai verify` runs)
// in Node, and the receipt's `vai receipt check`'s, so page and CLI are held to the same answer. Screenshots of
// the main states go to docs/page/ when ZKVAI_PAGE_SCREENSHOTS=1.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { parseEther, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployEscrow, EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import { deployContract } from "../../sdk/chain/artifacts.js";
import { rpcChain, type ChainHandle } from "../../sdk/chain/network.js";
import { receiptToJson } from "../../sdk/chain/receipts.js";
import { checkpointSlots, CHECKPOINT_INTERVAL } from "../../sdk/core/checkpoints.js";
import { predicateById } from "../../sdk/core/predicates/index.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { startHardhatNode, freePort, type HardhatNode } from "../../sdk/dev/hardhat-node.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { answerClaim } from "../../prover/claims.js";
import { answerSegmentedClaim } from "../../prover/segments/claims.js";
import { LocalSegmentPool } from "../../prover/segments/pool.js";
import { deployZkVai, type ZkVaiDeployment } from "../../prover/artifacts/deploy.js";
import { releaseProver } from "../../prover/prove.js";
import { verifySettlement } from "../../sdk/user/verify-settlement.js";
import { validLine, verdictOf } from "../../sdk/user/verdict.js";
import { servePage } from "../../bin/cli/page.js";
import { buildPage } from "../../scripts/build-page.js";
import { HARDHAT_ACCOUNT_0 } from "../helpers/accounts.js";
import type { Manifest } from "../../sdk/manifest/manifest.js";
import { writeDeployment } from "../../sdk/chain/deployment.js";
import { vaiInProcess } from "../cli/cli-helpers.js";

const CHROMIUM = "/usr/bin/chromium";
const PROFILE: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
const THETA = { outboundTools: ["send_email"], allowlist: ["alice@a.example"] };
const BOND = parseEther("0.1");
const SHOTS = process.env.ZKVAI_PAGE_SCREENSHOTS === "1" ? join(process.cwd(), "docs", "page") : undefined;

let node: HardhatNode;
let chain: ChainHandle;
let deployment: ZkVaiDeployment;
let store: TraceStore;
let otherStore: TraceStore;
let server: Server;
let pageUrl: string;
let browser: Browser;
let page: Page;
let promiseId: bigint;
const claims = {} as Record<
  "satisfied" | "violated" | "defaulted" | "overdue" | "open" | "fakeVerifier" | "segmented",
  bigint
>;
/** Each in-browser Groth16 verification (ms), for docs/BENCHMARKS.md. */
const proofTimes: { what: string; ms: number[] }[] = [];
let fakeEscrow: Address;
let tamperedManifest: Manifest;
let receiptJson: string;

async function session(
  label: string,
  escrow: EscrowClient,
  s: TraceStore,
  to: string,
): Promise<{ sessionId: Hex; receipt: string }> {
  const sessionId = scopedSessionId(HARDHAT_ACCOUNT_0, label);
  const user = chain.wallets[1].account.address;
  const sess = await Session.open({ store: s, escrow, sessionId, user, profile: PROFILE });
  await sess.call("read", {}, async () => "inbox");
  await sess.call("send_email", { to }, async () => "sent");
  const receipt = receiptToJson(await sess.receipt());
  await sess.close();
  return { sessionId, receipt };
}

const rpc = (method: string, params: unknown[] = []) =>
  chain.publicClient.request({ method: method as never, params: params as never });

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  const built = await buildPage({ out: mkdtempSync(join(tmpdir(), "zkvai-page-")) });
  // A manifest a user might be handed instead of the page's own: aap4_n8's key checksum altered.
  const tampered = JSON.parse(readFileSync(join(built.out, "manifest.json"), "utf8")) as Manifest;
  tampered.circuits.aap4_n8!.files.vkey.sha256 = "0".repeat(64);
  writeFileSync(join(built.out, "tampered.json"), JSON.stringify(tampered));
  tamperedManifest = tampered;
  server = await servePage(built.out, 0, "127.0.0.1");
  pageUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  node = await startHardhatNode();
  chain = await rpcChain(node.url);
  deployment = await deployZkVai(chain, chain.wallets[0], { receiptWindow: 0, segmentSize: 8 });
  const escrow = deployment.escrow;
  const dir = mkdtempSync(join(tmpdir(), "zkvai-page-test-"));
  store = TraceStore.open(join(dir, "store.sqlite"));
  const spec = { predicate: "AAP-4", theta: THETA, profile: PROFILE, payout: parseEther("1") };
  promiseId = (
    await registerPromise(deployment.record, escrow, store, { ...spec, reserve: parseEther("10") })
  ).promiseId;
  const asUser = escrow.as(chain.wallets[1]);
  const file = async (label: string, to: string) =>
    (await asUser.fileClaim((await session(label, escrow, store, to)).sessionId, promiseId, BOND)).claimId;
  claims.satisfied = await file("satisfied", "alice@a.example");
  await answerClaim(store, escrow, claims.satisfied);
  claims.violated = await file("violated", "eve@evil.example");
  await answerClaim(store, escrow, claims.violated);
  // A claim settled by a chain of segment proofs (aap3_seg8): 20 payments, the 18th to a stranger.
  const pay = { payTools: ["pay"], merchants: ["m", "shop"], cap: "100" };
  const payProfile = {
    version: 1,
    tools: { pay: { target: "to", amount: { key: "wei", decimals: 0 } }, search: {} },
  } as unknown as EncodingProfile;
  const aap3Promise = (
    await registerPromise(deployment.record, escrow, store, {
      predicate: "AAP-3",
      theta: pay,
      profile: payProfile,
      payout: parseEther("1"),
      reserve: parseEther("5"),
    })
  ).promiseId;
  const segSessionId = scopedSessionId(HARDHAT_ACCOUNT_0, "segmented");
  const segSession = await Session.open({
    store,
    escrow,
    sessionId: segSessionId,
    user: chain.wallets[1].account.address,
    profile: payProfile,
  });
  for (let i = 0; i < 20; i++)
    segSession.append({ kind: "call", tool: "pay", args: { to: i === 17 ? "stranger" : "shop", wei: "1" } });
  await segSession.close();
  claims.segmented = (await asUser.fileClaim(segSessionId, aap3Promise, BOND)).claimId;
  const pool = new LocalSegmentPool({ workers: 2 });
  try {
    await answerSegmentedClaim(store, escrow, claims.segmented, { prover: pool });
  } finally {
    await pool.close();
  }

  claims.defaulted = await file("defaulted", "eve@evil.example");
  claims.overdue = await file("overdue", "eve@evil.example");
  await rpc("evm_increaseTime", [3 * 24 * 3600 + 1]);
  await rpc("evm_mine");
  await escrow.claimDefault(claims.defaulted);
  const open = await session("open", escrow, store, "eve@evil.example");
  claims.open = (await asUser.fileClaim(open.sessionId, promiseId, BOND)).claimId;
  receiptJson = open.receipt;

  // An escrow whose AAP-4 verifier of 8 records accepts every proof (MockVerifier): a claim on it settles, and
  // the page must say that the verifier is not the manifest's.
  const mock = (await deployContract(chain, chain.wallets[0], "MockVerifier")).address;
  const aap4 = predicateById("AAP-4").code;
  ({ address: fakeEscrow } = await deployEscrow(chain, chain.wallets[0], {
    poseidon3: deployment.record.poseidon3,
    checkpointInterval: CHECKPOINT_INTERVAL,
    receiptWindow: 0,
    registry: [
      {
        predicateId: aap4,
        capacity: 8,
        checkpoints: checkpointSlots(8, CHECKPOINT_INTERVAL),
        verifier: mock,
      },
    ],
    segments: [],
  }));
  const fake = await EscrowClient.connect(chain, fakeEscrow, chain.wallets[0]);
  otherStore = TraceStore.open(join(dir, "other.sqlite"));
  const fakePromise = (
    await registerPromise(deployment.record, fake, otherStore, { ...spec, reserve: parseEther("5") })
  ).promiseId;
  const fakeSession = await session("fake", fake, otherStore, "eve@evil.example");
  claims.fakeVerifier = (
    await fake.as(chain.wallets[1]).fileClaim(fakeSession.sessionId, fakePromise, BOND)
  ).claimId;
  await answerClaim(otherStore, fake, claims.fakeVerifier);

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
}, 600_000);

afterAll(async () => {
  for (const t of proofTimes)
    console.log(`page: in-browser Groth16 verify (${t.what}): ${t.ms.map((ms) => `${ms} ms`).join(", ")}`);
  await browser?.close();
  server?.close();
  store?.close();
  otherStore?.close();
  await node?.stop();
  await releaseProver();
});

/** Opens the page from a link and waits for its verdict line. */
async function open(
  query: Record<string, string>,
  shot?: string,
  fill?: Record<string, string>,
): Promise<{ kind: string; line: string; ms: number }> {
  const started = Date.now();
  if (fill) {
    await page.goto(pageUrl);
    for (const [id, v] of Object.entries({ ...query, ...fill })) await page.fill(`#${id}`, v);
    await page.click("#check");
  } else await page.goto(`${pageUrl}?${new URLSearchParams(query)}`);
  await page.waitForFunction(
    () => !["idle", "working"].includes(document.getElementById("verdict")!.dataset.verdict!),
    null,
    { timeout: 120_000 },
  );
  const kind = (await page.locator("#verdict").getAttribute("data-verdict"))!;
  const line = (await page.locator("#verdict").textContent())!;
  const ms = await page.locator("#details").getAttribute("data-proof-ms");
  if (ms) proofTimes.push({ what: shot ?? JSON.stringify(query), ms: ms.split(",").map(Number) });
  if (SHOTS && shot) await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
  return { kind, line, ms: Date.now() - started };
}

const link = (claim: bigint, escrow: Address = deployment.escrow.address) => ({
  rpc: node.url,
  escrow,
  claim: String(claim),
});

/** What `vai verify` answers in Node for the same claim: its line. */
async function cliLine(
  claimId: bigint,
  escrow: Address = deployment.escrow.address,
  manifest?: Manifest,
): Promise<string> {
  try {
    return validLine(
      await verifySettlement({
        chain,
        escrow,
        fromBlock: 0n,
        claimId,
        ...(manifest ? { manifest, manifestPath: "tampered.json" } : {}),
      }),
    );
  } catch (e) {
    return verdictOf(e)?.line ?? `error: ${(e as Error).message}`;
  }
}

describe("the check page in chromium", () => {
  it("a satisfied claim: valid, verified in the browser, as vai verify says", async () => {
    const v = await open(link(claims.satisfied), "satisfied");
    expect(v.kind).toBe("valid");
    expect(v.line).toMatch(/^settlement valid under INSECURE development keys.*satisfaction proven/);
    expect(v.line).toBe(await cliLine(claims.satisfied));
    const details = await page.locator("#details").textContent();
    expect(details).toMatch(/the Groth16 proof verifies locally under aap4_n8's key/);
    expect(details).toMatch(/checkpoint|close/);
    expect(await page.locator("#source").textContent()).toMatch(/sha256 [0-9a-f]{64}/);
    console.log(`page: satisfied claim checked in ${v.ms} ms (page load, chain reads, Groth16 verify)`);
  });

  it("a violated claim: valid, the user paid payout + bond", async () => {
    const v = await open(link(claims.violated), "violated");
    expect(v.kind).toBe("valid");
    expect(v.line).toMatch(/violation proven/);
    expect(v.line).toBe(await cliLine(claims.violated));
    expect(await page.locator("#details").textContent()).toMatch(
      /1\.1 ETH to 0x[0-9a-fA-F]{40} \(the user\)/,
    );
  });

  it("a claim settled by a chain of segment proofs: every link verified in the browser", async () => {
    const v = await open(link(claims.segmented), "segmented");
    expect(v.kind).toBe("valid");
    expect(v.line).toMatch(/violation proven/);
    expect(v.line).toBe(await cliLine(claims.segmented));
    expect(await page.locator("#details").textContent()).toMatch(
      /all 3 segment proofs verify locally under aap3_seg8's key/,
    );
    expect(proofTimes.at(-1)?.ms.length).toBe(3);
  });

  it("a default: no proof came, the user was paid", async () => {
    const v = await open(link(claims.defaulted), "defaulted");
    expect(v.kind).toBe("defaulted");
    expect(v.line).toMatch(/was not settled by a proof: it defaulted/);
    expect(v.line).toBe(await cliLine(claims.defaulted));
  });

  it("an overdue claim: no proof came and nobody has called claimDefault yet", async () => {
    const v = await open(link(claims.overdue));
    expect(v.kind).toBe("not-settled");
    expect(v.line).toMatch(
      /no proof came within its proof window \(ended \d{4}-.*\); anyone may now call claimDefault/,
    );
    expect(v.line).toBe(await cliLine(claims.overdue));
  });

  it("an open claim: pending, with its deadline", async () => {
    const v = await open(link(claims.open), "pending");
    expect(v.kind).toBe("pending");
    expect(v.line).toMatch(/^pending: claim \d+ is not settled yet: .* runs until \d{4}-/);
  });

  it("a claim settled through a verifier that is not the manifest's: NOT valid, as vai verify says", async () => {
    const v = await open(link(claims.fakeVerifier, fakeEscrow), "wrong-verifier");
    expect(v.kind).toBe("invalid");
    expect(v.line).toMatch(/settlement NOT valid: the on-chain code of verifier .* is not Verifier_aap4_n8/);
    expect(v.line).toBe(await cliLine(claims.fakeVerifier, fakeEscrow));
  });

  it("a manifest from a URL the user gives: named with its sha256, and its altered key checksum caught", async () => {
    const v = await open({ ...link(claims.satisfied), manifest: "./tampered.json" });
    expect(await page.locator("#source").textContent()).toMatch(
      /^manifest: \.\/tampered\.json, sha256 [0-9a-f]{64}/,
    );
    expect(v.kind).toBe("invalid");
    expect(v.line).toMatch(/^settlement NOT valid: the verification key .* embeds for aap4_n8 has sha256/);
    expect(v.line).toBe(await cliLine(claims.satisfied, deployment.escrow.address, tamperedManifest));
  });

  it("a claim id that does not exist", async () => {
    const v = await open(link(999n));
    expect(v.kind).toBe("no-such-claim");
    expect(v.line).toBe(`claim 999 does not exist on escrow ${deployment.escrow.address}`);
    expect(v.line).toBe(await cliLine(999n));
  });

  it("an RPC that is down, and an address with no escrow, in plain words", async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const v = await open({ ...link(claims.satisfied), rpc: down }, "rpc-down");
    expect(v.kind).toBe("error");
    expect(v.line).toMatch(new RegExp(`^the JSON-RPC endpoint ${down} does not answer`));
    const other = await open({ ...link(claims.satisfied), chain: "1" });
    expect(other.line).toBe(
      `the JSON-RPC endpoint ${node.url} serves chain 31337, not chain 1: a wrong RPC URL for this escrow`,
    );
    const none = await open(link(1n, "0x000000000000000000000000000000000000dEaD"));
    expect(none.line).toMatch(
      /^there is no contract at 0x000000000000000000000000000000000000dEaD on chain 31337/,
    );
  });

  it("a receipt: the right one checks out, a tampered one is refused", async () => {
    const base = { rpc: node.url, escrow: deployment.escrow.address };
    const good = await open(base, "receipt", { receipt: receiptJson });
    expect(good.kind).toBe("valid");
    expect(good.line).toMatch(/^receipt valid: receipt for the first 2 records of session 0x/);
    // Closed, with a claim filed and no receipt window (this deployment's): the spare's deadline has passed.
    expect(good.line).toMatch(
      /the receipt window ended at \d{4}-.*: it can be posted only while no claim on the session has been filed$/,
    );
    const forged = JSON.stringify({ ...JSON.parse(receiptJson), n: 1 });
    const bad = await open(base, undefined, { receipt: forged });
    expect(bad.kind).toBe("invalid");
    expect(bad.line).toMatch(/^receipt NOT valid: the escrow would refuse this receipt/);

    // `vai receipt check` says the same, from the same code (sdk/user/receipt-check.ts).
    const dir = mkdtempSync(join(tmpdir(), "zkvai-page-receipt-"));
    writeDeployment(join(dir, "deployment.json"), deployment.record);
    writeFileSync(join(dir, "good.json"), receiptJson);
    writeFileSync(join(dir, "forged.json"), forged);
    const cli = (file: string) =>
      vaiInProcess([
        "receipt",
        "check",
        join(dir, file),
        "--rpc-url",
        node.url,
        "--deployment",
        join(dir, "deployment.json"),
      ]);
    const ok = await cli("good.json");
    expect(ok.code, ok.err).toBe(0);
    expect(
      `receipt valid: ${ok.out
        .trim()
        .split("\n")
        .map((l) => l.trim())
        .join(" ")}`,
    ).toBe(good.line);
    const refused = await cli("forged.json");
    expect(refused.code).toBe(2);
    expect(refused.err.trim()).toBe(`vai receipt check: ${bad.line.replace(/^receipt NOT valid: /, "")}`);
  });

  it("a promise: its terms, θ against the params hash, every verifier the manifest's", async () => {
    const base = { rpc: node.url, escrow: deployment.escrow.address, promise: String(promiseId) };
    const doc = JSON.stringify({ predicate: "AAP-4", params: THETA, profile: PROFILE });
    const v = await open(base, "promise", { promiseDoc: doc });
    expect(v.kind).toBe("valid");
    expect(v.line).toMatch(/^promise \d+ valid: AAP-4, escrow and every verifier are the manifest's/);
    expect(await page.locator("#details").textContent()).toMatch(/hashes to the on-chain params hash/);
    const wrong = JSON.stringify({
      predicate: "AAP-4",
      params: { ...THETA, allowlist: ["eve@evil.example"] },
    });
    const w = await open(base, undefined, { promiseDoc: wrong });
    expect(w.kind).toBe("invalid");
    expect(w.line).toMatch(
      /promise NOT as documented: θ in the document hashes to 0x[0-9a-f]+, not the on-chain/,
    );
  });
});
