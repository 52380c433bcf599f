// The links between a manifest and the verifier code on a chain, needing nothing but the manifest and the
// package: the verification key (embedded in the manifest entry, or the build's key file) against the sha256
// the entry records; the verifier's Solidity source, regenerated from that key with its template (snarkjs' for a
// whole-claim circuit, contracts/templates/SegmentVerifier.sol.tmpl for a segment circuit) exactly as setup wrote it (or the build's file), against its recorded sha256; the key against the constants
// hard-coded in that source; and the source compiled with solc-js (expected-code.ts) against on-chain code.
// Each check throws SettlementInvalid naming the link that does not hold, or SettlementUncheckable when the
// evidence is not here.
import type { Address, Hex } from "viem";
import type { ChainHandle } from "../chain/network.js";
import {
  loadManifest,
  manifestPath as defaultManifestPath,
  type CircuitEntry,
  type Manifest,
  type VerificationKey,
} from "../manifest/manifest.js";
import {
  SEGMENT_PUBLIC_INPUTS,
  SEGMENT_VERIFIER_TEMPLATE,
  verifierSource,
  vkeyFileText,
} from "../manifest/verifier-source.js";
import { pkgVersion } from "../manifest/packages.js";
import { compileContract, sameCode, SETTINGS_LABEL, type ExpectedCode } from "./expected-code.js";
import { buildFile, rel } from "./build-files.js";
import { sha256Hex as sha256 } from "./solc-target.js";
import { SettlementInvalid, SettlementUncheckable } from "./errors.js";
export { ManifestError } from "../manifest/manifest.js";
export { SettlementInvalid, SettlementUncheckable } from "./errors.js";
export type { VerificationKey } from "../manifest/manifest.js";

export { rel } from "./build-files.js";

export async function codeAt(chain: ChainHandle, address: Address): Promise<Hex> {
  return (await chain.publicClient.getCode({ address })) ?? "0x";
}

/**
 * Circuit `name`'s verification key: the one its manifest entry embeds, or else the build's key file; either
 * way its bytes must hash to the entry's files.vkey.sha256, and it must be a bn128 Groth16 key for the entry's
 * public signals.
 */
export function manifestKey(
  name: string,
  entry: CircuitEntry,
  manifestPath: string,
): { vkey: VerificationKey; check: string } {
  const ref = entry.files.vkey;
  let vkey: VerificationKey;
  let check: string;
  if (entry.verificationKey !== undefined) {
    const actual = sha256(vkeyFileText(entry.verificationKey));
    if (actual !== ref.sha256)
      throw new SettlementInvalid(
        `the verification key ${rel(manifestPath)} embeds for ${name} has sha256 ${actual}, but the entry records ${ref.sha256}`,
      );
    vkey = entry.verificationKey;
    check = `${name}'s verification key, embedded in the manifest, has the sha256 it records (${ref.sha256})`;
  } else {
    const bytes = buildFile(ref, "verification key", manifestPath);
    if (!bytes)
      throw new SettlementUncheckable(
        `${rel(manifestPath)} embeds no verification key for ${name} (it was written before setup embedded keys), and the key file ${ref.path} it names is not here: use a manifest from a setup run since, or point ZKVAI_BUILD_DIR at the build/ it describes`,
      );
    try {
      vkey = JSON.parse(new TextDecoder().decode(bytes)) as VerificationKey;
    } catch {
      throw new SettlementInvalid(`verification key ${ref.path} is not JSON`);
    }
    check = `verification key ${ref.path} has the sha256 the manifest records (${ref.sha256})`;
  }
  const nPublic = entry.publicSignals.length;
  const shaped =
    vkey?.protocol === "groth16" &&
    vkey.curve === "bn128" &&
    vkey.nPublic === nPublic &&
    Array.isArray(vkey.IC) &&
    vkey.IC.length === nPublic + 1 &&
    [vkey.vk_alpha_1, vkey.vk_beta_2, vkey.vk_gamma_2, vkey.vk_delta_2].every(Array.isArray);
  if (!shaped)
    throw new SettlementInvalid(
      `${name}'s verification key is not a bn128 Groth16 key for ${nPublic} public inputs`,
    );
  return { vkey, check };
}

/**
 * Circuit `name`'s verifier source, pinned by the entry's files.verifierSol.sha256: regenerated from `vkey` as
 * setup writes it, or, when the installed snarkjs renders it differently, the build's file.
 */
