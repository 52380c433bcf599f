// The page's twin of expected-code.ts (the page build swaps it in: scripts/build-page.ts). A browser cannot run
// solc-js in reasonable time, so the page build compiled every contract the page may meet, with expected-code.ts
// itself, and ships the outputs keyed as the Node cache keys them: by compiler, settings and the full text of
// every source (solc-target.ts compileKey). The page computes that key from the sources it holds (the package's
// contracts, shipped with the page; a verifier's source, regenerated here from the manifest's key) and looks it
// up: a hit means "the page build compiled exactly this text"; a miss is SettlementUncheckable, never a pass.
import { SettlementUncheckable } from "./errors.js";
import {
  compileKey,
  contractSources,
  SOLC_VERSION,
  sourceSha256,
  type Compiled,
  type ExpectedCode,
} from "./solc-target.js";
export {
  sameCode,
  SOLC_SETTINGS,
  SOLC_VERSION,
  SOURCE_SETTINGS,
  type ExpectedCode,
  type SolcSettings,
} from "./solc-target.js";

/** Said in each check that rests on a compile: here, the page build's, looked up by the sources' text. */
export const SETTINGS_LABEL = `solc ${SOLC_VERSION}, optimizer 200 runs, evm cancun, compiled when this page was built`;

/** What the page build compiled: outputs by compile key, and the package contracts' sources by source name. */
export interface CompiledCode {
  code: Record<string, Compiled>;
  contracts: Record<string, string>;
}

let compiled: CompiledCode = { code: {}, contracts: {} };

/** Installs the page build's compiled code (the page fetches it beside the manifest). */
export function useCompiledCode(c: CompiledCode): void {
  compiled = c;
}

export function compileContract(
  sources: Record<string, string>,
  target: string,
  contractName: string,
): ExpectedCode {
  const out = compiled.code[compileKey(sources, target, contractName)];
  if (!out)
    throw new SettlementUncheckable(
      `this page was built without ${contractName} compiled from this ${target}: rebuild the page (npm run build:page) from the manifest you check against`,
    );
  return { sourceName: target, contractName, ...out, sourceSha256: sourceSha256(sources, target) };
}

export function packageContract(sourceName: string, contractName: string): ExpectedCode {
  const sources = contractSources(sourceName, (name) => {
    const text = compiled.contracts[name];
    if (text === undefined)
      throw new SettlementUncheckable(`${name} is not among the package sources this page was built with`);
    return text;
  });
  return compileContract(sources, sourceName, contractName);
}
