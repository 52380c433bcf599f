// Powers-of-tau selection for setup: an operator-supplied file (VAI_PTAU), or none at all for the
// INSECURE development setup, whose keys are computed directly from a public τ (devzkey.ts).

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { DEV_PTAU_SEED } from "./devptau.js";
import { DEV_ZKEY_VERSION } from "./devzkey.js";
import type { Progress, StepHandle } from "./progress.js";
import { BN128_Q, readPtauHeader, sha256File, writeFileAtomic } from "./zkfiles.js";
import { PtauError } from "./errors.js";

export interface PtauChoice {
  file: string;
  sha256: string;
  power: number;
  source: "VAI_PTAU" | "generated-dev";
  insecure: boolean;
}

/** Number of progress steps `resolvePtau` reports, so the caller can announce a stable total. */
export function ptauStepCount(): number {
  return 1;
}

/** What the manifest names as the ptau of a development setup, which has no ptau file. */
export const DEV_DIRECT_PATH = "(none: INSECURE dev keys built directly from the public τ)";
/** The largest domain of the dev setup: ffjavascript's roots of unity stop at 2^28, and H needs 2n. */
export const DEV_MAX_POWER = 27;

export const DEV_BANNER = [
  "!".repeat(78),
  "!! INSECURE DEVELOPMENT SETUP: no VAI_PTAU was given, so the Groth16 keys are computed from a",
  "!! PUBLIC τ (prover/artifacts/devzkey.ts). Anyone can forge proofs against these keys. Never use them",
  "!! for real money. Point VAI_PTAU at a public multi-party ptau (e.g. Hermez / perpetual powers of",
  "!! tau, prepared for phase 2) and run a multi-party phase-2 ceremony for production.",
  "!".repeat(78),
].join("\n");

/** snarkjs logs through a `{debug, info, warn, error}` object; route it to the live step line. */
export function snarkLogger(handle: StepHandle, errors: string[]): Record<string, (msg: string) => void> {
  return {
    debug: (m) => handle.note(m),
    info: (m) => handle.note(m),
    warn: (m) => handle.note(`warning: ${m}`),
    error: (m) => errors.push(m),
  };
}

// Hashing a 150 MB ptau costs about a second on every run; size + mtime identify an unchanged file.
async function cachedSha256(file: string, cacheFile: string): Promise<string> {
  const st = await stat(file);
  const key = `${path.resolve(file)}|${st.size}|${st.mtimeMs}`;
  let cache: Record<string, string> = {};
  try {
    cache = JSON.parse(await readFile(cacheFile, "utf8")) as Record<string, string>;
  } catch {
    // Missing or corrupt cache: recompute.
  }
  const hit = cache[key];
  if (hit) return hit;
  const sha = await sha256File(file);
  cache[key] = sha;
  await mkdir(path.dirname(cacheFile), { recursive: true });
  await writeFileAtomic(cacheFile, JSON.stringify(cache, null, 2) + "\n");
  return sha;
}

async function checkPtau(file: string, needPower: number, origin: string): Promise<number> {
  const header = await readPtauHeader(file).catch((error: Error) => {
    throw new PtauError(`${origin} ${file} is not a readable ptau file: ${error.message}`, {
      cause: error,
      details: { file },
    });
  });
  if (header.curveQ !== BN128_Q)
    throw new PtauError(`${origin} ${file} is not a bn128 ptau file`, { details: { file } });
  if (!header.prepared) {
    throw new PtauError(
      `${origin} ${file} is not prepared for phase 2; run \`snarkjs powersoftau prepare phase2\` on it`,
      { details: { file } },
    );
  }
  if (header.power < needPower) {
    throw new PtauError(
      `${origin} ${file} has power ${header.power} (2^${header.power} = ${2 ** header.power}); ` +
        `the circuits need power ${needPower}. Use a larger ptau.`,
      { details: { file, power: header.power, needPower } },
    );
  }
  return header.power;
}

export async function resolvePtau(options: {
  root: string;
  needPower: number;
  progress: Progress;
}): Promise<PtauChoice> {
  const { root, needPower, progress } = options;
  const hashCache = path.join(root, "build/ptau/sha256-cache.json");
  const env = process.env.VAI_PTAU;
  if (env) {
    const file = path.resolve(env);
    return progress.step(`check ptau ${path.basename(file)}`, async (h) => {
      if (!existsSync(file))
        throw new PtauError(`VAI_PTAU=${env}: file not found (${file})`, { details: { file } });
      const power = await checkPtau(file, needPower, "VAI_PTAU");
      h.note("sha256");
      const sha256 = await cachedSha256(file, hashCache);
      // We cannot tell a public ceremony file from a private one; only the operator can vouch for it.
      const insecure = process.env.VAI_PTAU_TRUSTED !== "1";
      return { file, sha256, power, source: "VAI_PTAU" as const, insecure };
    });
  }

  // No ptau file in development: every key is built directly from the public τ (devzkey.ts), as
  // snarkjs would build it from the INSECURE dev ptau of that circuit's power. The "sha256" names the
  // seed and the builder, so keys made by another seed or builder version are rebuilt.
  progress.log(DEV_BANNER);
  progress.skip(
    "INSECURE dev powers of tau",
    `none needed: keys are built directly from the public τ (up to 2^${DEV_MAX_POWER})`,
  );
  if (needPower > DEV_MAX_POWER)
    throw new PtauError(`the circuits need power ${needPower}; the dev setup reaches 2^${DEV_MAX_POWER}`, {
      details: { needPower, devMaxPower: DEV_MAX_POWER },
    });
  return {
    file: DEV_DIRECT_PATH,
    sha256: createHash("sha256").update(`${DEV_ZKEY_VERSION}\n${DEV_PTAU_SEED}`).digest("hex"),
    power: DEV_MAX_POWER,
    source: "generated-dev",
    insecure: true,
  };
}
