// Files the compiled package needs beside tsc's output: plain JavaScript worker entries that are started by
// URL, so tsc does not emit them (the dev-ptau worker, prover/artifacts/devptau-pool.ts; the leaf hasher's
// and the Postgres store's boot script, sdk/provider/leaf-hasher.ts and sync-worker.ts).
import { copyFileSync, mkdirSync } from "node:fs";

for (const file of ["prover/artifacts/devptau-worker.mjs", "sdk/provider/leaf-worker-boot.mjs"]) {
  mkdirSync(new URL(`../dist/${file}/..`, import.meta.url), { recursive: true });
  copyFileSync(new URL(`../${file}`, import.meta.url), new URL(`../dist/${file}`, import.meta.url));
}
