// Hardhat 2 config. CommonJS because package.json is "type": "module" and Hardhat 2 loads configs with require().
// Compilation is offline: Hardhat's compiler list is unreachable here, so the solc-js build shipped in the
// `solc` npm package stands in whenever its version is the one requested.
const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

const SOLC_VERSION = "0.8.28";

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, _hre, runSuper) => {
  const installed = require("solc/package.json").version;
  if (args.solcVersion !== installed) return runSuper(args);
  // Required lazily: loading soljson.js costs seconds and only compilation needs it.
  const solc = require("solc");
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: args.solcVersion,
    longVersion: solc.version().replace(/\.Emscripten.*$/, ""),
  };
});

/** @type {import("hardhat/config").HardhatUserConfig} */
module.exports = {
  solidity: {
    // The `compilers` form: with a top-level `version`, Hardhat 2 silently drops `overrides`.
    compilers: [
      {
        version: SOLC_VERSION,
        settings: {
          optimizer: { enabled: true, runs: 200 },
          viaIR: false,
          // Pinned so bytecode does not move with Hardhat's default; Hardhat's network runs a later fork (Osaka).
          evmVersion: "cancun",
        },
      },
    ],
    overrides: {
      // Generated straight-line assembly (scripts/gen-poseidon3.ts). The Yul optimiser's SSA rewrite of its ~1,000
      // reassignments runs out of stack slots, and there is nothing left for it to improve: the block compiles as
      // written, and the legacy optimiser only tidies the opcodes.
      "contracts/PoseidonT4.sol": {
        version: SOLC_VERSION,
        settings: {
          optimizer: { enabled: true, runs: 200, details: { yul: false } },
          viaIR: false,
          evmVersion: "cancun",
        },
      },
    },
  },
  paths: {
    // contracts/generated/ (snarkjs verifiers, git-ignored) sits under sources, so it compiles with the rest.
    sources: "contracts",
    artifacts: "build/hardhat/artifacts",
    cache: "build/hardhat/cache",
  },
  networks: {
    hardhat: {
      chainId: 31337,
      allowUnlimitedContractSize: false,
    },
  },
};
