// The README's fragments (marked `<!-- readme-check: NAME -->`): the Provider SDK's dispatch and one snippet per
// agent harness. Each names objects only the reader has (their model, their tools, their `ask`), so it cannot
// run as it stands; it is type-checked instead, with its `zkvai…` imports pointed at this checkout's sources
// and the frameworks' own published types. Every name the snippet uses without defining is declared `any`,
// found by a first pass ("Cannot find name"), so what remains checked is every zkVAI and framework call: a
// renamed export, a wrong option or a wrong argument fails here.
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { readmeBlocks } from "../../scripts/lib/readme-blocks.js";
import { REPO_ROOT } from "../helpers/repo.js";

/** zkvai's entry points as this checkout's sources; the harness adapters likewise. */
function rewire(code: string): string {
  return code.replace(/from "zkvai(\/[\w/-]+)?"/g, (_, sub: string | undefined) => {
    const entry = sub ?? "";
    const source =
      entry === ""
        ? "sdk/index.ts"
        : entry.startsWith("/adapters/")
          ? `sdk${entry}.ts`
          : {
              "/core": "sdk/core/index.ts",
              "/user": "sdk/user/index.ts",
              "/prover": "prover/index.ts",
              "/dev": "sdk/dev/index.ts",
            }[entry];
    if (!source) throw new Error(`the README imports zkvai${entry}, which is no entry point`);
    return `from ${JSON.stringify(path.join(REPO_ROOT, source).replace(/\.ts$/, ".js"))}`;
  });
}

/** OpenClaw's SDK needs Node ≥ 24.16 and is not installed: its one import is declared, as the adapter's tests do. */
const AMBIENT = `declare module "openclaw/plugin-sdk/plugin-entry" { export function definePluginEntry(entry: unknown): unknown; }\n`;
const AMBIENT_FILE = path.join(REPO_ROOT, "test", "docs", "readme-ambient.d.ts");

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  skipLibCheck: true,
  // No DOM: its globals (name, prompt, …) would stand in for the reader's own objects.
  lib: ["lib.es2022.d.ts"],
  esModuleInterop: true,
  resolveJsonModule: true,
  noEmit: true,
  types: ["node"],
};

/** Type-checks the files (name → text) together; returns each file's diagnostics. */
function typecheck(files: Map<string, string>): Map<string, readonly ts.Diagnostic[]> {
  const host = ts.createCompilerHost(OPTIONS);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (f) => files.get(f) ?? read(f);
  host.fileExists = (f) => files.has(f) || exists(f);
  const getSource = host.getSourceFile.bind(host);
  host.getSourceFile = (f, lang, ...rest) =>
    files.has(f) ? ts.createSourceFile(f, files.get(f)!, lang) : getSource(f, lang, ...rest);
  const program = ts.createProgram([...files.keys()], OPTIONS, host);
  return new Map(
    [...files.keys()].map((f) => [
      f,
      [
        ...program.getSyntacticDiagnostics(program.getSourceFile(f)),
        ...program.getSemanticDiagnostics(program.getSourceFile(f)),
      ],
    ]),
  );
}

/** "Cannot find name", "Did you mean", "No value exists in scope for the shorthand property". */
const CANNOT_FIND_NAME = new Set([2304, 2552, 18004]);
const message = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, "\n");

describe("README fragments", () => {
  it("type-check against the SDK and the frameworks they show", () => {
    const blocks = [...readmeBlocks(REPO_ROOT, "check").values()];
    expect(blocks.map((b) => b.name).sort()).toEqual(
      ["ai", "claude-agent-sdk", "langchain", "mcp", "openai-agents", "openclaw", "provider-sdk"].sort(),
    );
    // Inside the checkout (test/docs/), so the frameworks resolve from its node_modules.
    const fileOf = (name: string) => path.join(REPO_ROOT, "test", "docs", `readme-${name}.mts`);
    const body = new Map(blocks.map((b) => [fileOf(b.name), `${rewire(b.code)}\nexport {};\n`]));
    // First pass: the names the reader supplies.
    const declared = new Map<string, string>();
    for (const [file, diagnostics] of typecheck(new Map([...body, [AMBIENT_FILE, AMBIENT]]))) {
      if (file === AMBIENT_FILE) continue;
      const free = new Set<string>();
      for (const d of diagnostics)
        if (CANNOT_FIND_NAME.has(d.code)) free.add(/'([^']+)'/.exec(message(d))![1]!);
      declared.set(file, [...free].map((n) => `declare const ${n}: any;\n`).join("") + body.get(file)!);
    }
    // Second pass: nothing else may fail.
    const problems: string[] = [];
    for (const [file, diagnostics] of typecheck(new Map([...declared, [AMBIENT_FILE, AMBIENT]])))
      for (const d of diagnostics) {
        const line =
          d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
        problems.push(`${path.basename(file)}:${line}: ${message(d)}`);
      }
    expect(problems).toEqual([]);
  }, 240_000);
});