export function verifierSourceOf(
  name: string,
  entry: CircuitEntry,
  vkey: VerificationKey,
  manifestPath: string,
): { source: string; check: string } {
  const ref = entry.files.verifierSol;
  let regenerated: string;
  try {
    regenerated = verifierSource(vkey, name, entry.files.zkey.sha256);
  } catch (e) {
    throw new SettlementInvalid(
      `${name}'s verification key does not render as a verifier: ${(e as Error).message}`,
    );
  }
  const actual = sha256(regenerated);
  if (actual === ref.sha256)
    return {
      source: regenerated,
      check: `${ref.path}, regenerated from that key with ${templateOf(vkey)}, has the sha256 the manifest records (${ref.sha256})`,
    };
  const file = buildFile(ref, "verifier source", manifestPath);
  if (file)
    return {
      source: new TextDecoder().decode(file),
      check: `verifier source ${ref.path} has the sha256 the manifest records (${ref.sha256})`,
    };
  throw new SettlementInvalid(
    `verifier source ${ref.path}: the manifest records sha256 ${ref.sha256}, but regenerating it from ${name}'s key with ${templateOf(vkey)} (snarkjs ${pkgVersion("snarkjs")}) gives ${actual}`,
  );
}

/** Which template renders a key's verifier (verifier-source.ts renderVerifier): by its number of public inputs. */
function templateOf(vkey: VerificationKey): string {
  return vkey.nPublic === SEGMENT_PUBLIC_INPUTS ? SEGMENT_VERIFIER_TEMPLATE : "snarkjs' template";
}

/** The Solidity verifier hard-codes its key; every constant must be the vkey's (snarkjs swaps G2 limbs). */
export function checkVkeyInSource(
  vkey: VerificationKey,
  source: string,
  solName: string,
  vkeyName: string,
): void {
  const constants = new Map<string, string>();
  for (const m of source.matchAll(/uint256\s+constant\s+(\w+)\s*=\s*(\d+)\s*;/g)) constants.set(m[1], m[2]);
  const expected: [string, string][] = [
    ["alphax", vkey.vk_alpha_1[0]],
    ["alphay", vkey.vk_alpha_1[1]],
  ];
  for (const [name, g2] of [
    ["beta", vkey.vk_beta_2],
    ["gamma", vkey.vk_gamma_2],
    ["delta", vkey.vk_delta_2],
  ] as const) {
    expected.push(
      [`${name}x1`, g2[0][1]],
      [`${name}x2`, g2[0][0]],
      [`${name}y1`, g2[1][1]],
      [`${name}y2`, g2[1][0]],
    );
  }
  vkey.IC.forEach((p, i) => expected.push([`IC${i}x`, p[0]], [`IC${i}y`, p[1]]));
  const icCount = [...constants.keys()].filter((k) => /^IC\d+x$/.test(k)).length;
  const differing = expected.find(([k, v]) => constants.get(k) !== String(v));
  if (differing || icCount !== vkey.IC.length) {
    throw new SettlementInvalid(
      `verification key ${vkeyName} is not the one hard-coded in ${solName} (${differing ? differing[0] : "IC count"} differs)`,
    );
  }
}

/** What a manifest circuit's verifier must be on chain, and the key it hard-codes, with each link established. */
export interface VerifierExpectation {
  vkey: VerificationKey;
  code: ExpectedCode;
  checks: string[];
}

/**
 * Circuit `name`'s key, its verifier source and that source's compiled code, every link checked against the
 * manifest: key sha256, source sha256, key = the source's constants. Compiling is cached (expected-code.ts).
 */
export function expectedVerifier(
  name: string,
  entry: CircuitEntry,
  manifestPath: string,
): VerifierExpectation {
  const key = manifestKey(name, entry, manifestPath);
  const src = verifierSourceOf(name, entry, key.vkey, manifestPath);
  checkVkeyInSource(key.vkey, src.source, entry.files.verifierSol.path, `of ${name}`);
  const code = compileContract(
    { [entry.files.verifierSol.path]: src.source },
    entry.files.verifierSol.path,
    entry.verifierContract,
  );
  return {
    vkey: key.vkey,
    code,
    checks: [
      key.check,
      src.check,
      `that key is the one hard-coded in ${entry.files.verifierSol.path}`,
      `compiling ${entry.files.verifierSol.path} (${SETTINGS_LABEL}) gives ${entry.verifierContract}'s runtime code`,
    ],
  };
}

/** Throws unless `address` runs exactly the verifier of circuit `name` (the prover's check before proving). */
export async function checkVerifierCode(
  chain: ChainHandle,
  address: Address,
  name: string,
  manifest?: Manifest,
  manifestPath = defaultManifestPath(),
): Promise<void> {
  const entry = (manifest ?? loadManifest()).circuits[name];
  if (!entry) throw new SettlementInvalid(`the manifest has no circuit ${name}`);
  const { code } = expectedVerifier(name, entry, manifestPath);
  if (!sameCode(await codeAt(chain, address), code))
    throw new SettlementInvalid(
      `the on-chain code of verifier ${address} is not ${entry.verifierContract} compiled from ${entry.files.verifierSol.path}`,
    );
}
