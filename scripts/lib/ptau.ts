// Powers-of-tau selection for setup: an operator-supplied file (VAI_PTAU) or a locally generated
// single-contributor file for development. Generated files are reused across runs and circuits because
// `prepare phase2` dominates the cost (minutes from 2^14 on, half an hour at 2^17 on 2 cores).

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import * as snarkjs from "snarkjs";
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
  return process.env.VAI_PTAU ? 1 : 3;
}

export const DEV_BANNER = [
  "!".repeat(78),
  "!! INSECURE DEVELOPMENT SETUP: the powers of tau were generated on this machine with a single",
  "!! contributor. Whoever ran it could know the toxic waste and forge proofs. Never use these keys",
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
    .map((f) => /^pot(\d+)_dev\.ptau$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ power: Number(m[1]), file: path.join(dir, m[0]) }))
    .filter((e) => e.power >= needPower)
    .sort((a, b) => a.power - b.power);

  progress.log(DEV_BANNER);
  // Prefer the file the current manifest was built with, so `--only` does not switch ptau under the
  // other circuits' keys.
  const reuse = existing.find((e) => e.file === options.preferred) ?? existing[0];
  if (reuse) {
    for (const label of ["powersoftau new", "powersoftau contribute", "powersoftau prepare phase2"]) {
      progress.skip(`${label} (power ${reuse.power})`, `reusing ${path.relative(root, reuse.file)}`);
    }
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
  if (power >= 14) {
    progress.log(
      `Generating a 2^${power} ptau locally; \`prepare phase2\` takes many minutes at this size ` +
        `(2^16: ~25 min on 2 cores). Set VAI_PTAU to a prepared ptau file to skip this.`,
    );
  }
  const final = path.join(dir, `pot${power}_dev.ptau`);
  const fresh = tempName(path.join(dir, `pot${power}_0000.ptau`));
  const contributed = tempName(path.join(dir, `pot${power}_0001.ptau`));
  const prepared = tempName(final);
  const errors: string[] = [];
  try {
    await progress.step(`powersoftau new bn128 ${power}`, async (h) => {
      const curves = (snarkjs as unknown as { curves: { getCurveFromName(n: string): Promise<unknown> } })
        .curves;
      const curve = await curves.getCurveFromName("bn128");
      await snarkjs.powersOfTau.newAccumulator(curve, power, fresh, snarkLogger(h, errors));
    });
    const contributionHash = await progress.step(`powersoftau contribute (power ${power})`, async (h) => {
      const hash = (await snarkjs.powersOfTau.contribute(
        fresh,
        contributed,
        "zkVAI local dev contribution",
        randomBytes(64).toString("hex"),
        snarkLogger(h, errors),
      )) as Uint8Array;
      return Buffer.from(hash).toString("hex");
    });
    await rm(fresh, { force: true });
    await progress.step(`powersoftau prepare phase2 (power ${power})`, async (h) => {
      await snarkjs.powersOfTau.preparePhase2(contributed, prepared, snarkLogger(h, errors));
    });
    await rm(contributed, { force: true });
    await rename(prepared, final);
    const sha256 = await cachedSha256(final, hashCache);
    await writeFileAtomic(
      final.replace(/\.ptau$/, ".json"),
      JSON.stringify(
        { power, sha256, contributionHash, createdAt: new Date().toISOString(), insecure: true },
        null,
        2,
      ) + "\n",
    );
    return { file: final, sha256, power, source: "generated-dev", insecure: true };
  } catch (error) {
    await Promise.all([fresh, contributed, prepared].map((f) => rm(f, { force: true })));
    const detail = errors.length ? `\nsnarkjs: ${errors.join("\nsnarkjs: ")}` : "";
    throw new Error(`generating the dev ptau (power ${power}) failed: ${(error as Error).message}${detail}`);
  }
}
