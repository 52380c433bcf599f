// The README's runnable blocks: a fenced code block right after a `<!-- readme-run: NAME -->` line. The README
// test runs each (test/docs/readme.test.ts), and the package smoke test runs the library snippet as written in
// an installed project (scripts/package-smoke.ts), so the README cannot drift from the code.
import { readFileSync } from "node:fs";
import path from "node:path";

export interface ReadmeBlock {
  name: string;
  /** The fence's language: "js", "sh", … */
  lang: string;
  code: string;
}

const MARKED = /<!-- readme-run: ([\w-]+) -->\s*\n```(\w*)\n([\s\S]*?)\n```/g;

/** Every marked block of the README at `root`, by name; a name marked twice is an error. */
export function readmeBlocks(root: string): Map<string, ReadmeBlock> {
  const text = readFileSync(path.join(root, "README.md"), "utf8");
  const blocks = new Map<string, ReadmeBlock>();
  for (const [, name, lang, code] of text.matchAll(MARKED)) {
    if (blocks.has(name!)) throw new Error(`README.md marks two blocks "${name}"`);
    blocks.set(name!, { name: name!, lang: lang!, code: code! });
  }
  return blocks;
}

/** The block named `name`; throws naming the blocks there are when it is missing. */
export function readmeBlock(root: string, name: string): ReadmeBlock {
  const blocks = readmeBlocks(root);
  const block = blocks.get(name);
  if (!block)
    throw new Error(`README.md marks no runnable block "${name}" (marked: ${[...blocks.keys()].join(", ")})`);
  return block;
}
