// Where the build runs and with which tools: the package root (the checkout, or node_modules/zkvai; circom2
// can reach nothing outside it), the installed packages' versions, which every compile and key is keyed by,
// and their CLI entries, found by package resolution wherever npm placed them.

import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { packageRoot } from "../chain/locations.js";
import { BuildMissingError } from "../core/errors.js";

export const ROOT = packageRoot();
export const rel = (p: string): string => path.relative(ROOT, p).split(path.sep).join("/");

/**
 * The directory of an installed package, looked up as Node does (node_modules of the package root, then of
 * each parent), without going through `exports` maps, which often leave package.json out.
 */
export function pkgDir(name: string): string {
  for (let dir = ROOT; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir)
      throw new BuildMissingError(`${name} is not installed; run npm install`, {
        details: { package: name },
      });
  }
}

export async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/** A package's CLI entry from its `bin` field: .bin shims may be copies rather than links, and circom2's
 * shim must run beside its own index.js. */
export function pkgBin(name: string): string {
  const dir = pkgDir(name);
  const bin = (
    JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
      bin?: string | Record<string, string>;
    }
  ).bin;
  const entry = typeof bin === "string" ? bin : bin?.[name];
  if (!entry)
    throw new BuildMissingError(`${name} has no "${name}" bin entry`, { details: { package: name } });
  return path.join(dir, entry);
}

export function pkgVersion(name: string): string {
  const file = path.join(pkgDir(name), "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

/** The tool versions every compile and key is keyed by (the manifest's `tools`). */
export function buildTools(): { circom2: string; snarkjs: string; circomlib: string; node: string } {
  return {
    circom2: pkgVersion("circom2"),
    snarkjs: pkgVersion("snarkjs"),
    circomlib: pkgVersion("circomlib"),
    node: process.versions.node,
  };
}
