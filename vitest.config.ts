import { configDefaults, defineConfig } from "vitest/config";

/**
 * Suites that run only in `npm run test:full` (ZKVAI_FULL=1), which `.ci/run` runs after `npm test`: the
 * adversarial sweeps of AAP-2…5 (npm test keeps AAP-1's narrow sweep and every targeted exploit in
 * test/adversary/exploits.test.ts) and the multi-process provider runtime (a hardhat node, a recorder and a
 * watcher as child processes, killed and restarted), and the segment-chain attacks on real proofs. Keeps a fresh `npm test` within its 10 minutes.
 */
const FULL_ONLY = [
  "test/adversary/aap2.sweep.test.ts",
  "test/adversary/aap3.sweep.test.ts",
  "test/adversary/aap4.sweep.test.ts",
  "test/adversary/aap5.sweep.test.ts",
  "test/integration/provider-runtime.test.ts",
  "test/full/segment-attacks.test.ts",
];

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
  },
});
