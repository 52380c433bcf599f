// The trace commitment. Leaves are record leaf hashes, empty leaves are 0, and the
// commitment of n records is the root of the smallest power-of-two tree holding
// them (0 for n = 0). It does not depend on a circuit's capacity, so the roots the
// recorder commits before it knows the final size stay valid for any circuit
// large enough (circuits/gadgets/merkle.circom: CommitmentRoot, PrefixCommitment).
import { poseidon } from "./hash.js";

const zeros: bigint[] = [0n];
/** Root of an empty subtree of the given height. */
export function zeroHash(height: number): bigint {
  while (zeros.length <= height) zeros.push(poseidon([zeros[zeros.length - 1], zeros[zeros.length - 1]]));
  return zeros[height];
}

/** bitlen(max(n,1) - 1): the height of the smallest power-of-two tree with n leaves. */
export function treeHeight(n: number): number {
  let h = 0;
  while (1 << h < n) h++;
  return h;
}

/** Every level of a zero-padded tree of the given height, leaves first. */
export function treeLevels(leaves: readonly bigint[], height: number): bigint[][] {
  if (leaves.length > 2 ** height)
    throw new RangeError(`${leaves.length} leaves do not fit a tree of height ${height}`);
  const levels: bigint[][] = [[...leaves]];
  for (let l = 0; l < height; l++) {
    const below = levels[l];
    const up: bigint[] = [];
    for (let i = 0; i < below.length; i += 2) up.push(poseidon([below[i], below[i + 1] ?? zeroHash(l)]));
    if (up.length === 0) up.push(zeroHash(l + 1));
    levels.push(up);
  }
  return levels;
}

/** The commitment of the trace whose first records have these leaves. */
export function commitmentRoot(leaves: readonly bigint[]): bigint {
  if (leaves.length === 0) return 0n;
  const height = treeHeight(leaves.length);
  return treeLevels(leaves, height)[height][0];
}

/** The commitment a checkpoint of the first n records carries. */
export function prefixCommitment(leaves: readonly bigint[], n: number): bigint {
  if (!Number.isInteger(n) || n < 0 || n > leaves.length)
    throw new RangeError(`prefix ${n} out of 0..${leaves.length}`);
  return commitmentRoot(leaves.slice(0, n));
}
