// An INSECURE development powers-of-tau, computed directly from a publicly known τ.
// snarkjs' `prepare phase2` turns the monomial points [τ^i]G into Lagrange-basis points
// with group FFTs, which take 25 minutes at 2^16 on 2 cores. Knowing τ, the same
// points are [L_i(τ)]G with L_i(τ) = (ω^i/m)(τ^m − 1)/(τ − ω^i): field arithmetic and
// one fixed-base scalar multiplication each. The result is byte-for-byte the file snarkjs would
// prepare from the same τ, α, β (test/setup/devptau.test.ts checks that), so snarkjs
// accepts it unchanged. Because τ is derived from a public seed, anyone can forge
// proofs against keys built on it: it exists so that development and CI reach large
// circuits, and every file name, log line and manifest entry says INSECURE.
//
// Speed: the scalars and the multiplications run in worker threads (devptau-pool.ts,
// devptau-worker.mjs), one per core, on fixed-base tables of up to 16-bit windows, so a point
// costs ~16 additions, each an affine addition batched over a chunk of points with one shared
// inversion, inside wasm (devptau-wasm.ts). The file's layout is fixed by the power, so every
// chunk is written at its own offset as it arrives; all G1 points come first, then all G2
// points, so that each worker holds one table at a time.
import { createHash } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { buildBn128 } from "ffjavascript";
import { FIELD_MODULUS as R } from "../../sdk/core/hash.js";
import { affineBytes, chooseWindow, DevPtauPool, type Group, type PointJob } from "./devptau-pool.js";
import { devPtauWasmPlugin, type ModuleBuilder } from "./devptau-wasm.js";

// sdk/types/ffjavascript.d.ts leaves out buildBn128's second parameter, a hook that adds functions to
// the wasm module before it is compiled (ffjavascript 0.2.63 src/bn128.js).
const buildBn128WithPlugin = buildBn128 as (
  singleThread: boolean,
  plugin: (module: ModuleBuilder) => void,
) => Promise<unknown>;

export const DEV_PTAU_SEED = "zkVAI INSECURE development ptau v1: tau is public";

/** τ, α, β from the public seed: reproducible, and therefore insecure. */
export function devToxicWaste(seed = DEV_PTAU_SEED): { tau: bigint; alpha: bigint; beta: bigint } {
  const derive = (label: string) =>
    (BigInt(`0x${createHash("sha512").update(`${seed}/${label}`).digest("hex")}`) % (R - 2n)) + 2n;
  return { tau: derive("tau"), alpha: derive("alpha"), beta: derive("beta") };
}

export const mod = (x: bigint) => ((x % R) + R) % R;
export function pow(b: bigint, e: bigint): bigint {
  let r = 1n;
  b = mod(b);
  while (e > 0n) {
    if (e & 1n) r = (r * b) % R;
    b = (b * b) % R;
    e >>= 1n;
  }
  return r;
}
export const inv = (x: bigint) => pow(x, R - 2n);

/** Montgomery's trick: all inverses for one inversion. */
function batchInverse(xs: bigint[]): bigint[] {
  const prefix: bigint[] = [];
  let acc = 1n;
  for (const x of xs) {
    prefix.push(acc);
    acc = (acc * x) % R;
  }
  let accInv = inv(acc);
  const out = new Array<bigint>(xs.length);
  for (let i = xs.length - 1; i >= 0; i--) {
    out[i] = (accInv * prefix[i]) % R;
    accInv = (accInv * xs[i]) % R;
  }
  return out;
}

/**
 * The scalars snarkjs' Lagrange sections hold at domain size 2^p:
 * the inverse FFT of the monomials [1, τ, …, τ^(m−1)], with the last one replaced by 0
 * when `dropLast` (tauG1 at power + 1 has only 2^(power+1) − 1 monomials).
 */
export function lagrangeScalars(tau: bigint, p: number, omega: bigint, dropLast: boolean): bigint[] {
  const m = 1 << p;
  const mInv = inv(BigInt(m));
  const c = (mod(pow(tau, BigInt(m)) - 1n) * mInv) % R;
  const tail = dropLast ? (pow(tau, BigInt(m - 1)) * mInv) % R : 0n;
  const omegas: bigint[] = [];
  let w = 1n;
  for (let i = 0; i < m; i++) {
    omegas.push(w);
    w = (w * omega) % R;
  }
  const denominators = batchInverse(omegas.map((wi) => mod(tau - wi)));
  return omegas.map((wi, i) => mod(((c * wi) % R) * denominators[i] - wi * tail));
}

