// The README's checked blocks: a fenced code block right after a `<!-- readme-run: NAME -->` line is run
// (test/docs/readme.test.ts; the package smoke test also runs the library snippet as written in an installed
// project, scripts/package-smoke.ts); one after `<!-- readme-check: NAME -->`, a fragment that names the
// reader's own objects (their model, their tools), is type-checked against the real APIs
// (test/docs/readme-snippets.test.ts). So the README cannot drift from the code.
import { readFileSync } from "node:fs";
import path from "node:path";

export type ReadmeMode = "run" | "check";

export interface ReadmeBlock {
  name: string;
  mode: ReadmeMode;
  /** The fence's language: "js", "sh", … */
  lang: string;
  code: string;
}

const MARKED = /<!-- readme-(run|check): ([\w-]+) -->\s*\n```(\w*)\n([\s\S]*?)\n```/g;

/** The marked blocks of the README at `root` (of one mode, or all), by name; a name marked twice is an error. */
export function readmeBlocks(root: string, mode?: ReadmeMode): Map<string, ReadmeBlock> {
  const text = readFileSync(path.join(root, "README.md"), "utf8");
  const blocks = new Map<string, ReadmeBlock>();
  for (const [, kind, name, lang, code] of text.matchAll(MARKED)) {
    if (blocks.has(name!)) throw new Error(`README.md marks two blocks "${name}"`);
    if (mode === undefined || kind === mode)
      blocks.set(name!, { name: name!, mode: kind as ReadmeMode, lang: lang!, code: code! });
  }
  return blocks;
}

/** The block named `name`; throws naming the blocks there are when it is missing. */
export function readmeBlock(root: string, name: string): ReadmeBlock {
  const blocks = readmeBlocks(root, "run");
  const block = blocks.get(name);
  if (!block)
    throw new Error(`README.md marks no runnable block "${name}" (marked: ${[...blocks.keys()].join(", ")})`);
  return block;
}
