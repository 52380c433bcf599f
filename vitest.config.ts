import { configDefaults, defineConfig } from "vitest/config";
import { FULL_ONLY } from "./scripts/lib/test-suites.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(process.env.ZKVAI_FULL === "1" ? [] : FULL_ONLY)],
    // Proving and Hardhat's in-process chain are slow to start; forks keep snarkjs' worker threads and
    // Hardhat's singleton runtime out of each other's way.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    // The default is cores − 1, which is one worker on the 2-core CI machines; the slow files are
    // single-threaded witness and fast-check loops, so two workers halve the wall time.
    maxWorkers: 2,
    // Sessions hash their leaves on a worker thread by default (sdk/provider/leaf-hasher.ts), which costs each
    // test file that records ~1 s of CPU to start: the suites hash inline, except test/sdk/leaf-hasher.test.ts
    // (whole sessions on the worker) and test:package (the installed package's worker).
    env: { VAI_LEAF_HASHING: process.env.VAI_LEAF_HASHING ?? "inline" },
  },
});
