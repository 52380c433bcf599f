// Runs `vai` as a user would: a child process of bin/vai.mjs, with its own environment.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vi } from "vitest";

export interface VaiRun {
  code: number | null;
  out: string;
  err: string;
}

/** Hardhat's well-known dev keys (accounts #0..#3 of `hardhat node`); public, worthless off a dev chain. */
export const DEV_KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
] as const;

/** A temp folder with an empty config file, so a vai.config.json in the repository cannot leak in. */
export function tempWorkspace(prefix: string): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, "empty-config.json"), "{}");
  return { dir, env: { VAI_CONFIG: join(dir, "empty-config.json") } };
}

export function vai(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 120_000) {
  // Only the test's own VAI_* settings: none from the shell that runs the tests.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VAI_")));
  return new Promise<VaiRun>((resolve) => {
    execFile(
      process.execPath,
      ["bin/vai.mjs", ...args],
      { env: { ...base, ...env }, encoding: "utf8", timeout: timeoutMs, maxBuffer: 16 << 20 },
      (error, out, err) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, out, err });
      },
    );
  });
}

/** Runs `tasks` at most `limit` at a time: process start-up dominates these runs, and the box has 2 cores. */
export async function pooled<T>(tasks: (() => Promise<T>)[], limit = 3): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    }),
  );
  return results;
}

/**
 * The same command line in this process (bin/cli/main.ts's runVai, which bin/vai.mjs runs): for the many
 * cases where process start-up, not the command, would be the cost. Runs must not overlap.
 */
export async function vaiInProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<VaiRun> {
  const { runVai } = await import("../../bin/cli/main.js");
  const saved = process.env;
  process.env = {
    ...Object.fromEntries(Object.entries(saved).filter(([k]) => !k.startsWith("VAI_"))),
    ...env,
  };
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  const error = vi
    .spyOn(console, "error")
    .mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  try {
    const code = await runVai(args);
    return {
      code,
      out: out.length ? `${out.join("\n")}\n` : "",
      err: err.length ? `${err.join("\n")}\n` : "",
    };
  } finally {
    log.mockRestore();
    error.mockRestore();
    process.env = saved;
  }
}
