// One error root: every error class in sdk/, prover/, bin/ and scripts/ descends from ZkvaiError and has its
// own stable, unique code, listed once in ERROR_CODES (sdk/core/error-codes.ts) with its meaning and docs. The
// classes are found, not listed: every module that declares a class extending an error is imported, and each
// error its exports hold is checked, so a new error class is covered the day it is written. Product code
// throws a plain Error only for misuse (docs/ARCHITECTURE.md "Errors"); the sites that do are listed below.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERRORS_DOC, ZkvaiError } from "../../sdk/core/errors.js";

const ROOT = join(import.meta.dirname, "..", "..");
const DIRS = ["sdk", "prover", "bin", "scripts"];
const DECLARATION = /^\s*(export\s+)?(?:abstract\s+)?class\s+(\w+)\s+extends\s+(\w+)/gm;

function sources(dir: string, extensions = [".ts"]): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    // sdk/page is the check page's browser script (it touches `document` when loaded): its errors are shown to
    // the user on the page, never thrown to a caller of the library.
    if (d.isDirectory())
      return d.name === "node_modules" || d.name === "generated" || path === join(ROOT, "sdk", "page")
        ? []
        : sources(path, extensions);
    return extensions.some((x) => d.name.endsWith(x)) && !d.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** GitHub's anchors for a markdown text's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) =>
      m[1]
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    ),
  );
}

interface Declared {
  file: string;
  name: string;
  base: string;
  exported: boolean;
}

const declared: Declared[] = DIRS.flatMap((dir) => sources(join(ROOT, dir))).flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(DECLARATION)].map((m) => ({
    file,
    name: m[2],
    base: m[3],
    exported: m[1] !== undefined,
  })),
);

// Error classes: those extending a built-in error, or (transitively) another error class declared here.
const BUILTIN = new Set(["Error", "RangeError", "TypeError", "SyntaxError", "AggregateError"]);
const errorNames = new Set<string>();
for (let grew = true; grew;) {
  grew = false;
  for (const d of declared) {
    if (!errorNames.has(d.name) && (BUILTIN.has(d.base) || errorNames.has(d.base))) {
      errorNames.add(d.name);
      grew = true;
    }
  }
}
const errorDecls = declared.filter((d) => errorNames.has(d.name));
const modules = [...new Set(errorDecls.map((d) => d.file))];

type ErrorClass = (abstract new (...args: never[]) => Error) & { code?: unknown };

async function exportedErrors(): Promise<{ where: string; cls: ErrorClass }[]> {
  const found = new Map<ErrorClass, string>();
  for (const file of modules) {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [key, value] of Object.entries(mod)) {
      if (typeof value === "function" && value.prototype instanceof Error && !found.has(value as ErrorClass))
        found.set(value as ErrorClass, `${relative(ROOT, file)}: ${key}`);
    }
  }
  return [...found].map(([cls, where]) => ({ cls, where }));
}

