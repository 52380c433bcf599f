// vai setup / vai demo: the circuit build (prover/artifacts/setup.ts) and the in-process demo, behind the one bin.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../../sdk/chain/locations.js";
const REPO_ROOT = packageRoot();
import type { Manifest } from "../../sdk/manifest/manifest.js";
import { InputError, parseCommand, runCommand, type Command } from "./common.js";
import { USAGE } from "./usage.js";
import { ToolError } from "../../prover/artifacts/zkfiles.js";

export const setupCommand: Command = {
  usage: USAGE.setup,
  run: (argv) =>
    runCommand("setup", USAGE.setup, async () => {
      const { values } = parseCommand(argv, {
        ptau: { type: "string" },
        group: { type: "string" },
        only: { type: "string" },
        force: { type: "boolean", default: false },
      });
      const { loadInstances } = await import("../../prover/artifacts/circuit-build.js");
      const table = await loadInstances(path.join(REPO_ROOT, "circuits/instances.json"));
      if (values.only !== undefined && !table.some((i) => i.name === values.only))
        throw new InputError(
          `--only ${values.only}: no such circuit (known: ${table.map((i) => i.name).join(", ")})`,
        );
      const groups = [...new Set(table.flatMap((i) => i.groups))];
      if (values.group !== undefined && !groups.includes(values.group))
        throw new InputError(`--group ${values.group}: no such group (known: ${groups.join(", ")})`);
      if (values.ptau !== undefined) {
        if (!existsSync(values.ptau)) throw new InputError(`--ptau ${values.ptau}: file not found`);
        process.env.VAI_PTAU = path.resolve(values.ptau);
      }
      const args = [
        ...(values.group ? ["--group", values.group] : []),
        ...(values.only ? ["--only", values.only] : []),
        ...(values.force ? ["--force"] : []),
      ];
      const { runSetup } = await import("../../prover/artifacts/setup.js");
      let manifest: Manifest | undefined;
      try {
        manifest = await runSetup(args);
      } finally {
        const { releaseProver } = await import("../../prover/prove.js");
        await releaseProver();
      }
      if (manifest) console.log(`\n${manifestTable(manifest)}`);
    }),
};

/**
 * Builds circuits (setup's flags) in a child process, for a command that finds nothing built in a checkout; the
 * build's report goes to stderr, so a command whose stdout is JSON stays parseable. Undefined outside a checkout,
 * where nothing can be built (prover/artifacts/setup.ts): the caller then says what to build, and where.
 */
export function checkoutBuilder(): ((args: string[]) => Promise<void>) | undefined {
  const setup = path.join(REPO_ROOT, "scripts/setup.ts");
  const tsx = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
  if (!existsSync(setup) || !existsSync(tsx)) return undefined;
  return async (args) => {
    const exit = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [tsx, setup, ...args], {
        cwd: REPO_ROOT,
        stdio: ["ignore", process.stderr, process.stderr],
      });
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (exit !== 0)
      throw new ToolError(`building ${args.join(" ")} failed (setup exited with code ${exit})`, "", {
        details: { args, exitCode: exit },
      });
  };
}

export function manifestTable(manifest: Manifest): string {
  const header = ["circuit", "constraints", "zkey sha256", "verifier contract"];
  const rows = Object.entries(manifest.circuits).map(([name, c]) => [
    name,
    String(c.constraints),
    c.files.zkey.sha256,
    c.verifierContract,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

export const demoCommand: Command = {
  usage: USAGE.demo,
  run: (argv) =>
    runCommand("demo", USAGE.demo, async () => {
      parseCommand(argv, {});
      // The demo is a script of the checkout (with tsx, a dev dependency), not part of the installed package.
      const demo = path.join(REPO_ROOT, "scripts/demo.ts");
      const tsx = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
      if (!existsSync(demo) || !existsSync(tsx))
        throw new InputError("the demo runs from a checkout of zkvai: `npm install && npm run demo` there");
      const code = await setupCommand.run(["--group", "demo"]);
      if (code !== 0) throw new ToolError("setup --group demo failed", "", { details: { exitCode: code } });
      // Its own process: the demo uses Hardhat's in-process chain, a singleton best not shared with the CLI.
      const exit = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [tsx, demo], {
          stdio: "inherit",
        });
        child.once("error", reject);
        child.once("exit", resolve);
      });
      if (exit !== 0)
        throw new ToolError(`the demo exited with code ${exit}`, "", { details: { exitCode: exit } });
    }),
};
