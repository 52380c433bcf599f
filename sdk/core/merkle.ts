// The trace commitment: a 16-ary Poseidon tree. Leaves are record leaf hashes,
// empty leaves are 0, and the commitment of n records is the root of the smallest
// zero-padded tree of 16^L leaves holding them (0 for n = 0). It does not depend
// on a circuit's capacity, so the roots the recorder commits before it knows the
// final size stay valid for any circuit large enough
// (circuits/gadgets/merkle.circom: CommitmentRoot).
//
// Why 16-ary: one Poseidon(16) costs 609 constraints against 240 for Poseidon(2),
// but covers 16 children instead of 2, so the tree costs ~41 constraints per
// record instead of ~240 (docs/bench/levers.json, docs/BENCHMARKS.md).
import { poseidon } from "./hash.js";

/** Children per internal node. Must match arityBits() in circuits/gadgets/merkle.circom (the tree tests compare them). */
export const TREE_ARITY = 16;

const zeros: bigint[] = [0n];
/** Root of an empty subtree of the given height. */
export function zeroHash(height: number): bigint {
  while (zeros.length <= height)
    zeros.push(poseidon(new Array<bigint>(TREE_ARITY).fill(zeros[zeros.length - 1])));
  return zeros[height];
}

/** The height of the smallest tree (16^height leaves) that holds max(n, 1) leaves. */
export function treeHeight(n: number): number {
  let h = 0;
  while (TREE_ARITY ** h < n) h++;
  return h;
}

/** Hash of one internal node from its children, missing children being empty subtrees. */
export function parentHash(children: readonly bigint[], childHeight: number): bigint {
  if (children.length > TREE_ARITY) throw new RangeError(`${children.length} children exceed the arity`);
  const padded = [...children];
  while (padded.length < TREE_ARITY) padded.push(zeroHash(childHeight));
  return poseidon(padded);
}

/** Every level of a zero-padded tree of the given height, leaves first. */
export function treeLevels(leaves: readonly bigint[], height: number): bigint[][] {
  if (leaves.length > TREE_ARITY ** height)
    throw new RangeError(`${leaves.length} leaves do not fit a tree of height ${height}`);
  const levels: bigint[][] = [[...leaves]];
  for (let l = 0; l < height; l++) {
    const below = levels[l];
    const up: bigint[] = [];
    for (let i = 0; i < below.length; i += TREE_ARITY) up.push(parentHash(below.slice(i, i + TREE_ARITY), l));
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

/** The 16 children of each node on a leaf's path to the commitment root, lowest level first. */
export type InclusionPath = bigint[][];

/** The inclusion path of leaf `index` in the commitment of `leaves`. */
export function inclusionPath(leaves: readonly bigint[], index: number): InclusionPath {
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length)
    throw new RangeError(`leaf ${index} out of 0..${leaves.length - 1}`);
  const height = treeHeight(leaves.length);
  const levels = treeLevels(leaves, height);
  const path: InclusionPath = [];
  for (let l = 0, i = index; l < height; l++, i = Math.floor(i / TREE_ARITY)) {
    const start = i - (i % TREE_ARITY);
    const children = levels[l].slice(start, start + TREE_ARITY);
    while (children.length < TREE_ARITY) children.push(zeroHash(l));
    path.push(children);
  }
  return path;
}

/** Whether `leaf` sits at `index` of the commitment `root` of n leaves, by `path`. */
export function verifyInclusion(
  leaf: bigint,
  index: number,
  n: number,
  path: InclusionPath,
  root: bigint,
): boolean {
  if (!Number.isInteger(index) || index < 0 || index >= n || path.length !== treeHeight(n)) return false;
  let node = leaf;
  for (let l = 0, i = index; l < path.length; l++, i = Math.floor(i / TREE_ARITY)) {
    const children = path[l]!;
    if (children.length !== TREE_ARITY || children[i % TREE_ARITY] !== node) return false;
    node = parentHash(children, l);
  }
  return node === root;
}
