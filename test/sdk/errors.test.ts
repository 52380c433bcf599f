// One error root: every error class in sdk/, prover/ and scripts/ descends from ZkvaiError and has its own
// stable, unique code, listed in sdk/core/errors.ts. The classes are found, not listed: every module that
// declares a class extending an error is imported, and each error its exports hold is checked, so a new
// error class is covered the day it is written.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ZkvaiError } from "../../sdk/core/errors.js";

const ROOT = join(import.meta.dirname, "..", "..");
const DIRS = ["sdk", "prover", "scripts"];
const DECLARATION = /^\s*(export\s+)?(?:abstract\s+)?class\s+(\w+)\s+extends\s+(\w+)/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === "node_modules" || d.name === "generated" ? [] : sources(path);
    return d.name.endsWith(".ts") && !d.name.endsWith(".d.ts") ? [path] : [];
  });
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
    // sdk/core/errors.ts lists every code, so that a reader finds them in one place.
    const list = readFileSync(join(ROOT, "sdk/core/errors.ts"), "utf8");
    const unlisted = [...byCode.keys()].filter((code) => !new RegExp(`\\b${code}\\b`).test(list));
    expect(unlisted, "codes missing from the list in sdk/core/errors.ts").toEqual([]);
  });

  it("instances carry their class's code and keep their own name", async () => {
    const { ClaimNotOpenError, ClaimError } = await import("../../prover/claims.js");
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
  });
});
