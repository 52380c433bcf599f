// Files the compiled package needs beside tsc's output: the dev-ptau worker is plain JavaScript that
// prover/artifacts/devptau-pool.ts starts by URL, so tsc does not emit it.
import { copyFileSync, mkdirSync } from "node:fs";

for (const file of ["prover/artifacts/devptau-worker.mjs"]) {
  mkdirSync(new URL(`../dist/${file}/..`, import.meta.url), { recursive: true });
  copyFileSync(new URL(`../${file}`, import.meta.url), new URL(`../dist/${file}`, import.meta.url));
}
