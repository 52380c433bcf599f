// Generates contracts/PoseidonT4.sol: circomlib's Poseidon over 3 inputs (t = 4) as straight-line inline
// assembly, from the optimised round constants circomlibjs ships (src/poseidon_constants_opt.json, the
// "Neptune" schedule its poseidon_opt.js and circomlib's circuits use). It replaces the circomlibjs
// `poseidon_gencontract` bytecode on the escrow's hottest path, checkpoint(): about 48k gas per call there.
//
//   npx tsx scripts/gen-poseidon3.ts          rewrite contracts/PoseidonT4.sol
//   npx tsx scripts/gen-poseidon3.ts --check  exit 1 if the committed file differs from a fresh generation
//
// test/contracts/poseidon-parity.test.ts regenerates the source and compares it with the committed file, and
// checks the contract (and this file's reference schedule) against sdk/core/hash.ts on random inputs.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../sdk/manifest/packages.js";

export const POSEIDON_T4_PATH = path.join(ROOT, "contracts", "PoseidonT4.sol");

/** The BN254 scalar field. */
const P = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
const T = 4;
const ROUNDS_F = 8;
const ROUNDS_P = 56; // circomlib's N_ROUNDS_P[t - 2] for t = 4

export interface PoseidonT4Constants {
  /** Round constants: t for the first add, t per first-half full round, nRoundsP, then t per second-half round. */
  C: bigint[];
  /** 2t - 1 sparse-matrix entries per partial round. */
  S: bigint[];
  /** The MDS matrix, M[j][i]: state'[i] = Σ_j M[j][i] · state[j]. */
  M: bigint[][];
  /** The pre-sparse matrix applied once before the partial rounds. */
  Pm: bigint[][];
}

let cached: PoseidonT4Constants | undefined;

export function poseidonT4Constants(): PoseidonT4Constants {
  return (cached ??= loadConstants());
}

function loadConstants(): PoseidonT4Constants {
  // circomlibjs' "exports" map hides src/, so read the JSON by path.
  const require = createRequire(import.meta.url);
  const dir = path.resolve(path.dirname(require.resolve("circomlibjs")), ".."); // build/main.cjs
  const raw = JSON.parse(readFileSync(path.join(dir, "src", "poseidon_constants_opt.json"), "utf8")) as {
    C: string[][];
    S: string[][];
    M: string[][][];
    P: string[][][];
  };
  const big = (x: string) => BigInt(x);
  const k = {
    C: raw.C[T - 2].map(big),
    S: raw.S[T - 2].map(big),
    M: raw.M[T - 2].map((row) => row.map(big)),
    Pm: raw.P[T - 2].map((row) => row.map(big)),
  };
  const expectC = T + (ROUNDS_F / 2) * T + ROUNDS_P + (ROUNDS_F / 2 - 1) * T;
  if (k.C.length !== expectC || k.S.length !== (2 * T - 1) * ROUNDS_P)
    throw new Error("unexpected circomlibjs Poseidon constants layout");
  for (const x of [...k.C, ...k.S, ...k.M.flat(), ...k.Pm.flat()])
    if (x >= P) throw new Error("a Poseidon constant is not a field element");
  return k;
}

const mod = (x: bigint) => ((x % P) + P) % P;
const pow5 = (x: bigint) => {
  const x2 = (x * x) % P;
  return (((x2 * x2) % P) * x) % P;
};

/** The optimised schedule in plain bigint arithmetic, step for step as the generated assembly runs it. */
export function poseidon3Reference(inputs: readonly [bigint, bigint, bigint]): bigint {
  const { C, S, M, Pm } = poseidonT4Constants();
  const mix = (s: bigint[], m: bigint[][]) =>
    s.map((_, i) => s.reduce((acc, x, j) => acc + m[j][i] * x, 0n) % P);
  let s = [0n, ...inputs.map(mod)].map((x, i) => (x + C[i]) % P);
  for (let r = 0; r < ROUNDS_F / 2; r++) {
    s = s.map((x, i) => (pow5(x) + C[(r + 1) * T + i]) % P);
    s = mix(s, r < ROUNDS_F / 2 - 1 ? M : Pm);
  }
  const base = (ROUNDS_F / 2 + 1) * T;
  for (let r = 0; r < ROUNDS_P; r++) {
    s[0] = (pow5(s[0]) + C[base + r]) % P;
    const row = S.slice((2 * T - 1) * r, (2 * T - 1) * (r + 1));
    const s0 = s.reduce((acc, x, j) => acc + row[j] * x, 0n) % P;
    for (let k = 1; k < T; k++) s[k] = (s[k] + s[0] * row[T + k - 1]) % P;
    s[0] = s0;
  }
  for (let r = 0; r < ROUNDS_F / 2; r++) {
    const last = r === ROUNDS_F / 2 - 1;
    s = s.map((x, i) => (last ? pow5(x) : (pow5(x) + C[base + ROUNDS_P + r * T + i]) % P));
    s = mix(s, M);
  }
  return s[0];
}

const hex = (x: bigint) => `0x${x.toString(16).padStart(64, "0")}`;

