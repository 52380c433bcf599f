// The user's expected runtime code is compiled here from sources, with settings that must be exactly
// hardhat.config.cjs's, which built what was deployed: the settings are compared with Hardhat's resolved config,
// and the code compiled from the package's sources (and from each verifier source regenerated from its key)
// with the artifact Hardhat built from the same source.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hardhatArtifactsDir } from "../../sdk/chain/locations.js";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import {
  compileContract,
  packageContract,
  SOLC_SETTINGS,
  SOLC_VERSION,
  SOURCE_SETTINGS,
} from "../../sdk/user/expected-code.js";
import { loadManifest } from "../../sdk/manifest/manifest.js";
import { verifierSource } from "../../sdk/manifest/verifier-source.js";
import { REPO_ROOT } from "../helpers/repo.js";

interface HardhatSolidity {
  compilers: { version: string; settings: Record<string, unknown> }[];
  overrides: Record<string, { version: string; settings: Record<string, unknown> }>;
}
let solidity: HardhatSolidity;

beforeAll(async () => {
  await embeddedChain(); // loads Hardhat with the package's config
  solidity = ((await import("hardhat")).default.config as unknown as { solidity: HardhatSolidity }).solidity;
});

const withoutOutput = (s: Record<string, unknown>) => {
  const { outputSelection: _, ...rest } = s;
  return rest;
};

/** The deployed bytecode Hardhat built for a source, and the source text it compiled. */
function artifact(sourceName: string, contract: string): { deployedBytecode: string; source: string } {
  const file = path.join(hardhatArtifactsDir(), sourceName, `${contract}.json`);
  const dbg = JSON.parse(readFileSync(file.replace(/\.json$/, ".dbg.json"), "utf8")) as { buildInfo: string };
  const info = JSON.parse(readFileSync(path.resolve(path.dirname(file), dbg.buildInfo), "utf8")) as {
    input: { sources: Record<string, { content: string }> };
  };
  const { deployedBytecode } = JSON.parse(readFileSync(file, "utf8")) as { deployedBytecode: string };
  return { deployedBytecode, source: info.input.sources[sourceName]!.content };
}

describe("expected runtime code", () => {
  it("compiles with hardhat.config.cjs's compiler and settings, the Poseidon override included", () => {
    expect(solidity.compilers).toHaveLength(1);
    expect(solidity.compilers[0]!.version).toBe(SOLC_VERSION);
    expect(withoutOutput(solidity.compilers[0]!.settings)).toEqual(SOLC_SETTINGS);
    expect(Object.keys(solidity.overrides)).toEqual(Object.keys(SOURCE_SETTINGS));
    for (const [source, o] of Object.entries(solidity.overrides)) {
      expect(o.version).toBe(SOLC_VERSION);
      expect(withoutOutput(o.settings)).toEqual(SOURCE_SETTINGS[source]);
    }
  });

  it("gives Hardhat's bytecode for the escrow and its Poseidon, from the package's sources", () => {
    for (const [source, contract] of [
      ["contracts/Escrow.sol", "Escrow"],
      ["contracts/PoseidonT4.sol", "PoseidonT4"],
    ] as const) {
      const built = artifact(source, contract);
      // Hardhat's build must be of today's source, or the comparison says nothing (rebuild: npm run setup).
      expect(built.source, `${source} changed since Hardhat compiled it`).toBe(
        readFileSync(path.join(REPO_ROOT, source), "utf8"),
      );
      expect(packageContract(source, contract).deployedBytecode).toBe(built.deployedBytecode);
    }
  });

  it("gives Hardhat's bytecode for every verifier, from the source regenerated from its key", () => {
    const manifest = loadManifest();
    for (const [name, entry] of Object.entries(manifest.circuits)) {
      const sourceName = entry.files.verifierSol.path;
      if (!existsSync(path.join(hardhatArtifactsDir(), sourceName))) continue;
      const key = JSON.parse(readFileSync(path.join(REPO_ROOT, entry.files.vkey.path), "utf8")) as object;
      const source = verifierSource(key, name, entry.files.zkey.sha256);
      const built = artifact(sourceName, entry.verifierContract);
      expect(source, name).toBe(built.source);
      const code = compileContract({ [sourceName]: source }, sourceName, entry.verifierContract);
      expect(code.deployedBytecode, name).toBe(built.deployedBytecode);
    }
  });
});
