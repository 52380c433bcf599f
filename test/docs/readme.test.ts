// The README's runnable blocks (marked `<!-- readme-run: NAME -->`), run as a reader would: the library snippet
// as a Node program (its `zkvai…` imports pointed at this checkout's sources; test:package runs it verbatim
// against the installed tarball), and the local run's shell block in bash, in a folder laid out as a checkout.
// Each must finish by itself: a snippet that settles but never exits is a failure too.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readmeBlock, readmeBlocks } from "../../scripts/lib/readme-blocks.js";
import { freePort } from "../../sdk/dev/hardhat-node.js";
import { REPO_ROOT } from "../helpers/repo.js";

const TSX = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");

/** The package's entry points, as this checkout's sources (package.json "exports" name the compiled dist/). */
const ENTRY_SOURCES: Record<string, string> = {
  zkvai: "sdk/index.ts",
  "zkvai/core": "sdk/core/index.ts",
  "zkvai/user": "sdk/user/index.ts",
  "zkvai/prover": "prover/index.ts",
  "zkvai/dev": "sdk/dev/index.ts",
};

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/**
 * Runs a command in its own process group and waits for it to exit on its own. `hangMs` only stops a run that
 * hangs (then the test fails, and nothing is left running): every run here ends in well under a minute.
 */
function run(cmd: string, args: string[], cwd: string, hangMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const hang = setTimeout(() => {
      killGroup();
      reject(new Error(`${cmd} ${args.join(" ")} did not exit within ${hangMs / 1000} s\n${out}\n${err}`));
    }, hangMs);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(hang);
      killGroup(); // a background job the block started (its node) must not outlive it
      resolve({ code, out, err });
    });
  });
}

describe("README", () => {
  it("marks its runnable blocks", () => {
    const blocks = readmeBlocks(REPO_ROOT, "run");
    expect([...blocks.keys()].sort()).toEqual(["library", "local"]);
    expect(blocks.get("library")!.lang).toBe("js");
    expect(blocks.get("local")!.lang).toBe("sh");
  });

  it("the library snippet settles a violated claim, verifies it and exits by itself", async () => {
    const { code } = readmeBlock(REPO_ROOT, "library");
    let rewired = code;
    for (const [entry, source] of Object.entries(ENTRY_SOURCES)) {
      const target = JSON.stringify(path.join(REPO_ROOT, source));
      rewired = rewired.replaceAll(`from "${entry}"`, `from ${target}`);
    }
    expect(rewired).not.toMatch(/from "zkvai/);
    const dir = mkdtempSync(path.join(tmpdir(), "zkvai-readme-lib-"));
    try {
      writeFileSync(path.join(dir, "snippet.mts"), rewired);
      const r = await run(process.execPath, [TSX, "snippet.mts"], dir, 300_000);
      expect(r.err + r.out).not.toMatch(/Error/);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^violation proven, user paid 1100000000000000000n?$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 360_000);
});

// The local run starts a hardhat node and runs the CLI as processes (about a minute): test:full runs it.
describe.runIf(process.env.ZKVAI_FULL === "1")("README local run", () => {
  it("runs as written: node, register, agent, claim, prove, verify", async () => {
    const { code } = readmeBlock(REPO_ROOT, "local");
    // A folder laid out as the checkout (each top-level entry linked) with its own .vai/, so the run neither
    // reads nor writes the developer's; the node on a free port rather than 8545, which may be taken.
    const dir = mkdtempSync(path.join(tmpdir(), "zkvai-readme-local-"));
    for (const entry of readdirSync(REPO_ROOT))
      if (entry !== ".vai" && entry !== ".git")
        symlinkSync(path.join(REPO_ROOT, entry), path.join(dir, entry));
    const port = await freePort();
    const script = code.replace("npx vai node &", `npx vai node --port ${port} &`);
    expect(script).not.toBe(code);
    try {
      const r = await run("bash", ["-e", "-c", script], dir, 540_000);
      expect(r.code, r.err).toBe(0);
      // The demo build's keys are development keys, and verify says so.
      expect(r.out).toMatch(
        /settlement valid under INSECURE development keys: .*\(violation proven for session 0x[0-9a-f]{64}, promise 1\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
