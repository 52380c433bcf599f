// The whole `vai` flow as separate processes against a real `hardhat node`: deploy → promise register →
// (a session recorded through the SDK) → claim file → prove → claim status → verify, and verify and promise
// check catching a tampered manifest or key; verify's own answers for claims no proof settled. Two proofs (aap4_n8). Then `vai node` itself, and the default path.
import { devRpcChain, type DevChainHandle } from "../../sdk/dev/embedded.js";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { parseEther, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EscrowClient, scopedSessionId } from "../../sdk/chain/escrow.js";
import { privateKeyWallet } from "../../sdk/chain/network.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { loadManifest } from "../../sdk/manifest/manifest.js";
import { freePort, startHardhatNode, type HardhatNode } from "../../sdk/dev/hardhat-node.js";
import { DEV_KEYS, tempWorkspace, vai, vaiInProcess } from "./cli-helpers.js";
import { startPostgres } from "../../scripts/lib/private-postgres.js";

const PROFILE = { version: 1, tools: { read: {}, send_email: { target: "to" } } } as const;
const PROVIDER_KEY = DEV_KEYS[3];
const provider = privateKeyToAccount(PROVIDER_KEY).address;

let node: HardhatNode;
let chain: DevChainHandle;
let dir: string;
let env: Record<string, string>;
const json = (out: string) => JSON.parse(out) as Record<string, any>;

beforeAll(async () => {
  node = await startHardhatNode();
  chain = await devRpcChain(node.url);
  const ws = tempWorkspace("zkvai-cli-flow-");
  dir = ws.dir;
  env = {
    ...ws.env,
    VAI_RPC_URL: node.url,
    VAI_DEPLOYMENT: join(dir, "deployment.json"),
    VAI_STORE: join(dir, "store.sqlite"),
    // The provider signs with a key (the way onto a public chain); the user is the node's 2nd unlocked account.
    VAI_PRIVATE_KEY: PROVIDER_KEY,
  };
});

afterAll(async () => {
  await node?.stop();
});

/** A session recorded through the SDK by the provider, into the store the CLI uses. */
async function recordSession(label: string, recipients: string[]): Promise<Hex> {
  const deployment = json(readFileSync(env.VAI_DEPLOYMENT, "utf8"));
  const escrow = await EscrowClient.connect(chain, deployment.escrow, privateKeyWallet(chain, PROVIDER_KEY), {
    fromBlock: BigInt(deployment.fromBlock),
  });
  const store = TraceStore.open(env.VAI_STORE);
  // Scoped to the provider's key, the account that opens it (sdk/chain/escrow.ts scopedSessionId).
  const sessionId = scopedSessionId(escrow.wallet!.account!.address, label);
  const user = chain.wallets[1].account.address;
  const rec = await Session.open({
    store,
    escrow,
    sessionId,
    user,
    profile: PROFILE,
    policy: { everyRecords: Infinity, everyMs: Infinity },
  });
  rec.append({ kind: "call", tool: "read", args: {}, result: "inbox" });
  await rec.checkpointNow();
  for (const to of recipients) rec.append({ kind: "call", tool: "send_email", args: { to }, result: "sent" });
  await rec.close();
  store.close();
  return sessionId;
}

