// Where zkVAI finds what setup built. One rule for the prover, the chain client and the user-side verifier:
// the build directory is ZKVAI_BUILD_DIR when set (a provider's own build, or a shared one), else `build/` in
// the zkvai package, found by package resolution rather than by this module's path, so the rule holds the
// same from the checkout's TypeScript and from an installed package's compiled JavaScript.
// The manifest's file paths are relative to the build directory's parent: setup writes build/ (keys, wasm,
// Hardhat artifacts) and contracts/generated/ (verifier sources) side by side in the project it runs in.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { BuildMissingError, ConfigurationError } from "../core/errors.js";

export const BUILD_DIR_ENV = "ZKVAI_BUILD_DIR";

let cachedPackageRoot: string | undefined;

/** The zkvai package's root: the checkout, or node_modules/zkvai once installed. */
export function packageRoot(): string {
  cachedPackageRoot ??= path.dirname(createRequire(import.meta.url).resolve("zkvai/package.json"));
  return cachedPackageRoot;
}

/** The `build/` directory setup made; ZKVAI_BUILD_DIR names one explicitly. */
export function buildDir(): string {
  const configured = process.env[BUILD_DIR_ENV];
  if (!configured) return path.join(packageRoot(), "build");
  const dir = path.resolve(configured);
  // The manifest's paths start with build/ (and contracts/generated/ beside it), so the directory must be the
  // `build/` of the project setup ran in, not a copy under another name.
  if (path.basename(dir) !== "build")
    throw new ConfigurationError(
      `${BUILD_DIR_ENV}=${configured} must name the build/ directory setup made (its last part is "build")`,
    );
  return dir;
}

/** The directory the manifest's paths are relative to. */
export function artifactsRoot(): string {
  return path.dirname(buildDir());
}

export function hardhatArtifactsDir(): string {
  return path.join(buildDir(), "hardhat", "artifacts");
}

/** The Hardhat config shipped with the package: the embedded chain and `vai node` run with it. */
export function hardhatConfigPath(): string {
  return path.join(packageRoot(), "hardhat.config.cjs");
}

/** A file of the package itself (circuits/instances.json, contracts/…), never of the caller's cwd. */
export function packageFile(relative: string): string {
  const file = path.join(packageRoot(), relative);
  if (!existsSync(file))
    throw new BuildMissingError(`${relative} is not in the zkvai package at ${packageRoot()}`, {
      details: { file: relative, packageRoot: packageRoot() },
    });
  return file;
}
