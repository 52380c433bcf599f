// The layers import one way (README "Layout"). Every relative import and dynamic import of the product's
// TypeScript is resolved to its file, assigned a layer by path, and checked against the table below; package
// imports are checked where a layer must not load them (I/O in the core, Hardhat outside sdk/dev).
import { describe, expect, it } from "vitest";
import {
  codeOf,
  FOLDER_ORDER,
  IMPORT,
  importCircles,
  relativeEdges,
  resolveRelative,
  sourcesUnder,
  specifiersIn,
  upwardEdges,
} from "../scripts/lib/import-graph.js";
import { REPO_ROOT } from "./helpers/repo.js";

type Layer =
  | "core"
  | "chain"
  | "provider"
  | "adapters"
  | "user"
  | "page"
  | "dev"
  | "manifest"
  | "artifacts"
  | "prover"
  | "cli"
  | "devtools"
  | "examples";

/** What each layer may import, besides itself. */
const ALLOWED: Record<Layer, Layer[]> = {
  core: [],
  chain: ["core"],
  provider: ["core", "chain"],
  adapters: ["core", "chain", "provider"],
  manifest: ["core", "chain"],
  user: ["core", "chain", "manifest"],
  // The check page (sdk/page, bundled for the browser by scripts/build-page.ts): the user side and below.
  page: ["core", "chain", "manifest", "user"],
  dev: ["core", "chain"],
  artifacts: ["core", "chain", "manifest"],
  prover: ["core", "chain", "provider", "manifest", "artifacts"],
  cli: ["core", "chain", "provider", "user", "dev", "manifest", "artifacts", "prover"],
  devtools: [
    "core",
    "chain",
    "provider",
    "user",
    "page",
    "dev",
    "manifest",
    "artifacts",
    "prover",
    "cli",
    "examples",
  ],
  examples: ["core", "chain", "provider", "adapters", "user", "dev", "manifest", "artifacts", "prover"],
};

/**
 * Packages a layer must not load: the core does no I/O, only development chains load Hardhat, and only the
 * adapters (and the examples) load an agent framework, which are optional peer dependencies.
 */
const FRAMEWORKS =
  "ai|@ai-sdk/[^/]+|@openai/agents[^/]*|@modelcontextprotocol/[^/]+|langchain|@langchain/[^/]+|@anthropic-ai/[^/]+|openclaw|zod";
const forbid = (names: string) => new RegExp(`^(${names}|${FRAMEWORKS})(\\/|$)`);
const FORBIDDEN_PACKAGES: Partial<Record<Layer, RegExp>> = {
  core: forbid(
    "(node:)?(fs|fs\\/promises|child_process|net|http|https|os|worker_threads|module)|better-sqlite3|snarkjs|hardhat|solc|zkvai",
  ),
  chain: forbid("hardhat"),
  provider: forbid("hardhat|snarkjs"),
  adapters: /^(hardhat|snarkjs|better-sqlite3)(\/|$)/,
  manifest: forbid("hardhat|snarkjs|better-sqlite3|viem"),
  user: forbid("hardhat"),
  page: forbid(
    "(node:)?(fs|fs\\/promises|child_process|net|http|https|os|worker_threads|module|path|crypto)|better-sqlite3|hardhat|solc",
  ),
  dev: forbid("snarkjs"),
  artifacts: forbid("hardhat"),
  prover: forbid("hardhat"),
  cli: new RegExp(`^(${FRAMEWORKS})(\\/|$)`),
};

function layerOf(rel: string): Layer | undefined {
  if (rel.startsWith("sdk/core/")) return "core";
  if (rel.startsWith("sdk/chain/")) return "chain";
  if (rel.startsWith("sdk/user/")) return "user";
  if (rel.startsWith("sdk/page/")) return "page";
  if (rel.startsWith("sdk/dev/")) return "dev";
  if (rel.startsWith("sdk/adapters/")) return "adapters";
  if (rel.startsWith("sdk/manifest/")) return "manifest";
  if (rel.startsWith("sdk/provider/") || rel === "sdk/index.ts") return "provider";
  if (rel.startsWith("prover/artifacts/")) return "artifacts";
  if (rel.startsWith("prover/")) return "prover";
  if (rel.startsWith("bin/")) return "cli";
  if (rel.startsWith("scripts/")) return "devtools";
  if (rel.startsWith("examples/")) return "examples";
  return undefined;
}

const sources = (dir: string): string[] => sourcesUnder(REPO_ROOT, dir);