describe("vai, provider to user, on a hardhat node", () => {
  let sessionId: Hex;
  let claimId: string;

  it("deploy writes the deployment file, sending from VAI_PRIVATE_KEY's account", async () => {
    const r = await vai(["deploy", "--json", "--receipt-window", "0"], env);
    expect(r.code, r.err).toBe(0);
    const d = json(r.out);
    expect(d).toMatchObject({
      chainId: 31337,
      rpcUrl: node.url,
      deployer: provider,
      checkpointInterval: 10,
      receiptWindow: 0,
    });
    expect(d.verifiers.map((v: { circuit: string }) => v.circuit)).toContain("aap4_n8");
    const manifestSha = createHash("sha256").update(readFileSync("build/manifest.json")).digest("hex");
    expect(d.manifestSha256).toBe(manifestSha);
    const { deploymentFile, ...written } = d;
    expect(deploymentFile).toBe(env.VAI_DEPLOYMENT);
    expect(json(readFileSync(env.VAI_DEPLOYMENT, "utf8"))).toEqual(written);
    expect(await chain.publicClient.getCode({ address: d.escrow })).toMatch(/^0x[0-9a-f]{100,}/);
  });

  it("promise register puts θ in the store; fund and show read it back", async () => {
    const promiseFile = join(dir, "promise.json");
    writeFileSync(
      promiseFile,
      JSON.stringify({
        predicate: "AAP-4",
        params: { outboundTools: ["send_email"], allowlist: ["alice@a.example"] },
        profile: PROFILE,
        payout: "1",
      }),
    );
    const r = await vai(["promise", "register", "--file", promiseFile, "--reserve", "2", "--json"], env);
    expect(r.code, r.err).toBe(0);
    expect(json(r.out)).toMatchObject({
      promiseId: "1",
      predicate: "AAP-4",
      payout: String(parseEther("1")),
    });

    const funded = await vaiInProcess(["promise", "fund", "1", "--amount", "0.5", "--json"], env);
    expect(funded.code, funded.err).toBe(0);
    const show = await vaiInProcess(["promise", "show", "1", "--json"], env);
    expect(json(show.out)).toMatchObject({
      provider,
      predicate: "AAP-4",
      reserve: String(parseEther("2.5")),
      // Every AAP-4 circuit this checkout has built, smallest first (CI builds only the test group).
      verifiers: Object.entries(loadManifest().circuits)
        .filter(([, c]) => c.predicate === "AAP-4" && c.kind !== "segment")
        .map(([circuit, c]) => ({ circuit, capacity: 2 ** Number(c.params.depth) }))
        .sort((a, b) => a.capacity - b.capacity),
      store: { thetaStored: true, thetaMatchesParamsHash: true },
    });
  });

  it("session show: every on-chain root is reproduced by the store", async () => {
    sessionId = await recordSession("violating", ["alice@a.example", "eve@evil.example"]);
    const r = await vai(["session", "show", sessionId, "--json"], env);
    expect(r.code, r.err).toBe(0);
    const s = json(r.out);
    expect(s).toMatchObject({ closed: true, finalN: 3, store: { records: 3, reproducesAll: true } });
    expect(s.checkpoints.map((c: { kind: string; n: number }) => [c.kind, c.n])).toEqual([
      ["checkpoint", 1],
      ["final", 3],
    ]);
  });

  it("claim file (as the user), prove --dry-run sends nothing, prove settles, claim status says so", async () => {
    const filed = await vai(["claim", "file", sessionId, "--promise", "1", "--bond", "0.1", "--json"], env);
    expect(filed.code, filed.err).toBe(0);
    claimId = json(filed.out).claimId;
    expect(claimId).toBe("1");

    const block = await chain.publicClient.getBlockNumber();
    const dry = await vai(["prove", claimId, "--dry-run", "--json"], env);
    expect(dry.code, dry.err).toBe(0);
    expect(json(dry.out)).toMatchObject({
      settled: false,
      circuit: "aap4_n8",
      verdict: { violated: true, seq: 2 },
    });
    expect(dry.err).toMatch(/prove violated with aap4_n8/);
    expect(await chain.publicClient.getBlockNumber()).toBe(block);

    const user = chain.wallets[1].account.address;
    const escrow = await EscrowClient.connect(chain, json(readFileSync(env.VAI_DEPLOYMENT, "utf8")).escrow);
    const before = await escrow.credits(user);
    const proved = await vai(["prove", claimId, "--json"], env);
    expect(proved.code, proved.err).toBe(0);
    expect(json(proved.out)).toMatchObject({ settled: true, beneficiary: user });
    expect((await escrow.credits(user)) - before).toBe(parseEther("1.1"));

    const status = await vai(["claim", "status", claimId, "--json"], env);
    expect(json(status.out)).toMatchObject({
      status: "settled",
      resolution: { event: "ClaimSettled", violated: true, beneficiary: user },
    });
  }, 240_000);

  it("verify: valid against the real manifest", async () => {
    const r = await vai(["verify", claimId], env);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // The test build's keys are development keys: valid, and said to prove nothing.
    expect(r.out).toBe(
      `settlement valid under INSECURE development keys: anyone can forge proofs against them, so it shows nothing about the session (violation proven for session ${sessionId}, promise 1)\n`,
    );
    expect(r.out).not.toMatch(/trustworthy/);
    // Every check compiles the verifier's source and trusts no build output (--recompile is kept for scripts).
    const strict = await vaiInProcess(["verify", claimId, "--recompile", "--verbose", "--json"], env);
    expect(strict.code, strict.out).toBe(0);
    const report = json(strict.out);
    expect(report).toMatchObject({ valid: true, insecureKeys: true, circuit: "aap4_n8" });
    expect(report.checks).toContain(
      "compiling contracts/generated/Verifier_aap4_n8.sol (solc 0.8.28, optimizer 200 runs, evm cancun) gives Verifier_aap4_n8's runtime code",
    );
    expect(report.checks).toHaveLength(11);
  });

  it("promise check: a user checks the escrow, its Poseidon and every verifier before relying on a promise", async () => {
    const ok = await vaiInProcess(["promise", "check", "1", "--verbose"], env);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(
      /^promise 1 checks out under INSECURE development keys: anyone can forge proofs against them, so its settlements prove nothing: AAP-4, escrow, Poseidon\(3\) and \d+ verifier\(s\) match the manifest/,
    );
    expect(ok.out).not.toMatch(/trustworthy/);
    expect(ok.out).toMatch(
      /✓ verifier \(≤ 8 records\) 0x[0-9a-fA-F]{40} runs exactly that code: the manifest's aap4_n8/,
    );
    const asJson = json((await vaiInProcess(["promise", "check", "1", "--json"], env)).out);
    expect(asJson).toMatchObject({ checksOut: true, insecureKeys: true });
    expect(asJson).not.toHaveProperty("trustworthy");
    // A manifest whose AAP-4 circuit names another verifier: the on-chain code no longer matches.
    const manifest = json(readFileSync("build/manifest.json", "utf8"));
    manifest.circuits.aap4_n8.verifierContract = "Verifier_aap1_n4";
    manifest.circuits.aap4_n8.files.verifierSol = manifest.circuits.aap1_n4.files.verifierSol;
    const swapped = join(dir, "swapped-verifier.json");
    writeFileSync(swapped, JSON.stringify(manifest));
    const bad = await vaiInProcess(["promise", "check", "1", "--manifest", swapped], env);
    expect(bad.code).toBe(1);
    expect(bad.out.trim()).toMatch(
      /^promise 1 NOT safe to rely on: verification key of aap4_n8 is not the one hard-coded in contracts\/generated\/Verifier_aap1_n4.sol \(\w+ differs\)/,
    );
  });

  it("verify: NOT valid, with the reason, against a tampered manifest or key", async () => {
    const manifest = json(readFileSync("build/manifest.json", "utf8"));
    const tampered = (name: string, edit: (m: any) => void) => {
      const copy = structuredClone(manifest);
      edit(copy);
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify(copy));
      return path;
    };
    const vkeyPath = manifest.circuits.aap4_n8.files.vkey.path;
    // A key, embedded in the manifest, whose hash the manifest records faithfully, but which is not the
    // deployed verifier's.
    const forgedKey = json(readFileSync(vkeyPath, "utf8"));
    forgedKey.vk_alpha_1 = forgedKey.IC[0];
    const forgedSha = createHash("sha256")
      .update(JSON.stringify(forgedKey, null, 2) + "\n")
      .digest("hex");

    const cases: [string, RegExp][] = [
      [
        tampered("vkey-sha", (m) => (m.circuits.aap4_n8.files.vkey.sha256 = "0".repeat(64))),
        // setup embeds each key in the manifest: its bytes no longer hash to the recorded sha256.
        /the verification key .*vkey-sha.json embeds for aap4_n8 has sha256 [0-9a-f]{64}, but the entry records 0{64}/,
      ],
      [
        tampered("verifier", (m) => {
          m.circuits.aap4_n8.verifierContract = "Verifier_aap1_n4";
          m.circuits.aap4_n8.files.verifierSol = m.circuits.aap1_n4.files.verifierSol;
        }),
        /verification key of aap4_n8 is not the one hard-coded in contracts\/generated\/Verifier_aap1_n4.sol \(\w+ differs\)/,
      ],
      [
        tampered("forged-key", (m) => {
          m.circuits.aap4_n8.verificationKey = forgedKey;
          m.circuits.aap4_n8.files.vkey.sha256 = forgedSha;
        }),
        /verification key of aap4_n8 is not the one hard-coded in contracts\/generated\/Verifier_aap4_n8.sol \(alphax differs\)/,
      ],
    ];
    for (const [i, [path, reason]] of cases.entries()) {
      // The first through the bin, the others in-process: the same code, without two more process start-ups.
      const args = ["verify", claimId, "--manifest", path];
      const r = i === 0 ? await vai(args, env) : await vaiInProcess(args, env);
      expect(r.code, path).toBe(1);
      expect(r.out.trim(), path).toMatch(new RegExp(`^settlement NOT valid: ${reason.source}`));
      // promise check checks every checksum verify checks.
      const checked = await vaiInProcess(["promise", "check", "1", "--manifest", path], env);
      expect(checked.code, path).toBe(1);
      expect(checked.out.trim(), path).toMatch(
        new RegExp(`^promise 1 NOT safe to rely on: ${reason.source}`),
      );
    }
  });

  it("claim default pays after the proof window, and verify refuses a claim no proof settled", async () => {
    const s2 = await recordSession("unanswered", ["alice@a.example"]);
    const filed = await vaiInProcess(["claim", "file", s2, "--promise", "1", "--bond", "0.2", "--json"], env);
    expect(filed.code, filed.err).toBe(0);
    const id = json(filed.out).claimId as string;
    // verify tells a claim with no proof yet, and one that does not exist, from an invalid settlement: exit 3.
    const pending = await vaiInProcess(["verify", id], env);
    expect(pending.code).toBe(3);
    expect(pending.out.trim()).toMatch(
      new RegExp(
        `^claim ${id} is not settled yet: it is open, and its proof window runs until \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    const missing = await vaiInProcess(["verify", "99", "--json"], env);
    expect(missing.code).toBe(3);
    expect(json(missing.out)).toMatchObject({
      valid: false,
      verdict: "no-such-claim",
      code: "NO_SUCH_CLAIM",
    });
    const early = await vaiInProcess(["claim", "default", id], env);
    expect(early.code).toBe(1);
    // Said before sending, in a date and a wait (issue 33 item 9), not as a raw Unix timestamp.
    expect(early.err.trim()).toMatch(
      new RegExp(
        `^vai claim default: claim ${id} cannot default yet: the provider's proof window is open until \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z, (3 d|2 d 23 h \\d+ min) from now \\(chain time\\)`,
      ),
    );

    await chain.testClient.increaseTime({ seconds: 3 * 24 * 3600 });
    await chain.testClient.mine({ blocks: 1 });
    const paid = await vaiInProcess(["claim", "default", id, "--json"], env);
    expect(paid.code, paid.err).toBe(0);
    expect(json(paid.out)).toMatchObject({
      beneficiary: chain.wallets[1].account.address,
      amount: String(parseEther("1.2")),
    });
    const status = await vaiInProcess(["claim", "status", id, "--json"], env);
    expect(json(status.out)).toMatchObject({ status: "defaulted", resolution: { event: "ClaimDefaulted" } });
    const verified = await vaiInProcess(["verify", id], env);
    expect(verified.code).toBe(3);
    expect(verified.out.trim()).toBe(
      `claim ${id} was not settled by a proof: it defaulted, no proof came within its proof window: 1.2 ETH went to ${chain.wallets[1].account.address}`,
    );

    const retired = await vaiInProcess(["promise", "retire", "1"], env);
    expect(retired.code, retired.err).toBe(0);
    expect(json((await vaiInProcess(["promise", "show", "1", "--json"], env)).out).retiredAt).not.toBe("0");
  });
});

