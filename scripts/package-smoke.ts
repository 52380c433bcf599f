// npm run test:package: zkvai as a provider installs it. Packs the tarball (prepack builds dist/), installs it
// into an empty temporary project offline, from the tarball and the lockfile's own resolution of its
// dependencies (npm's cache, which `npm ci` filled), then runs test/package/smoke.mjs there with plain Node:
// no tsx and no checkout on the module path, the build directory given by ZKVAI_BUILD_DIR. Also runs the
// installed `vai --help`. Exits non-zero, with the failing step's output, on any failure.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readmeBlock } from "./lib/readme-blocks.js";
import { ROOT } from "../sdk/manifest/packages.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

interface LockEntry {
  version?: string;
  dev?: boolean;
  [key: string]: unknown;
}

function step<T>(label: string, run: () => T): T {
  const started = performance.now();
  process.stderr.write(`▸ ${label} … `);
  const out = run();
  process.stderr.write(`${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return out;
}

function sh(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): string {
  const r = spawnSync(cmd, args, { ...opts, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    process.stderr.write(`\n$ ${cmd} ${args.join(" ")}  (in ${opts.cwd})\n${r.stdout}\n${r.stderr}\n`);
    throw new Error(`${cmd} ${args[0]} exited with ${r.status ?? r.signal}`);
  }
  return r.stdout;
}

// The agent proves with the checkout's test circuits and installs from the npm cache that `npm ci` filled:
// .ci/run runs this after `npm ci` and `npm test`, which guarantee both.
if (!existsSync(path.join(ROOT, "build", "manifest.json"))) {
  console.error(
    "package smoke test: build/manifest.json is missing; run `npm test` (or `npm run setup -- --group test`) first",
  );
  process.exit(2);
}

const work = mkdtempSync(path.join(tmpdir(), "zkvai-package-"));
try {
  step("npm run build (dist/: tsc's JavaScript and .d.ts)", () => sh(NPM, ["run", "build"], { cwd: ROOT }));
  // --ignore-scripts: prepack would build again, and print onto the JSON.
  const packed = step(
    "npm pack",
    () =>
      JSON.parse(
        sh(NPM, ["pack", "--json", "--ignore-scripts", "--pack-destination", work], { cwd: ROOT }),
      ) as {
        filename: string;
        files: { path: string }[];
      }[],
  );
  const tarball = path.join(work, packed[0].filename);
  const shipped = packed[0].files.map((f) => f.path);
  for (const must of ["dist/sdk/index.js", "dist/sdk/index.d.ts", "dist/prover/index.js", "bin/vai.mjs"])
    if (!shipped.includes(must)) throw new Error(`the tarball lacks ${must}`);
  // Dev tools and tests never ship, as sources or compiled.
  const devOnly = (f: string) => /^(dist\/)?(test|scripts\/bench|scripts\/lib)\//.test(f);
  for (const never of shipped.filter((f) => devOnly(f) || (f.endsWith(".ts") && !f.endsWith(".d.ts"))))
    throw new Error(`the tarball ships ${never}, which is not part of the package`);

  // The project: zkvai from the tarball; every other package at exactly the version and integrity our lockfile
  // resolved (its non-dev entries), so the install needs no registry.
  const project = path.join(work, "project");
  const ours = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    name: string;
    version: string;
    dependencies: Record<string, string>;
    bin: Record<string, string>;
    engines: Record<string, string>;
  };
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  const tarballRef = `file:../${path.basename(tarball)}`;
  const packages: Record<string, LockEntry> = {
    "": { name: "zkvai-smoke", dependencies: { zkvai: tarballRef } },
    "node_modules/zkvai": {
      version: manifest.version,
      resolved: tarballRef,
      integrity,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  for (const [key, entry] of Object.entries(ours.packages))
    if (key.startsWith("node_modules/") && !entry.dev) packages[key] = entry;
  mkdirSync(project);
  writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify(
      { name: "zkvai-smoke", private: true, type: "module", dependencies: { zkvai: tarballRef } },
      null,
      2,
    ),
  );
  writeFileSync(
    path.join(project, "package-lock.json"),
    JSON.stringify({ name: "zkvai-smoke", lockfileVersion: 3, requires: true, packages }, null, 2),
  );
  step("npm ci --offline in an empty project", () =>
    sh(NPM, ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: project }),
  );

  copyFileSync(path.join(ROOT, "test/package/smoke.mjs"), path.join(project, "smoke.mjs"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ZKVAI_BUILD_DIR: path.join(ROOT, "build"),
    NODE_OPTIONS: "",
  };
  delete env.NODE_PATH;
  const help = step("installed `vai --help`", () =>
    sh(process.execPath, [path.join(project, "node_modules/zkvai/bin/vai.mjs"), "--help"], {
      cwd: project,
      env,
    }),
  );
  if (!/usage: vai/.test(help)) throw new Error(`vai --help printed no usage:\n${help}`);
  const out = step("node smoke.mjs: session, close, claim, proof, verifySettlement", () =>
    sh(process.execPath, ["smoke.mjs"], { cwd: project, env }),
  );
  console.log(out.trim());
  // The README's library snippet, exactly as written, in the installed project: it settles, verifies and exits.
  writeFileSync(path.join(project, "readme-snippet.mjs"), readmeBlock(ROOT, "library").code);
  const snippet = step("node readme-snippet.mjs: the README's library snippet as written", () =>
    sh(process.execPath, ["readme-snippet.mjs"], { cwd: project, env }),
  );
  if (!/^violation proven, user paid/m.test(snippet))
    throw new Error(`the README's library snippet printed no settlement:\n${snippet}`);
  console.log(snippet.trim());
  console.log("package smoke test passed");
} finally {
  rmSync(work, { recursive: true, force: true });
}