export interface DevPtauOptions {
  power: number;
  seed?: string;
  /** Write only the sections before `prepare phase2` (tests compare against snarkjs). */
  unprepared?: boolean;
  onProgress?: (message: string) => void;
}

/** Knobs for tests and benchmarks; the output does not depend on them. */
export interface DevPtauTuning {
  /** Fixed-base window in bits (1–16), instead of the cheapest for the point count. */
  window?: number;
  /** Worker threads, instead of one per core. */
  workers?: number;
  /** Points per worker task, instead of 8192 (G1) and 4096 (G2). */
  chunk?: number;
}

/** What ffjavascript's single-threaded bn128 exposes and the dev setup uses. */
export interface SingleThreadCurve {
  q: bigint;
  Fr: { w: unknown[]; toObject(x: unknown): bigint };
  tm: { code: Uint8Array<ArrayBuffer>; pG1gen: number; pG2gen: number };
  G1: { batchLEMtoU(points: Uint8Array): Promise<Uint8Array> };
  G2: { batchLEMtoU(points: Uint8Array): Promise<Uint8Array> };
}

/**
 * ffjavascript's bn128, single-threaded (its wasm module goes to our own workers, and it starts no
 * idle ones of its own), and a pool of point workers on that module.
 */
export async function startDevCurve(
  workers?: number,
): Promise<{ curve: SingleThreadCurve; pool: DevPtauPool }> {
  const curve = (await buildBn128WithPlugin(true, devPtauWasmPlugin)) as SingleThreadCurve;
  const module = await WebAssembly.compile(curve.tm.code);
  const pool = await DevPtauPool.start(module, { g1gen: curve.tm.pG1gen, g2gen: curve.tm.pG2gen }, workers);
  return { curve, pool };
}

/** The points of one section, or of one Lagrange domain inside it. */
export type Run = { group: Group; count: number; offset: number } & (
  | { kind: "geometric"; first: bigint; ratio: bigint }
  | { kind: "lagrange"; omega: bigint; c: bigint; tail: bigint }
);

export const le32 = (x: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
};

/** Chunks of a few hundred kB: small enough to keep every worker busy to the end. */
const CHUNK_POINTS: Record<Group, number> = { g1: 8192, g2: 4096 };

export function chunk(run: Run, tau: bigint, size?: number): PointJob[] {
  const jobs: PointJob[] = [];
  const step = size ?? CHUNK_POINTS[run.group];
  for (let start = 0; start < run.count; start += step) {
    const base = {
      group: run.group,
      count: Math.min(step, run.count - start),
      offset: run.offset + start * affineBytes(run.group),
    };
    if (run.kind === "geometric") {
      const first = (run.first * pow(run.ratio, BigInt(start))) % R;
      jobs.push({ ...base, kind: "geometric", first: le32(first), ratio: le32(run.ratio) });
    } else {
      jobs.push({
        ...base,
        kind: "lagrange",
        omegaStart: le32(pow(run.omega, BigInt(start))),
        omega: le32(run.omega),
        tau: le32(tau),
        c: le32(run.c),
        tail: le32(run.tail),
      });
    }
  }
  return jobs;
}