describe("vai claim file against an earmarked reserve", () => {
  it("refuses, in one line, a claim on a session the promise's free reserve could not cover at open", async () => {
    const promiseFile = join(dir, "thin-promise.json");
    writeFileSync(
      promiseFile,
      JSON.stringify({
        predicate: "AAP-4",
        theta: { outboundTools: ["send_email"], allowlist: ["alice@a.example"] },
        profile: PROFILE,
        payout: "1",
      }),
    );
    const registered = await vaiInProcess(["promise", "register", "--file", promiseFile, "--json"], env);
    expect(registered.code, registered.err).toBe(0);
    const promiseId = json(registered.out).promiseId as string;
    // The reserve is one payout: the first session's open earmarks it, so the second opens uncovered by this
    // promise (SessionCovered covered=false) and a claim on it is refused at filing.
    const [first, second] = [await recordSession("thin-1", []), await recordSession("thin-2", [])];
    const filed = await vaiInProcess(
      ["claim", "file", first, "--promise", promiseId, "--bond", "0.3", "--json"],
      env,
    );
    expect(filed.code, filed.err).toBe(0);
    const refused = await vaiInProcess(
      ["claim", "file", second, "--promise", promiseId, "--bond", "0.3"],
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.err.trim()).toMatch(/^vai claim file: fileClaim reverted: NotCovered\(\)/);
    // The first claim still defaults in full.
    await chain.testClient.increaseTime({ seconds: 3 * 24 * 3600 });
    await chain.testClient.mine({ blocks: 1 });
    const claimId = json(filed.out).claimId as string;
    expect((await vaiInProcess(["claim", "default", claimId], env)).code).toBe(0);
    const status = await vaiInProcess(["claim", "status", claimId, "--json"], env);
    expect(json(status.out)).toMatchObject({ status: "defaulted", resolution: { event: "ClaimDefaulted" } });
  });
});

