// Where artifacts are found (sdk/chain/locations.ts): the configured build directory, else the package's own,
// resolved through the package name, never through a module's path or the caller's cwd.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  artifactsRoot,
  BUILD_DIR_ENV,
  buildDir,
  hardhatArtifactsDir,
  hardhatConfigPath,
  packageFile,
  packageRoot,
} from "../../sdk/chain/locations.js";
import { REPO_ROOT } from "../helpers/repo.js";

const saved = process.env[BUILD_DIR_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[BUILD_DIR_ENV];
  else process.env[BUILD_DIR_ENV] = saved;
});

describe("locations", () => {
  it("the package root is the checkout, found by package resolution", () => {
    expect(packageRoot()).toBe(REPO_ROOT);
    expect(hardhatConfigPath()).toBe(path.join(REPO_ROOT, "hardhat.config.cjs"));
    expect(packageFile("circuits/instances.json")).toBe(path.join(REPO_ROOT, "circuits/instances.json"));
    expect(() => packageFile("no/such/file")).toThrow(/not in the zkvai package/);
  });

  it("without configuration the build directory is the package's build/", () => {
    delete process.env[BUILD_DIR_ENV];
    expect(buildDir()).toBe(path.join(REPO_ROOT, "build"));
    expect(artifactsRoot()).toBe(REPO_ROOT);
  });

  it("ZKVAI_BUILD_DIR names another project's build/, whose parent the manifest's paths are relative to", () => {
    process.env[BUILD_DIR_ENV] = "/srv/provider/build";
    expect(buildDir()).toBe("/srv/provider/build");
    expect(artifactsRoot()).toBe("/srv/provider");
    expect(hardhatArtifactsDir()).toBe("/srv/provider/build/hardhat/artifacts");
  });

  it("refuses a directory that is not a build/, with the variable's name in the message", () => {
    process.env[BUILD_DIR_ENV] = "/srv/provider/artifacts";
    expect(() => buildDir()).toThrow(
      /ZKVAI_BUILD_DIR=\/srv\/provider\/artifacts must name the build\/ directory/,
    );
  });
});
