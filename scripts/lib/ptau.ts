// Powers-of-tau selection for setup: an operator-supplied file (VAI_PTAU) or an INSECURE development
// file computed from a public τ (devptau.ts). Generated files are reused across runs and circuits.

import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { DEV_PTAU_SEED, writeDevPtau } from "./devptau.js";
import type { Progress, StepHandle } from "./progress.js";
import { BN128_Q, readPtauHeader, removeDebris, sha256File, tempName, writeFileAtomic } from "./zkfiles.js";

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

export const DEV_BANNER = [
  "!".repeat(78),
  "!! INSECURE DEVELOPMENT SETUP: no VAI_PTAU was given, so the powers of tau are computed from a",
  "!! PUBLIC τ (scripts/lib/devptau.ts). Anyone can forge proofs against these keys. Never use them",
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
    throw new Error(`${origin} ${file} is not a readable ptau file: ${error.message}`);
  });
  if (header.curveQ !== BN128_Q) throw new Error(`${origin} ${file} is not a bn128 ptau file`);
  if (!header.prepared) {
    throw new Error(
      `${origin} ${file} is not prepared for phase 2; run \`snarkjs powersoftau prepare phase2\` on it`,
    );
  }
  if (header.power < needPower) {
    throw new Error(
      `${origin} ${file} has power ${header.power} (2^${header.power} = ${2 ** header.power}); ` +
        `the circuits need power ${needPower}. Use a larger ptau.`,
    );
  }
  return header.power;
}

export async function resolvePtau(options: {
  root: string;
  needPower: number;
  progress: Progress;
  /** A generated file to reuse if it is large enough (the one the existing manifest names). */
  preferred?: string;
}): Promise<PtauChoice> {
  const { root, needPower, progress } = options;
  const hashCache = path.join(root, "build/ptau/sha256-cache.json");
  const env = process.env.VAI_PTAU;
  if (env) {
    const file = path.resolve(env);
    return progress.step(`check ptau ${path.basename(file)}`, async (h) => {
      if (!existsSync(file)) throw new Error(`VAI_PTAU=${env}: file not found (${file})`);
      const power = await checkPtau(file, needPower, "VAI_PTAU");
      h.note("sha256");
      const sha256 = await cachedSha256(file, hashCache);
      // We cannot tell a public ceremony file from a private one; only the operator can vouch for it.
      const insecure = process.env.VAI_PTAU_TRUSTED !== "1";
      return { file, sha256, power, source: "VAI_PTAU" as const, insecure };
    });
  }

  const dir = path.join(root, "build/ptau");
  await mkdir(dir, { recursive: true });
  await removeDebris(dir);
  const existing = (await readdir(dir))
    .map((f) => /^INSECURE_dev_pot(\d+)\.ptau$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ power: Number(m[1]), file: path.join(dir, m[0]) }))
    .filter((e) => e.power >= needPower)
    .sort((a, b) => a.power - b.power);

  progress.log(DEV_BANNER);
  // Prefer the file the current manifest was built with, so `--only` does not switch ptau under the
  // other circuits' keys.
  const reuse = existing.find((e) => e.file === options.preferred) ?? existing[0];
  if (reuse) {
    progress.skip(
      `generate INSECURE dev ptau (power ${reuse.power})`,
      `reusing ${path.relative(root, reuse.file)}`,
    );
    const power = await checkPtau(reuse.file, needPower, "generated");
    return {
      file: reuse.file,
      sha256: await cachedSha256(reuse.file, hashCache),
      power,
      source: "generated-dev",
      insecure: true,
    };
  }

  const power = needPower;
  const final = path.join(dir, `INSECURE_dev_pot${power}.ptau`);
  const temp = tempName(final);
  try {
    await progress.step(`generate INSECURE dev ptau 2^${power} from a public τ`, async (h) => {
      await writeDevPtau(temp, { power, onProgress: (m) => h.note(m) });
    });
    await rename(temp, final);
    const sha256 = await cachedSha256(final, hashCache);
    await writeFileAtomic(
      final.replace(/\.ptau$/, ".json"),
      JSON.stringify(
        { power, sha256, seed: DEV_PTAU_SEED, createdAt: new Date().toISOString(), insecure: true },
        null,
        2,
      ) + "\n",
    );
    return { file: final, sha256, power, source: "generated-dev", insecure: true };
  } catch (error) {
    await rm(temp, { force: true });
    throw new Error(`generating the dev ptau (power ${power}) failed: ${(error as Error).message}`);
  }
}
