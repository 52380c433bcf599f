// `vai` refuses bad input and bad configuration with exit code 2 and one line naming the problem, before it
// sends anything: checked against a live node with zkVAI deployed, whose block number must not move.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcChain, type ChainHandle } from "../../sdk/chain/network.js";
import { startHardhatNode, type HardhatNode } from "../../sdk/dev/hardhat-node.js";
import { writeDeployment } from "../../sdk/chain/deployment.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { pooled, tempWorkspace, vai, vaiInProcess, type VaiRun } from "./cli-helpers.js";

let node: HardhatNode;
let chain: ChainHandle;
let env: Record<string, string>;
let dir: string;
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};
const deploymentJson = (): Record<string, unknown> => JSON.parse(readFileSync(env.VAI_DEPLOYMENT, "utf8"));
const SESSION = `0x${"ab".repeat(32)}`;
/** One hex digit short of a private key: it must not be echoed back. */
const SECRETISH = `0x${"5e".repeat(31)}f`;

beforeAll(async () => {
  node = await startHardhatNode();
  chain = await rpcChain(node.url);
  const ws = tempWorkspace("zkvai-cli-input-");
  dir = ws.dir;
  const { record: deployment } = await deployZkVai(chain, chain.wallets[0], {
    rpcUrl: node.url,
    receiptWindow: 0,
  });
  writeDeployment(join(dir, "deployment.json"), deployment);
  env = { ...ws.env, VAI_DEPLOYMENT: join(dir, "deployment.json"), VAI_STORE: join(dir, "store.sqlite") };
});

afterAll(async () => {
  await node?.stop();
});

describe("vai --help", () => {
  it("prints every command's usage and exits 0, as a child process", async () => {
    const commands = ["setup", "demo", "node", "deploy", "promise", "session", "claim", "prove"];
    commands.push("watch", "verify", "check", "ceremony", "receipt", "store", "page");
    const forms = [[], ...commands.map((c) => [c])];
    const runs = await pooled(forms.map((f) => () => vai([...f, "--help"], env)));
    runs.forEach((r, i) => {
      const what = ["vai", ...forms[i], "--help"].join(" ");
      expect(r.code, `${what}: ${r.err}`).toBe(0);
      expect(r.out, what).toMatch(/^usage: vai /);
      expect(r.err, what).toBe("");
    });
    expect(runs[0].out).toMatch(/verify +check that a settlement/);
  });

  it("answers each subcommand's --help with its group's forms", async () => {
    const forms = [
      ...["register", "fund", "retire", "show"].map((s) => ["promise", s]),
      ["session", "show"],
      ...["file", "status", "default"].map((s) => ["claim", s]),
      ...["check", "post"].map((s) => ["receipt", s]),
      ["store", "migrate"],
    ];
    for (const f of forms) {
      const r = await vaiInProcess([...f, "--help"], env);
      expect(r.code, f.join(" ")).toBe(0);
      expect(r.out, f.join(" ")).toMatch(new RegExp(`^usage: vai ${f[0]} `));
      expect(r.out, f.join(" ")).toContain(`vai ${f[0]} ${f[1]}`);
    }
  });
});

type Case = { args: string[]; message: RegExp; env?: Record<string, string>; bin?: true };

