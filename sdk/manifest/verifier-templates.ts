// The templates verifier-source.ts renders, read from the installed packages (Node; the page's twin,
// verifier-templates.browser.ts, carries the same texts, bundled by its build).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pkgDir, ROOT } from "./packages.js";

/** The segment verifier's template: ours, not snarkjs', because it also checks a batch of links in one go. */
const SEGMENT_TEMPLATE_FILE = "contracts/templates/SegmentVerifier.sol.tmpl";

let template: string | undefined;

/** snarkjs' Groth16 Solidity template and its renderer, ejs, resolved from snarkjs itself (its dependency). */
export function renderer(): { template: string; render(template: string, data: object): string } {
  const dir = pkgDir("snarkjs");
  template ??= readFileSync(path.join(dir, "templates/verifier_groth16.sol.ejs"), "utf8");
  const ejs = createRequire(path.join(dir, "package.json"))("ejs") as {
    render(template: string, data: object): string;
  };
  return { template, render: (t, d) => ejs.render(t, d) };
}

export function segmentTemplate(): string {
  return readFileSync(path.join(ROOT, SEGMENT_TEMPLATE_FILE), "utf8");
}
