// An INSECURE development powers-of-tau, computed directly from a publicly known τ.
// snarkjs' `prepare phase2` turns the monomial points [τ^i]G into Lagrange-basis points
// with group FFTs, which take half an hour at 2^16 on 2 cores. Knowing τ, the same
// points are [L_i(τ)]G with L_i(τ) = (ω^i/m)(τ^m − 1)/(τ − ω^i): field arithmetic and
// one scalar multiplication each. The result is byte-for-byte the file snarkjs would
// prepare from the same τ, α, β (test/setup/devptau.test.ts checks that), so snarkjs
// accepts it unchanged. Because τ is derived from a public seed, anyone can forge
// proofs against keys built on it: it exists so that development and CI reach large
// circuits, and every file name, log line and manifest entry says INSECURE.
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { buildBn128 } from "ffjavascript";
import { FIELD_MODULUS as R } from "../../sdk/hash.js";

export const DEV_PTAU_SEED = "zkVAI INSECURE development ptau v1: tau is public";

interface Curve {
  q: bigint;
  Fr: { w: unknown[]; toObject(x: unknown): bigint };
  G1: GroupOps;
  G2: GroupOps;
  terminate(): Promise<void>;
}
interface GroupOps {
  g: Uint8Array;
  zero: Uint8Array;
  add(a: Uint8Array, b: Uint8Array): Uint8Array;
  double(a: Uint8Array): Uint8Array;
  toAffine(p: Uint8Array): Uint8Array;
  batchToAffine(jacobian: Uint8Array): Promise<Uint8Array>;
  F: { n8: number };
}

/**
 * Multiples of one base point through 8-bit windows of precomputed affine
 * multiples: ≤ 32 mixed additions per scalar instead of a full double-and-add,
 * and one batched affine conversion per chunk instead of an inversion per point.
 */
class FixedBase {
  private readonly table: Uint8Array[][] = [];
  private constructor(private readonly G: GroupOps) {}

  static async of(G: GroupOps): Promise<FixedBase> {
    const fb = new FixedBase(G);
    let base = G.g;
    for (let w = 0; w < 32; w++) {
      const row: Uint8Array[] = [G.zero];
      for (let d = 1; d < 256; d++) row.push(G.add(row[d - 1], base));
      const affine = await G.batchToAffine(Buffer.concat(row.slice(1)));
      const size = G.F.n8 * 2;
      fb.table.push([
        new Uint8Array(size),
        ...Array.from({ length: 255 }, (_, d) => affine.slice(d * size, (d + 1) * size)),
      ]);
      for (let i = 0; i < 8; i++) base = G.double(base);
    }
    return fb;
  }

  /** Jacobian s·G for 0 < s < r. */
  mul(s: bigint): Uint8Array {
    let acc = this.G.zero;
    for (let w = 0; s > 0n; w++, s >>= 8n) {
      const d = Number(s & 255n);
      if (d) acc = this.G.add(acc, this.table[w][d]);
    }
    return acc;
  }
}

/** τ, α, β from the public seed: reproducible, and therefore insecure. */
export function devToxicWaste(seed = DEV_PTAU_SEED): { tau: bigint; alpha: bigint; beta: bigint } {
  const derive = (label: string) =>
    (BigInt(`0x${createHash("sha512").update(`${seed}/${label}`).digest("hex")}`) % (R - 2n)) + 2n;
  return { tau: derive("tau"), alpha: derive("alpha"), beta: derive("beta") };
}

const mod = (x: bigint) => ((x % R) + R) % R;
function pow(b: bigint, e: bigint): bigint {
  let r = 1n;
  b = mod(b);
  while (e > 0n) {
    if (e & 1n) r = (r * b) % R;
    b = (b * b) % R;
    e >>= 1n;
  }
  return r;
}
const inv = (x: bigint) => pow(x, R - 2n);

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