describe("vai watch", () => {
  it("runs the claim watcher until SIGINT, logging JSON lines on stderr", async () => {
    const child = spawn(process.execPath, ["bin/vai.mjs", "watch", "--poll-ms", "100"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let err = "";
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (d) => {
        err += d;
        if (err.includes('"watcher.started"')) resolve();
      });
      void exited.then((code) => reject(new Error(`vai watch exited (${code}): ${err}`)));
    });
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    const events = err
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l).event);
    expect(events[0]).toBe("watcher.started");
    expect(events).toContain("watcher.stopped");
  });

  it("on a Postgres store: a second watcher waits as standby and takes the lease over when the first stops", async () => {
    const cluster = await startPostgres();
    try {
      expect((await vaiInProcess(["store", "migrate", "--store", cluster.url], env)).code).toBe(0);
      const watch = (name: string) => {
        const child = spawn(
          process.execPath,
          [
            "bin/vai.mjs",
            "watch",
            "--poll-ms",
            "100",
            "--lease-ms",
            "1000",
            "--state",
            join(dir, `${name}.sqlite`),
          ],
          { env: { ...process.env, ...env, VAI_STORE: cluster.url }, stdio: ["ignore", "pipe", "pipe"] },
        );
        const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
        let err = "";
        child.stderr.on("data", (d) => (err += d));
        const waitFor = async (event: string) => {
          const end = Date.now() + 60_000;
          while (!err.includes(`"event":"${event}"`)) {
            if (child.exitCode !== null || Date.now() > end)
              throw new Error(`vai watch (${name}): no ${event}: ${err}`);
            await new Promise((r) => setTimeout(r, 50));
          }
          return err.split("\n").find((l) => l.includes(`"event":"${event}"`))!;
        };
        return { child, exited, waitFor, err: () => err };
      };
      const first = watch("pg-first");
      await first.waitFor("lease.acquired");
      const second = watch("pg-second");
      expect(JSON.parse(await second.waitFor("lease.standby")).message).toMatch(
        /^standby: lease held by host .+ pid \d+ until \d{4}-/,
      );
      expect(second.err()).not.toContain('"lease.acquired"');
      first.child.kill("SIGINT");
      expect(await first.exited).toBe(0);
      expect(first.err()).toContain('"event":"lease.released"');
      expect(JSON.parse(await second.waitFor("lease.acquired")).message).toMatch(/^took over the lease/);
      second.child.kill("SIGINT");
      expect(await second.exited).toBe(0);
    } finally {
      await cluster.stop();
    }
  });
});