export async function writeDevPtau(
  file: string,
  options: DevPtauOptions,
  tuning: DevPtauTuning = {},
): Promise<void> {
  const { power } = options;
  if (!Number.isInteger(power) || power < 1 || power > 27)
    throw new RangeError(`ptau power must be 1..27, got ${power}`);
  const within = (x: number | undefined, lo: number, hi: number) =>
    x === undefined || (Number.isInteger(x) && x >= lo && x <= hi);
  if (!within(tuning.window, 1, 16)) throw new RangeError(`window must be 1..16 bits, got ${tuning.window}`);
  if (!within(tuning.workers, 1, 256)) throw new RangeError(`workers must be 1..256, got ${tuning.workers}`);
  if (!within(tuning.chunk, 1, 2 ** 20))
    throw new RangeError(`chunk must be 1..2^20 points, got ${tuning.chunk}`);
  const { tau, alpha, beta } = devToxicWaste(options.seed);
  // τ inside a Lagrange domain would put a zero in a denominator; 2^(power+1) holds all the others.
  if (pow(tau, 2n ** BigInt(power + 1)) === 1n)
    throw new Error("dev ptau: this seed puts τ in an FFT domain");
  const { curve, pool } = await startDevCurve(tuning.workers);
  const omega = (p: number) => curve.Fr.toObject(curve.Fr.w[p]);
  const n = 2 ** power;

  // Layout: "ptau", version 1, section count; then per section its id, u64 size and body.
  const sections: { id: number; size: number; offset: number }[] = [];
  let end = 12;
  const section = (id: number, size: number) => {
    sections.push({ id, size, offset: end + 12 });
    end += 12 + size;
    return end - size;
  };
  const runs: Run[] = [];
  const geometric = (group: Group, offset: number, first: bigint, count: number) =>
    runs.push({ group, offset, count, kind: "geometric", first, ratio: tau });
  // Prepared section: the Lagrange points of every domain 2^0 … 2^top, one after the other.
  const lagrange = (id: number, group: Group, factor: bigint, top: number) => {
    let offset = section(id, (2 ** (top + 1) - 1) * affineBytes(group));
    for (let p = 0; p <= top; p++) {
      const m = 2 ** p;
      const mInv = inv(BigInt(m));
      const c = (((mod(pow(tau, BigInt(m)) - 1n) * mInv) % R) * factor) % R;
      // tauG1 has 2^(power+1) − 1 monomials, so its largest domain drops the last one.
      const tail = id === 12 && p === power + 1 ? (((pow(tau, BigInt(m - 1)) * mInv) % R) * factor) % R : 0n;
      runs.push({ group, offset, count: m, kind: "lagrange", omega: omega(p), c, tail });
      offset += m * affineBytes(group);
    }
  };
  const header = section(1, 44);
  geometric("g1", section(2, (2 * n - 1) * 64), 1n, 2 * n - 1);
  geometric("g2", section(3, n * 128), 1n, n);
  geometric("g1", section(4, n * 64), alpha, n);
  geometric("g1", section(5, n * 64), beta, n);
  geometric("g2", section(6, 128), beta, 1);
  // No contribution records: this file comes from no ceremony, and says so by having none.
  const contributions = section(7, 4);
  if (!options.unprepared) {
    lagrange(12, "g1", 1n, power + 1);
    lagrange(13, "g2", 1n, power);
    lagrange(14, "g1", alpha, power);
    lagrange(15, "g1", beta, power);
  }

  let fd: number | undefined;
  try {
    fd = openSync(file, "w");
    const at = (offset: number, ...parts: Uint8Array[]) => {
      for (const part of parts) offset += writeSync(fd!, part, 0, part.length, offset);
    };
    const u32 = (x: number) => new Uint8Array(new Uint32Array([x]).buffer);
    const u64 = (x: number) => new Uint8Array(new BigUint64Array([BigInt(x)]).buffer);
    at(0, new TextEncoder().encode("ptau"), u32(1), u32(sections.length));
    for (const s of sections) at(s.offset - 12, u32(s.id), u64(s.size));
    at(header, u32(32), le32(curve.q), u32(power), u32(power));
    at(contributions, u32(0));

    for (const group of ["g1", "g2"] as const) {
      const jobs = runs.filter((r) => r.group === group).flatMap((r) => chunk(r, tau, tuning.chunk));
      const total = jobs.reduce((sum, job) => sum + job.count, 0);
      const w = tuning.window ?? chooseWindow(total, pool.size);
      const label = `INSECURE dev ptau 2^${power} ${group.toUpperCase()}`;
      options.onProgress?.(`${label}: ${total} points, ${w}-bit table, ${pool.size} threads`);
      await pool.loadTable(group, w);
      let done = 0;
      let reported = 0;
      await pool.run(jobs, (job, points) => {
        at(job.offset, points);
        done += job.count;
        if (done - reported >= total / 20 || done === total) {
          reported = done;
          options.onProgress?.(`${label}: ${done}/${total} points`);
        }
      });
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
    await pool.close();
  }
}
