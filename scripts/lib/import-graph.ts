// The product's import graph, read from source text: every relative import, re-export, dynamic import and
// createRequire load of the TypeScript under the layered folders, resolved to its file. test/boundaries.test.ts
// checks it against the layer table; `npx tsx scripts/import-graph.ts` prints what runs back up and any circle.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** The top-level folders, lowest first: an import may run from a later folder to an earlier one, never back. */
export const FOLDER_ORDER = ["sdk", "prover", "bin", "examples", "scripts"] as const;

// Static imports and re-exports, side-effect imports, dynamic imports (string or template literal without
// substitutions) and createRequire(...)(...) loads.
export const IMPORT =
  /(?:^|[^\w.])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|[^\w.])import\s*["']([^"']+)["']|import\(\s*["'`]([^"'`$]+)["'`]\s*\)|createRequire\([^)]*\)\(\s*["']([^"']+)["']\s*\)/gs;

export function sourcesUnder(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (name === "generated" || name === "node_modules") return [];
    if (statSync(path.join(root, rel)).isDirectory()) return sourcesUnder(root, rel);
    return /\.(ts|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [rel] : [];
  });
}

/** Source text without whole-line comments, so a commented-out import is not an import. */
export function codeOf(root: string, rel: string): string {
  return readFileSync(path.join(root, rel), "utf8").replace(/^\s*\/\/.*$/gm, "");
}

export function specifiersIn(code: string): string[] {
  return [...code.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]);
}

export function resolveRelative(from: string, spec: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, ".ts");
}

export interface ImportEdge {
  from: string;
  to: string;
}

/** Every relative import between the product's files (package imports are left to the caller). */
export function relativeEdges(root: string): ImportEdge[] {
  const files = FOLDER_ORDER.flatMap((dir) => sourcesUnder(root, dir));
  return files.flatMap((from) =>
    specifiersIn(codeOf(root, from))
      .filter((spec) => spec.startsWith("."))
      .map((spec) => ({ from, to: resolveRelative(from, spec) })),
  );
}

const rankOf = (file: string) => FOLDER_ORDER.indexOf(file.split("/")[0] as (typeof FOLDER_ORDER)[number]);

/** Imports from a lower top-level folder into a higher one (examples and scripts are peers at the top). */
export function upwardEdges(edges: ImportEdge[]): ImportEdge[] {
  const rank = (f: string) => Math.min(rankOf(f), FOLDER_ORDER.indexOf("examples"));
  return edges.filter((e) => rankOf(e.to) >= 0 && rank(e.to) > rank(e.from));
}

/** The import circles: strongly connected sets of two or more files (Tarjan), each sorted. */
export function importCircles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const members: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      if (members.length > 1) circles.push(members.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return circles;
}
