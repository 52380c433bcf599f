// A CommittedTrace input (circuits/gadgets/trace.circom) built by hand: rows of slots, their
// digests, and checkpoint entries given as (n, head) with their lookup multiplicities.
import { leafHash } from "../../sdk/core/encoding.js";
import { accumulate } from "../../sdk/core/hash.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";

export const S = 7;

export interface Entry {
  n: number;
  head: bigint;
}

/** Rows 0..N-1 of distinct nonzero slots (the first n are records), digests 7 + i. */
export function traceRows(N: number) {
  const rows = Array.from({ length: N }, (_, i) =>
    Array.from({ length: S }, (_, k) => BigInt(100 * i + k + 1)),
  );
  const digests = rows.map((_, i) => BigInt(7 + i));
  return { rows, digests };
}

/** The chained leaves of the first n rows. */
export function chainedLeaves(rows: readonly bigint[][], digests: readonly bigint[], n: number): bigint[] {
  const leaves: bigint[] = [];
  for (let i = 0, prev = 0n; i < n; i++) leaves.push((prev = leafHash(rows[i]!, digests[i]!, prev)));
  return leaves;
}

/**
 * The input for n records and `entries` folded into the accumulator, in K entry slots. hits[i] is the
 * number of entries naming row i (n_k - 1 = i) unless `hits` is given; padding rows hold zero slots.
 */
export function traceInput(opts: {
  N: number;
  K: number;
  n: number;
  entries: Entry[];
  hits?: number[];
  rows?: bigint[][];
  digests?: bigint[];
}) {
  const { N, K, n, entries } = opts;
  const base = traceRows(N);
  const rows = opts.rows ?? base.rows;
  const digests = opts.digests ?? base.digests;
  const leaves = chainedLeaves(rows, digests, n);
  const hits = opts.hits ?? Array<number>(N).fill(0);
  if (!opts.hits) for (const e of entries) if (e.n >= 1 && e.n <= N) hits[e.n - 1]! += 1;
  const slot = Array.from({ length: K }, (_, k) => entries[k]);
  return {
    n: String(n),
    finalRoot: String(commitmentRoot(leaves)),
    checkpointAcc: String(accumulate(entries.map((e) => ({ n: e.n, root: e.head })))),
    slots: rows.map((r, i) => (i < n ? r : r.map(() => 0n)).map(String)),
    digest: digests.map(String),
    cpN: slot.map((e) => String(e?.n ?? 0)),
    cpHead: slot.map((e) => String(e?.head ?? 0n)),
    cpActive: slot.map((e) => (e ? "1" : "0")),
    cpHits: hits.map((m) => [String(m & 1), String(m >> 1)]),
  };
}