describe("the error root", () => {
  it("finds the error classes by reading the sources", () => {
    // A floor, so that a broken scan cannot pass by finding nothing.
    expect(errorDecls.length).toBeGreaterThan(40);
  });

  it("every error class is exported, so that callers (and this test) can reach it", () => {
    const hidden = errorDecls.filter((d) => !d.exported).map((d) => `${relative(ROOT, d.file)}: ${d.name}`);
    expect(hidden).toEqual([]);
  });

  it("every exported error descends from ZkvaiError and declares its own unique, non-empty code", async () => {
    const errors = await exportedErrors();
    expect(errors.length).toBeGreaterThanOrEqual(errorDecls.length);
    const byCode = new Map<string, string>();
    for (const { cls, where } of errors) {
      expect(cls.prototype instanceof ZkvaiError || cls === ZkvaiError, `${where} is not a ZkvaiError`).toBe(
        true,
      );
      // Its own: a subclass that inherited its parent's code would be told apart by nothing but its name.
      expect(Object.hasOwn(cls, "code"), `${where} declares no static code`).toBe(true);
      const code = cls.code;
      expect(
        typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code),
        `${where}: code ${String(code)}`,
      ).toBe(true);
      expect(byCode.get(code as string), `${where} reuses code ${String(code)}`).toBeUndefined();
      byCode.set(code as string, where);
    }
  });

  it("ERROR_CODES lists every code a class carries, under that class's name, and nothing else", async () => {
    const carried = new Map((await exportedErrors()).map(({ cls }) => [cls.code as string, cls.name]));
    const table = new Map(Object.entries(ERROR_CODES).map(([code, info]) => [code, info.error]));
    const unlisted = [...carried.keys()].filter((code) => !table.has(code));
    expect(unlisted, "codes a class carries but ERROR_CODES lacks").toEqual([]);
    const unused = [...table.keys()].filter((code) => !carried.has(code));
    expect(unused, "codes ERROR_CODES lists but no error class carries").toEqual([]);
    const misnamed = [...carried].filter(([code, name]) => table.get(code) !== name);
    expect(misnamed, "codes whose ERROR_CODES entry names another class").toEqual([]);
    for (const [code, info] of Object.entries(ERROR_CODES))
      expect(info.meaning.length, `${code} has no meaning`).toBeGreaterThan(10);
  });

  it("every docs pointer names a file and heading that exist", () => {
    const pointers = new Set([
      ERRORS_DOC,
      ...Object.values(ERROR_CODES).map((i) => ("docs" in i ? i.docs : ERRORS_DOC)),
    ]);
    const broken = [...pointers].filter((pointer) => {
      const [file, anchor] = pointer.split("#");
      if (!existsSync(join(ROOT, file))) return true;
      return anchor !== undefined && !headingAnchors(readFileSync(join(ROOT, file), "utf8")).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it("the docs name no code that ERROR_CODES lacks", () => {
    const docs = ["README.md", ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`)].filter((f) =>
      f.endsWith(".md"),
    );
    // A code is named as "code `X`", as `"X"` compared with a code, or in the errors section's tables.
    const named =
      /\bcodes?\s+`([A-Z][A-Z0-9_]+)`|code\s*[!=]==?\s*"([A-Z][A-Z0-9_]+)"|case\s+"([A-Z][A-Z0-9_]+)"/g;
    const unknown = docs.flatMap((f) =>
      [...readFileSync(join(ROOT, f), "utf8").matchAll(named)]
        .map((m) => m[1] ?? m[2] ?? m[3])
        .filter((code) => !Object.hasOwn(ERROR_CODES, code))
        .map((code) => `${f}: ${code}`),
    );
    expect(unknown).toEqual([]);
  });

  it("product code throws a plain Error only at the misuse sites listed here", () => {
    // file -> how many `new Error(` it holds, each justified: misuse by the caller's code, an unreachable state,
    // or an error that never leaves its module (caught and turned into a ZkvaiError or recorded text).
    const allowed: Record<string, number> = {
      // EscrowClient used without the wallet a transaction needs (.as(wallet)): misuse.
      "sdk/chain/escrow.ts": 2,
      // installPoseidon handed a function that is not Poseidon: the leaf worker catches it and keeps poseidon-lite.
      "sdk/core/hash.ts": 1,
      // Caught on the next line and rethrown as StoreError (STORE_FAILED) with it as the cause.
      "sdk/provider/store-sqlite.ts": 2,
      // A worker thread asked for a method its facade never sends (store-postgres.ts calls only its worker's): misuse.
      "sdk/provider/sync-worker.ts": 1,
      // storedResult never throws: these become the record's "$unstorable" text.
      "sdk/provider/session-results.ts": 7,
      // Bench samples built from the repository's own fixtures: a fixture without what it must hold is a bug.
      "sdk/core/predicates/aap5/samples.ts": 2,
      // The τ³ fact layout's invariants (two facts of one slot on one row; a layout not RULE_FACTS long): a bug in
      // the profile's code, never a record's doing.
      "sdk/core/rules/tau-facts.ts": 2,
      // snarkjs' verifier template lost its one contract, or ours (contracts/templates/) a placeholder's value:
      // a template's invariant, not an input.
      "sdk/manifest/verifier-source.ts": 2,
      // A replay's function is never run: unreachable.
      "sdk/adapters/openai-agents.ts": 1,
      // The tool's own error as the harness reported it (a string), recorded as the call's error, not zkVAI's.
      "sdk/adapters/claude-agent-sdk.ts": 1,
      // "internal:" the ptau a key was built from changed under setup: unreachable.
      "prover/artifacts/setup.ts": 1,
      // The fixed dev seed never lands τ in an FFT domain: unreachable.
      "prover/artifacts/devptau.ts": 1,
      // Jobs for a table the pool has not loaded: the pool's own invariant.
      "prover/artifacts/devptau-pool.ts": 1,
      // Inside the worker thread: only the message crosses back; the pool rethrows it as a ToolError.
      "prover/artifacts/devptau-worker.mjs": 3,
      // ClaimWatcher used out of order (open without a wallet, tick while ticking, run twice, closed): misuse.
      "prover/watcher.ts": 5,
    };
    const counts: Record<string, number> = {};
    for (const dir of ["sdk", "prover", "bin"])
      for (const file of sources(join(ROOT, dir), [".ts", ".mjs"])) {
        const n = (readFileSync(file, "utf8").match(/\bnew Error\(/g) ?? []).length;
        if (n > 0) counts[relative(ROOT, file)] = n;
      }
    expect(counts).toEqual(allowed);
  });

  it("instances carry their class's code and keep their own name", async () => {
    const { ClaimNotOpenError, ClaimError } = await import("../../prover/claims.js");
    const { ClaimStatus } = await import("../../sdk/chain/escrow.js");
    const { InvalidCallError, InvalidRecordError } = await import("../../sdk/core/errors.js");
    const e = new ClaimNotOpenError(5n, 2);
    expect(e).toBeInstanceOf(ClaimError);
    expect(e).toBeInstanceOf(ZkvaiError);
    expect(e.code).toBe("CLAIM_NOT_OPEN");
    expect(e.name).toBe("ClaimNotOpenError");
    const call = new InvalidCallError("no actionId");
    expect(call).toBeInstanceOf(InvalidRecordError);
    expect([call.code, new InvalidRecordError("x").code]).toEqual(["INVALID_CALL", "INVALID_RECORD"]);
    expect(String(call)).toBe("InvalidCallError: no actionId");
    // A class's own fields are in its details too, as JSON (a bigint as its decimal string).
    expect(e.details).toEqual({ claimId: "5", status: ClaimStatus[2] });
    const { GuardRefusal } = await import("../../sdk/core/errors.js");
    expect(new GuardRefusal("aap4", 1, "not allowed", 7).details).toEqual({
      predicate: "aap4",
      promiseIndex: 1,
      reason: "not allowed",
      seq: 7,
    });
  });

  it("carries cause, details and docs, and keeps old constructors working", async () => {
    const { ChainStateError, EscrowRevertError } = await import("../../sdk/chain/escrow-errors.js");
    const { ToolError } = await import("../../prover/artifacts/zkfiles.js");
    const { InputError } = await import("../../sdk/core/errors.js");

    // Old form: message only. No cause property at all (ES2022), empty details, the default docs.
    const plain = new InputError("bad flag");
    expect(Object.hasOwn(plain, "cause")).toBe(false);
    expect(plain.details).toEqual({});
    expect(plain.docs).toBe(ERRORS_DOC);

    const root = new TypeError("socket closed");
    const e = new ChainStateError("expected one ClaimFiled in 0xab", {
      cause: root,
      details: { event: "ClaimFiled", txHash: "0xab", found: 0, ids: ["1", "2"], extra: null },
    });
    expect(e.cause).toBe(root);
    expect(e.code).toBe("UNEXPECTED_CHAIN_STATE");
    expect(JSON.parse(JSON.stringify(e.details))).toEqual(e.details);
    expect(e.details.found).toBe(0);
    expect(new ChainStateError("x", { docs: "docs/PROTOCOL.md#events" }).docs).toBe(
      "docs/PROTOCOL.md#events",
    );

    // A code's own docs pointer; classes with their own constructor arguments take the options last.
    expect(new EscrowRevertError("fileClaim", "NotCovered", "reverted", { cause: root }).docs).toBe(
      "docs/PROTOCOL.md#custom-errors",
    );
    expect(new EscrowRevertError("fileClaim", "NotCovered", "reverted", { cause: root }).cause).toBe(root);
    const tool = new ToolError("circom failed", "line 1", { cause: root, details: { exitCode: 1 } });
    expect([tool.message, tool.cause, tool.details]).toEqual([
      "circom failed\n--- output tail ---\nline 1",
      root,
      { exitCode: 1 },
    ]);
  });

  it("operational failures that were plain Errors now carry their code, details and cause", async () => {
    const { parseInstances } = await import("../../prover/artifacts/instances.js");
    let thrown: unknown;
    try {
      parseInstances("{not json", join(ROOT, "circuits/instances.json"));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ZkvaiError);
    expect((thrown as ZkvaiError).code).toBe("BAD_INSTANCES");
    expect((thrown as ZkvaiError).cause).toBeInstanceOf(SyntaxError);
    expect((thrown as Error).message).toMatch(/^circuits\/instances\.json: not JSON/);

    const { escrowFailure, ChainStateError, EscrowTxError } =
      await import("../../sdk/chain/escrow-errors.js");
    // A receipt without its event still surfaces from fileClaim as an EscrowTxError, as before, caused by it.
    const missing = new ChainStateError("expected one ClaimFiled in 0xab");
    const wrapped = escrowFailure("fileClaim", missing);
    expect(wrapped).toBeInstanceOf(EscrowTxError);
    expect([wrapped.message, wrapped.cause]).toEqual([
      "fileClaim failed: expected one ClaimFiled in 0xab",
      missing,
    ]);
  });
});
