import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Proving and Hardhat's in-process chain are slow to start; forks keep snarkjs' worker threads and
    // Hardhat's singleton runtime out of each other's way.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    // The default is cores − 1, which is one worker on the 2-core CI machines; the slow files are
    // single-threaded witness and fast-check loops, so two workers halve the wall time.
    maxWorkers: 2,
  },
});
