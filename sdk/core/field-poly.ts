// Polynomials over the BN254 scalar field, for one job: f'(u_k) = ∏_(j≠k) (u_k − u_j) at every root u_k
// of f = ∏ (X − u_k), the denominators of DistinctRoots' partial-fraction weights (multiset.ts). Computed
// directly that is k² products, about 5 days at 10^6 roots on the development machine; here a product tree
// builds f, and a remainder tree evaluates f' at all its roots, with NTT products: O(k log² k).
// Coefficients are lowest first. Pure: no I/O.
import { FIELD_MODULUS } from "./hash.js";

const P = FIELD_MODULUS;
/** 2^28 divides P − 1, so NTTs of up to 2^28 points exist. */
const TWO_ADICITY = 28;
/** 5 generates the multiplicative group, so 5^((P − 1) / 2^28) has order exactly 2^28. */
const ROOT_OF_UNITY = modPow(5n, (P - 1n) >> BigInt(TWO_ADICITY));
/**
 * Below these sizes the quadratic methods win: products of fewer than 64 coefficients, leaves of 32 roots,
 * and under 1,024 roots the direct products altogether (0.57 s against 0.44 s at 1,024 roots, 0.03 s
 * against 0.11 s at 256, timed beside a benchmark; docs/BENCHMARKS.md "Segment chains").
 */
const SCHOOLBOOK_BELOW = 64;
const LEAF_ROOTS = 32;
const DIRECT_BELOW = 1024;

export function modPow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = ((base % P) + P) % P;
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}

/** In-place NTT of a power-of-two length (the inverse one too, scaled by 1/length). */
function ntt(a: bigint[], inverse: boolean): void {
  const n = a.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) [a[i], a[j]] = [a[j]!, a[i]!];
  }
  for (let len = 2; len <= n; len <<= 1) {
    let w = modPow(ROOT_OF_UNITY, BigInt((1 << TWO_ADICITY) / len));
    if (inverse) w = modPow(w, P - 2n);
    const half = len >> 1;
    const twiddles = Array<bigint>(half);
    twiddles[0] = 1n;
    for (let k = 1; k < half; k++) twiddles[k] = (twiddles[k - 1]! * w) % P;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < half; k++) {
        const x = a[i + k]!;
        const y = (a[i + k + half]! * twiddles[k]!) % P;
        a[i + k] = x + y >= P ? x + y - P : x + y;
        a[i + k + half] = x >= y ? x - y : x - y + P;
      }
    }
  }
  if (inverse) {
    const scale = modPow(BigInt(n), P - 2n);
    for (let i = 0; i < n; i++) a[i] = (a[i]! * scale) % P;
  }
}

/** a · b, the first `limit` coefficients only when given. */
export function polyMul(a: readonly bigint[], b: readonly bigint[], limit = Infinity): bigint[] {
  if (a.length === 0 || b.length === 0) return [];
  const length = Math.min(a.length + b.length - 1, limit);
  if (Math.min(a.length, b.length) < SCHOOLBOOK_BELOW) {
    const out = Array<bigint>(length).fill(0n);
    for (let i = 0; i < a.length && i < length; i++)
      for (let j = 0; j < b.length && i + j < length; j++) out[i + j] = (out[i + j]! + a[i]! * b[j]!) % P;
    return out;
  }
  let size = 1;
  while (size < a.length + b.length - 1) size <<= 1;
  if (size > 1 << TWO_ADICITY)
    throw new RangeError(`a product of ${size} coefficients exceeds the field's NTTs`);
  const fa = [...a, ...Array<bigint>(size - a.length).fill(0n)];
  const fb = [...b, ...Array<bigint>(size - b.length).fill(0n)];
  ntt(fa, false);
  ntt(fb, false);
  for (let i = 0; i < size; i++) fa[i] = (fa[i]! * fb[i]!) % P;
  ntt(fa, true);
  return fa.slice(0, length);
}

/** 1/f mod X^precision for f with f[0] = 1, by Newton's iteration g ← g·(2 − f·g). */
function seriesInverse(f: readonly bigint[], precision: number): bigint[] {
  let g = [1n];
  for (let k = 1; k < precision;) {
    k = Math.min(2 * k, precision);
    const fg = polyMul(f.slice(0, k), g, k);
    const twoMinus = fg.map((c, i) => (i === 0 ? (2n - c + P) % P : (P - c) % P));
    g = polyMul(g, twoMinus, k);
  }
  return g;
}

/** a mod b for a monic b. */
function polyMod(a: readonly bigint[], b: readonly bigint[]): bigint[] {
  const d = b.length - 1;
  if (a.length <= d) return [...a];
  if (d < SCHOOLBOOK_BELOW) {
    const r = [...a];
    for (let i = r.length - 1; i >= d; i--) {
      const q = r[i]!;
      if (q === 0n) continue;
      for (let j = 0; j < d; j++) r[i - d + j] = (r[i - d + j]! - q * b[j]! + P * P) % P;
      r[i] = 0n;
    }
    return r.slice(0, d);
  }
  // rev(a) = rev(q)·rev(b) mod X^(deg a − d + 1), and rev(b) has constant term 1 since b is monic.
  const quotientLength = a.length - d;
  const revB = [...b].reverse();
  const revQ = polyMul(
    [...a].reverse().slice(0, quotientLength),
    seriesInverse(revB, quotientLength),
    quotientLength,
  );
  const qb = polyMul(revQ.reverse(), b, d);
  return a.slice(0, d).map((c, i) => (c - (qb[i] ?? 0n) + P) % P);
}

interface ProductNode {
  /** ∏ (X − u) over the node's roots, monic. */
  poly: bigint[];
  /** A leaf's roots; an inner node's two halves. */
  roots?: readonly bigint[];
  halves?: [ProductNode, ProductNode];
}

function productTree(u: readonly bigint[]): ProductNode {
  if (u.length <= LEAF_ROOTS) {
    let poly = [1n];
    for (const x of u) poly = polyMul(poly, [(P - x) % P, 1n]);
    return { poly, roots: u };
  }
  const mid = Math.ceil(u.length / 2);
  const left = productTree(u.slice(0, mid));
  const right = productTree(u.slice(mid));
  return { poly: polyMul(left.poly, right.poly), halves: [left, right] };
}

function evaluateDown(remainder: readonly bigint[], node: ProductNode, out: bigint[]): void {
  if (node.roots) {
    for (const x of node.roots) {
      let acc = 0n;
      for (let i = remainder.length - 1; i >= 0; i--) acc = (acc * x + remainder[i]!) % P;
      out.push(acc);
    }
    return;
  }
  for (const half of node.halves!) evaluateDown(polyMod(remainder, half.poly), half, out);
}

/** The same products computed one by one, k² of them: faster below DIRECT_BELOW roots. */
export function derivativeByProducts(u: readonly bigint[]): bigint[] {
  return u.map((uk, k) => u.reduce((d, uj, j) => (j === k ? d : (d * (uk - uj + P)) % P), 1n));
}

/** f'(u_k) = ∏_(j≠k) (u_k − u_j) for every k, in order; 0 exactly where u_k repeats. Values reduced mod P. */
export function derivativeAtRoots(values: readonly bigint[]): bigint[] {
  if (values.length === 0) return [];
  const u = values.map((v) => ((v % P) + P) % P);
  if (u.length < DIRECT_BELOW) return derivativeByProducts(u);
  const tree = productTree(u);
  const f = tree.poly;
  const derivative = f.slice(1).map((c, i) => (c * BigInt(i + 1)) % P);
  const out: bigint[] = [];
  evaluateDown(derivative, tree, out);
  return out;
}
