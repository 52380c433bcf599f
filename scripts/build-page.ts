// Builds the user's check page (sdk/page) into dist/page/: index.html, page.js (one esbuild bundle of
// sdk/page/main.ts and the library's user side), manifest.json (the build's manifest, keys embedded) and
// compiled-code.json (what solc-js makes of every source the page may have to match against the chain).
// The Node-only leaves of sdk/ are swapped for their `.browser.ts` twins (a module x.ts with a twin
// x.browser.ts beside it), and the build fails if anything from Node is left in the bundle.
//   npm run build:page [-- --manifest <manifest.json>] [--out <dir>]
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { build, type Plugin } from "esbuild";
import { ROOT, pkgDir, pkgVersion } from "../sdk/manifest/packages.js";
import { readManifest, withEmbeddedKeys, type Manifest } from "../sdk/manifest/manifest.js";
import { manifestKey, verifierSourceOf } from "../sdk/user/evidence.js";
import { compileContract, packageContract } from "../sdk/user/expected-code.js";
import { compileKey, contractSources, type Compiled } from "../sdk/user/solc-target.js";
import type { CompiledCode } from "../sdk/user/expected-code.browser.js";

/** Package contracts a user's check compiles: the escrow and its Poseidon(3) (deployment-check.ts). */
const PACKAGE_CONTRACTS: [string, string][] = [
  ["contracts/Escrow.sol", "Escrow"],
  ["contracts/PoseidonT4.sol", "PoseidonT4"],
];

/** esbuild: an import of ./x.js whose x.browser.ts exists resolves to the twin. */
const browserTwins: Plugin = {
  name: "browser-twins",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      const twin = path.resolve(args.resolveDir, args.path).replace(/\.js$/, ".browser.ts");
      if (!existsSync(twin) || path.resolve(args.importer) === twin) return undefined;
      return { path: twin };
    });
  },
};

/** Every compile the page may need to match, keyed as the Node cache keys it, and the package sources. */
export function compiledCodeFor(manifest: Manifest, manifestPath: string): CompiledCode {
  const code: Record<string, Compiled> = {};
  const contracts: Record<string, string> = {};
  const keep = (sources: Record<string, string>, target: string, contractName: string) => {
    const { deployedBytecode, immutables } = compileContract(sources, target, contractName);
    code[compileKey(sources, target, contractName)] = { deployedBytecode, immutables };
  };
  for (const [source, contract] of PACKAGE_CONTRACTS) {
    const sources = contractSources(source, (name) => readFileSync(path.join(ROOT, name), "utf8"));
    Object.assign(contracts, sources);
    packageContract(source, contract); // the same compile, through the Node check's own path
    keep(sources, source, contract);
  }
  for (const [name, entry] of Object.entries(manifest.circuits)) {
    const { vkey } = manifestKey(name, entry, manifestPath);
    const { source } = verifierSourceOf(name, entry, vkey, manifestPath);
    keep({ [entry.files.verifierSol.path]: source }, entry.files.verifierSol.path, entry.verifierContract);
  }
  return { code, contracts };
}

export async function buildPage(o: { manifest?: string; out?: string } = {}): Promise<{
  out: string;
  bundleBytes: number;
  /** Bytes of page.js by where they come from: a package under node_modules, or zkvai's own sdk/. */
  byPackage: Record<string, number>;
  ms: number;
}> {
  const started = Date.now();
  const out = path.resolve(o.out ?? path.join(ROOT, "dist", "page"));
  const manifestPath = path.resolve(o.manifest ?? path.join(ROOT, "build", "manifest.json"));
  const read = readManifest(manifestPath);
  const manifest: Manifest = { ...read, circuits: withEmbeddedKeys(read.circuits) };
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const result = await build({
    entryPoints: [path.join(ROOT, "sdk/page/main.ts")],
    outfile: path.join(out, "page.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    plugins: [browserTwins],
    define: {
      __ZKVAI_SNARKJS_TEMPLATE__: JSON.stringify(
        readFileSync(path.join(pkgDir("snarkjs"), "templates/verifier_groth16.sol.ejs"), "utf8"),
      ),
      __ZKVAI_SEGMENT_TEMPLATE__: JSON.stringify(
        readFileSync(path.join(ROOT, "contracts/templates/SegmentVerifier.sol.tmpl"), "utf8"),
      ),
      __ZKVAI_VERSIONS__: JSON.stringify({ snarkjs: pkgVersion("snarkjs"), viem: pkgVersion("viem") }),
      "process.env.NODE_DEBUG": "false",
    },
  });
  const fromNode = Object.entries(result.metafile.inputs).flatMap(([file, input]) =>
    input.imports
      .filter((i) => i.path.startsWith("node:") || builtinModules.includes(i.path))
      .map((i) => `${file} imports ${i.path}`),
  );
  if (fromNode.length) throw new Error(`the page bundle would carry Node code:\n${fromNode.join("\n")}`);

  const byPackage: Record<string, number> = {};
  for (const output of Object.values(result.metafile.outputs))
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(file);
      const key = m ? m[1]! : "zkvai (sdk/)";
      byPackage[key] = (byPackage[key] ?? 0) + bytesInOutput;
    }

  copyFileSync(path.join(ROOT, "sdk/page/index.html"), path.join(out, "index.html"));
  writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  writeFileSync(
    path.join(out, "compiled-code.json"),
    JSON.stringify(compiledCodeFor(manifest, manifestPath)),
  );
  return {
    out,
    bundleBytes: statSync(path.join(out, "page.js")).size,
    byPackage,
    ms: Date.now() - started,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { manifest: { type: "string" }, out: { type: "string" } } });
  const { out, bundleBytes, byPackage, ms } = await buildPage(values);
  console.log(`page built in ${out}: page.js ${(bundleBytes / 1024).toFixed(0)} KiB, in ${ms} ms`);
  for (const [name, bytes] of Object.entries(byPackage).sort((a, b) => b[1] - a[1]))
    console.log(`  ${(bytes / 1024).toFixed(0).padStart(5)} KiB  ${name}`);
}