/** A dynamic import whose specifier is computed cannot be checked here; each one must be listed. */
const COMPUTED_IMPORT = /import\(\s*(?!["'`][^"'`$]+["'`]\s*\))[^)]/g;
// The bin loads the CLI from sources or from dist/, and the leaf hasher's worker its entry the same way
// (leaf-worker-boot.mjs); circomlibjs ships no types, so tsc is kept off it (the leaf worker's Poseidon).
const COMPUTED_ALLOWED = new Set([
  "bin/vai.mjs",
  "scripts/lib/circomlib-poseidon.ts",
  "sdk/provider/leaf-worker-boot.mjs",
  "sdk/provider/leaf-worker.ts",
]);

const textOf = (rel: string): string => codeOf(REPO_ROOT, rel);
const importsOf = (rel: string): string[] => specifiersIn(textOf(rel));

/** The package's own entry points, imported by name, are layers too. */
const SELF: Record<string, string> = {
  zkvai: "sdk/index.ts",
  "zkvai/core": "sdk/core/index.ts",
  "zkvai/user": "sdk/user/index.ts",
  "zkvai/prover": "prover/index.ts",
  "zkvai/dev": "sdk/dev/index.ts",
  ...Object.fromEntries(
    ["ai", "openai-agents", "mcp", "langchain", "claude-agent-sdk", "openclaw"].map((a) => [
      `zkvai/adapters/${a}`,
      `sdk/adapters/${a}.ts`,
    ]),
  ),
};

const resolve = resolveRelative;

const files = FOLDER_ORDER.flatMap(sources);

describe("import boundaries", () => {
  it("finds the product's sources in every layer", () => {
    const layers = new Set(files.map(layerOf));
    for (const l of Object.keys(ALLOWED)) expect(layers, l).toContain(l);
  });

  it("every import goes one way: the core imports only itself, and nothing imports the CLI or dev tools", () => {
    const broken: string[] = [];
    for (const file of files) {
      const from = layerOf(file)!;
      if (COMPUTED_IMPORT.test(textOf(file)) && !COMPUTED_ALLOWED.has(file))
        broken.push(`${file} imports a computed specifier, which this check cannot follow`);
      COMPUTED_IMPORT.lastIndex = 0;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".") && !(spec in SELF)) {
          if (FORBIDDEN_PACKAGES[from]?.test(spec)) broken.push(`${file} (${from}) loads package ${spec}`);
          continue;
        }
        const target = spec in SELF ? SELF[spec] : resolve(file, spec);
        const to = layerOf(target);
        if (to === undefined) {
          broken.push(`${file} imports ${target}, outside the layered tree`);
          continue;
        }
        if (to !== from && !ALLOWED[from].includes(to))
          broken.push(`${file} (${from}) imports ${target} (${to})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("no import runs back up from a lower top-level folder (sdk < prover < bin < examples, scripts)", () => {
    const upward = upwardEdges(relativeEdges(REPO_ROOT)).map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it("no two files import each other, directly or around a circle", () => {
    expect(importCircles(relativeEdges(REPO_ROOT))).toEqual([]);
  });

  it("the checker itself catches a wrong-way import", () => {
    expect(upwardEdges([{ from: "sdk/user/a.ts", to: "prover/artifacts/b.ts" }])).toHaveLength(1);
    expect(upwardEdges([{ from: "bin/cli/a.ts", to: "prover/b.ts" }])).toHaveLength(0);
    const circle = [
      { from: "a.ts", to: "b.ts" },
      { from: "b.ts", to: "c.ts" },
      { from: "c.ts", to: "a.ts" },
      { from: "c.ts", to: "d.ts" },
    ];
    expect(importCircles(circle)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(ALLOWED.core.includes(layerOf("sdk/provider/session.ts")!)).toBe(false);
    expect(ALLOWED.prover.includes(layerOf("bin/cli/common.ts")!)).toBe(false);
    expect(ALLOWED.cli.includes(layerOf("scripts/bench/cli.ts")!)).toBe(false);
    expect(importsOf("sdk/provider/session.ts").some((s) => s.endsWith("/chain/escrow.js"))).toBe(true);
    expect(FORBIDDEN_PACKAGES.core!.test("node:fs")).toBe(true);
    expect(FORBIDDEN_PACKAGES.core!.test("fs")).toBe(true);
    expect(FORBIDDEN_PACKAGES.prover!.test("hardhat/config")).toBe(true);
    expect(FORBIDDEN_PACKAGES.provider!.test("@langchain/core/tools")).toBe(true);
    expect(FORBIDDEN_PACKAGES.core!.test("ai")).toBe(true);
    expect(FORBIDDEN_PACKAGES.core!.test("aim")).toBe(false);
    expect(FORBIDDEN_PACKAGES.adapters!.test("ai")).toBe(false);
    const seen = (code: string) => [...code.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]);
    expect(seen(`import "./side.js";`)).toEqual(["./side.js"]);
    expect(seen("await import(`./dyn.js`);")).toEqual(["./dyn.js"]);
    expect(seen(`createRequire(import.meta.url)("solc")`)).toEqual(["solc"]);
    expect(seen(`export * from "./all.js";`)).toEqual(["./all.js"]);
    expect(COMPUTED_IMPORT.test("await import(specifier)")).toBe(true);
    COMPUTED_IMPORT.lastIndex = 0;
  });
});