/**
 * Lazy reduction: mulmod accepts any 256-bit operand, and p < 2^256 / 5, so a sum of up to five reduced terms
 * needs no reduction before the next mulmod. Each state word stays below 5p throughout:
 *   after an S-box plus constant: < 2p;  after a 4-term matrix row: < 4p;  partial-round side words: addmod, < p.
 * Only the output is reduced with `mod`.
 */
export function poseidonT4Source(): string {
  const { C, S, M, Pm } = poseidonT4Constants();
  const lines: string[] = [];
  const emit = (s: string) => lines.push(`            ${s}`);
  const sbox = (v: string, c?: bigint) => {
    emit(`t := mulmod(${v}, ${v}, F)`);
    emit(
      c === undefined
        ? `${v} := mulmod(mulmod(t, t, F), ${v}, F)`
        : `${v} := add(mulmod(mulmod(t, t, F), ${v}, F), ${hex(c)})`,
    );
  };
  const mixRow = (m: bigint[][], i: number) =>
    `add(add(add(mulmod(s0, ${hex(m[0][i])}, F), mulmod(s1, ${hex(m[1][i])}, F)), mulmod(s2, ${hex(m[2][i])}, F)), mulmod(s3, ${hex(m[3][i])}, F))`;
  const mix = (m: bigint[][], rows = T) => {
    for (let i = 0; i < rows; i++) emit(`let n${i} := ${mixRow(m, i)}`);
    emit(Array.from({ length: rows }, (_, i) => `s${i} := n${i}`).join(" "));
  };
  const full = (label: string, consts: bigint[] | undefined, m: bigint[][], rows = T) => {
    emit(`// ${label}`);
    emit("{");
    for (let i = 0; i < T; i++) sbox(`s${i}`, consts?.[i]);
    mix(m, rows);
    emit("}");
  };

  emit("let F := 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
  emit("let t := 0");
  emit(`let s0 := ${hex(C[0])}`);
  for (let i = 1; i < T; i++) emit(`let s${i} := addmod(calldataload(${4 + 32 * (i - 1)}), ${hex(C[i])}, F)`);
  for (let r = 0; r < ROUNDS_F / 2; r++) {
    const last = r === ROUNDS_F / 2 - 1;
    full(`full round ${r}`, C.slice((r + 1) * T, (r + 2) * T), last ? Pm : M);
  }
  const base = (ROUNDS_F / 2 + 1) * T;
  for (let r = 0; r < ROUNDS_P; r++) {
    const row = S.slice((2 * T - 1) * r, (2 * T - 1) * (r + 1));
    emit(`// partial round ${r}`);
    emit("{");
    sbox("s0", C[base + r]);
    emit(`let n0 := ${mixRow([[row[0]], [row[1]], [row[2]], [row[3]]], 0)}`);
    for (let k = 1; k < T; k++) emit(`s${k} := addmod(s${k}, mulmod(s0, ${hex(row[T + k - 1])}, F), F)`);
    emit("s0 := n0");
    emit("}");
  }
  for (let r = 0; r < ROUNDS_F / 2; r++) {
    const last = r === ROUNDS_F / 2 - 1;
    const consts = last ? undefined : C.slice(base + ROUNDS_P + r * T, base + ROUNDS_P + (r + 1) * T);
    full(
      `full round ${ROUNDS_F / 2 + r}${last ? " (only the first output word is needed)" : ""}`,
      consts,
      M,
      last ? 1 : T,
    );
  }
  emit("mstore(0, mod(s0, F))");
  emit("return(0, 0x20)");

  return `// SPDX-License-Identifier: MIT
// GENERATED by scripts/gen-poseidon3.ts from circomlibjs 0.1.7 src/poseidon_constants_opt.json. Do not edit:
// run \`npx tsx scripts/gen-poseidon3.ts\`. test/contracts/poseidon-parity.test.ts checks this file is current.
pragma solidity 0.8.28;

/// @title circomlib Poseidon over 3 field elements (t = 4, 8 full and ${ROUNDS_P} partial rounds)
/// @notice Same function as circomlibjs \`poseidon_gencontract\` (createCode(3)) and sdk/core/hash.ts \`poseidon\`, at
/// about half the gas (24k against 45k a call): straight-line assembly over circomlib's optimised ("Neptune")
/// constants, where each partial round multiplies by a sparse matrix (7 products instead of 16), with lazy
/// modular reduction.
/// @dev Inputs are reduced mod p like circomlibjs does. The ABI matches circomlibjs' uint256[3] overload.
contract PoseidonT4 {
    function poseidon(uint256[3] calldata) external pure returns (uint256) {
        assembly {
${lines.join("\n")}
        }
    }
}
`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const source = poseidonT4Source();
  if (process.argv.includes("--check")) {
    const current = readFileSync(POSEIDON_T4_PATH, "utf8");
    if (current !== source) {
      console.error(
        `${path.relative(ROOT, POSEIDON_T4_PATH)} is stale: run npx tsx scripts/gen-poseidon3.ts`,
      );
      process.exit(1);
    }
    console.log(`${path.relative(ROOT, POSEIDON_T4_PATH)} is current`);
  } else {
    writeFileSync(POSEIDON_T4_PATH, source);
    console.log(`wrote ${path.relative(ROOT, POSEIDON_T4_PATH)} (${source.length} bytes)`);
  }
}
