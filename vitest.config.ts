import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Proving and Hardhat's in-process chain are slow to start; forks keep snarkjs' worker threads and
    // Hardhat's singleton runtime out of each other's way.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
  },
});