export async function writeDevPtau(file: string, options: DevPtauOptions): Promise<void> {
  const { power } = options;
  if (!Number.isInteger(power) || power < 1 || power > 27)
    throw new RangeError(`ptau power must be 1..27, got ${power}`);
  const curve = (await buildBn128()) as unknown as Curve;
  const { tau, alpha, beta } = devToxicWaste(options.seed);
  const fd = await open(file, "w");
  let pos = 0;
  const write = async (data: Uint8Array) => {
    await fd.write(data, 0, data.length, pos);
    pos += data.length;
  };
  const u32 = (x: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(x);
    return b;
  };
  const u64 = (x: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(x));
    return b;
  };
  const section = async (id: number, body: () => Promise<void>) => {
    await write(u32(id));
    const sizeAt = pos;
    await write(u64(0));
    const start = pos;
    await body();
    await fd.write(u64(pos - start), 0, 8, sizeAt);
  };
  const bases = new Map<GroupOps, FixedBase>();
  // Points in snarkjs' in-file form: affine, little-endian Montgomery, as the curve holds them.
  const points = async (G: GroupOps, scalars: Iterable<bigint>, label: string) => {
    if (!bases.has(G)) bases.set(G, await FixedBase.of(G));
    const base = bases.get(G)!;
    const chunk: Uint8Array[] = [];
    let count = 0;
    const flush = async () => {
      if (chunk.length) await write(await G.batchToAffine(Buffer.concat(chunk)));
      chunk.length = 0;
    };
    for (const s of scalars) {
      chunk.push(base.mul(s));
      if (chunk.length === 8192) await flush();
      if (++count % 65536 === 0) options.onProgress?.(`${label}: ${count} points`);
    }
    await flush();
  };
  function* geometric(first: bigint, ratio: bigint, count: number) {
    let x = first;
    for (let i = 0; i < count; i++) {
      yield x;
      x = (x * ratio) % R;
    }
  }
  try {
    await write(Buffer.from("ptau", "ascii"));
    await write(u32(1));
    await write(u32(options.unprepared ? 7 : 11));
    await section(1, async () => {
      const q = Buffer.alloc(32);
      let x = curve.q;
      for (let i = 0; i < 32; i++, x >>= 8n) q[i] = Number(x & 0xffn);
      await write(u32(32));
      await write(q);
      await write(u32(power));
      await write(u32(power));
    });
    const n = 2 ** power;
    await section(2, () => points(curve.G1, geometric(1n, tau, 2 * n - 1), "tauG1"));
    await section(3, () => points(curve.G2, geometric(1n, tau, n), "tauG2"));
    await section(4, () => points(curve.G1, geometric(alpha, tau, n), "alphaTauG1"));
    await section(5, () => points(curve.G1, geometric(beta, tau, n), "betaTauG1"));
    await section(6, () => points(curve.G2, [beta], "betaG2"));
    // No contribution records: this file comes from no ceremony, and says so by having none.
    await section(7, () => write(u32(0)));
    if (!options.unprepared) {
      const omega = (p: number) => curve.Fr.toObject(curve.Fr.w[p]);
      const lagrange = (p: number, factor: bigint, dropLast: boolean) =>
        lagrangeScalars(tau, p, omega(p), dropLast).map((s) => (s * factor) % R);
      const prepared: [number, GroupOps, bigint, string][] = [
        [12, curve.G1, 1n, "tauG1"],
        [13, curve.G2, 1n, "tauG2"],
        [14, curve.G1, alpha, "alphaTauG1"],
        [15, curve.G1, beta, "betaTauG1"],
      ];
      for (const [id, G, factor, label] of prepared) {
        await section(id, async () => {
          const top = id === 12 ? power + 1 : power;
          for (let p = 0; p <= top; p++)
            await points(G, lagrange(p, factor, id === 12 && p === power + 1), `${label} 2^${p}`);
        });
      }
    }
  } finally {
    await fd.close();
    await curve.terminate();
  }
}