describe("bad input and configuration", () => {
  it("exit 2 with one line naming the problem, and nothing sent", async () => {
    const before = await chain.publicClient.getBlockNumber();
    const promise = {
      predicate: "AAP-4",
      params: { outboundTools: ["send_email"], allowlist: ["alice@a.example"] },
      profile: { version: 1, tools: { send_email: { target: "to" } } },
    };
    const good = file("promise.json", promise);
    const register = (f: string, ...more: string[]) => ["promise", "register", "--file", f, ...more];
    const otherChain = file("other-chain.json", { ...deploymentJson(), chainId: 1 });
    const noEscrow = file("gone.json", { ...deploymentJson(), escrow: `0x${"00".repeat(19)}01` });
    const badEscrow = file("bad-dep.json", { ...deploymentJson(), escrow: "0x12" });
    // `bin: true`: also run through bin/vai.mjs as a child process (the rest run the same dispatcher in-process).
    const cases: Case[] = [
      { args: ["frobnicate"], message: /unknown command "frobnicate"/, bin: true },
      { args: ["promise"], message: /missing subcommand/ },
      { args: ["claim", "frob"], message: /unknown subcommand "frob"/ },
      { args: ["promise", "register", "--payout", "1"], message: /--file <promise.json> is required/ },
      { args: register(join(dir, "nope.json"), "--payout", "1"), message: /promise file .* does not exist/ },
      { args: register(file("bad.json", "{nope"), "--payout", "1"), message: /is not JSON/, bin: true },
      {
        args: register(file("p9.json", { ...promise, predicate: "AAP-9" }), "--payout", "1"),
        message: /unknown predicate "AAP-9"/,
      },
      {
        args: register(file("noprof.json", { ...promise, profile: undefined }), "--payout", "1"),
        message: /"profile" .* is missing/,
      },
      {
        args: register(
          file("theta.json", { ...promise, params: { outboundTools: "send_email" } }),
          "--payout",
          "1",
        ),
        message: /promise file .*theta.json: /,
      },
      { args: register(good), message: /no payout/ },
      { args: register(good, "--payout", "2", "--reserve", "1"), message: /reserve .* at least the payout/ },
      { args: register(good, "--payout", "1e18"), message: /--payout "1e18" is not an amount in ETH/ },
      { args: ["promise", "fund", "1"], message: /--amount <eth> is required/ },
      {
        args: ["promise", "fund", "one", "--amount", "1"],
        message: /promise id "one" is not a positive integer/,
      },
      { args: ["promise", "show"], message: /missing <promiseId>/ },
      { args: ["session", "show", "0x1234"], message: /session id "0x1234" is not 0x and 64 hex digits/ },
      { args: ["claim", "file", SESSION, "--bond", "0.1"], message: /--promise <promiseId> is required/ },
      {
        args: ["claim", "file", SESSION, "--promise", "1", "--bond", "lots"],
        message: /--bond "lots" is not an amount/,
      },
      {
        args: ["claim", "file", SESSION, "--promise", "1", "--bond", "0"],
        message: /--bond must be more than 0/,
      },
      { args: ["claim", "status", "0"], message: /claim id "0" is not a positive integer/, bin: true },
      { args: ["claim", "status", "12x"], message: /claim id "12x"/ },
      { args: ["claim", "status", "1", "2"], message: /unexpected argument "2"/ },
      { args: ["prove"], message: /missing <claimId>/, bin: true },
      { args: ["prove", "1", "--bogus"], message: /Unknown option '--bogus'/ },
      { args: ["prove", "1", "--dry-run"], message: /trace store .* does not exist/ },
      {
        args: ["prove", "1", "--dry-run", "--store", file("not-a-db.sqlite", "plain text")],
        message: /trace store .*not-a-db\.sqlite: file is not a database/,
      },
      { args: ["claim", "default", "1", "--as", "admin"], message: /--as must be provider or user/ },
      // Read commands refuse --as (it names who sends), whatever its value.
      { args: ["claim", "status", "1", "--as", "admin"], message: /--as must be provider or user/ },
      { args: ["promise", "show", "1", "--as", "user"], message: /--as names who sends a transaction/ },
      {
        args: ["session", "show", SESSION, "--as", "provider"],
        message: /--as names who sends a transaction/,
      },
      {
        args: ["verify", "1", "--escrow", "0xnotanaddress"],
        message: /--escrow "0xnotanaddress" is not an address/,
        bin: true,
      },
      { args: ["verify", "1", "--manifest", join(dir, "none.json")], message: /manifest .* does not exist/ },
      { args: ["node", "--port", "99999"], message: /--port "99999" must be an integer from 1 to 65535/ },
      { args: ["setup", "--group", "nope"], message: /--group nope: no such group/ },
      { args: ["deploy"], message: /deployment file .* exists; pass --force/ },
      // Configuration: each source, each kind of mistake.
      {
        args: ["promise", "show", "1"],
        message: /deployment file .*missing.json not found: run `vai node` or `vai deploy`/,
        env: { VAI_DEPLOYMENT: join(dir, "missing.json") },
        bin: true,
      },
      {
        args: ["promise", "show", "1"],
        message: /config file .*nope.json \(VAI_CONFIG\) does not exist/,
        env: { VAI_CONFIG: join(dir, "nope.json") },
      },
      {
        args: ["promise", "show", "1", "--config", file("broken.json", "{")],
        message: /config file .* is not readable JSON/,
        bin: true,
      },
      {
        args: ["promise", "show", "1", "--config", file("typo.json", { rpcURL: "x" })],
        message: /unknown key "rpcURL"/,
      },
      {
        args: ["promise", "show", "1"],
        message: /VAI_PRIVATE_KEY: a private key is 32 bytes of hex/,
        env: { VAI_PRIVATE_KEY: SECRETISH },
      },
      {
        args: ["promise", "show", "1", "--config", file("key.json", { privateKey: SECRETISH })],
        message: /key.json: a private key/,
      },
      {
        args: ["promise", "show", "1", "--rpc-url", "ftp://example"],
        message: /must be http:\/\/ or https:\/\//,
      },
      {
        args: ["promise", "show", "1"],
        message: /is chain 31337, but deployment file .* is for chain 1$/,
        env: { VAI_DEPLOYMENT: otherChain },
      },
      {
        args: ["promise", "show", "1"],
        message: /no contract at escrow 0x0000000000000000000000000000000000000001/,
        env: { VAI_DEPLOYMENT: noEscrow },
      },
      {
        args: ["promise", "show", "1"],
        message: /deployment file .*: escrow is not an address/,
        env: { VAI_DEPLOYMENT: badEscrow },
      },
    ];
    const expectRefused = (r: VaiRun, c: Case) => {
      const what = c.args.join(" ");
      expect(r.code, `${what}: ${r.err}`).toBe(2);
      expect(r.err.trim(), what).toMatch(c.message);
      expect(r.err.trim().split("\n"), `${what}: one line`).toHaveLength(1);
      expect(r.out, what).toBe("");
      expect(r.err, what).not.toContain(SECRETISH.slice(2, 20));
    };
    for (const c of cases) expectRefused(await vaiInProcess(c.args, { ...env, ...c.env }), c);
    const throughBin = cases.filter((c) => c.bin);
    const runs = await pooled(throughBin.map((c) => () => vai(c.args, { ...env, ...c.env })));
    runs.forEach((r, i) => expectRefused(r, throughBin[i]));
    expect(await chain.publicClient.getBlockNumber()).toBe(before);
  });

  it("an RPC endpoint that does not answer is a failed operation (exit 1), named in one line", async () => {
    const r = await vaiInProcess(["promise", "show", "1", "--rpc-url", "http://127.0.0.1:9"], env);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toMatch(/^vai promise show: cannot reach a JSON-RPC node at http:\/\/127.0.0.1:9: /);
  });

  it("an unknown promise on-chain is a failed operation naming the escrow's error", async () => {
    const r = await vai(["promise", "show", "42"], env);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe("vai promise show: getPromise reverted: UnknownPromise(42)");
  });
});