describe("vai node", () => {
  it("starts a chain, deploys, writes the deployment file, and stops on SIGINT", async () => {
    const port = await freePort();
    const deploymentFile = join(dir, "node-deployment.json");
    const child = spawn(process.execPath, ["bin/vai.mjs", "node", "--port", String(port)], {
      env: { ...process.env, VAI_DEPLOYMENT: deploymentFile, VAI_CONFIG: env.VAI_CONFIG },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let out = "";
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("Ctrl-C stops it")) resolve();
      });
      void exited.then((code) => reject(new Error(`vai node exited (${code}): ${err}`)));
    });
    const d = json(readFileSync(deploymentFile, "utf8"));
    expect(d).toMatchObject({ chainId: 31337, rpcUrl: `http://127.0.0.1:${port}` });
    expect(out).toContain(`escrow     ${d.escrow}`);
    // Without VAI_RPC_URL the commands find the node through the deployment file.
    const show = await vaiInProcess(["promise", "show", "1"], {
      VAI_DEPLOYMENT: deploymentFile,
      VAI_CONFIG: env.VAI_CONFIG,
    });
    expect(show.err.trim()).toBe("vai promise show: getPromise reverted: UnknownPromise(1)");

    child.kill("SIGINT");
    expect(await exited).toBe(0);
    const after = await vaiInProcess(["promise", "show", "1"], {
      VAI_DEPLOYMENT: deploymentFile,
      VAI_CONFIG: env.VAI_CONFIG,
    });
    expect(after.err).toMatch(/cannot reach a JSON-RPC node/);
  });
});
