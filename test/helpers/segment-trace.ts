// The AAP-3 segment trace the segment-circuit tests share (test/circuits/segment.test.ts, the segment queue in
// test/prover/segment-queue.test.ts): 8 records a segment, θ paying "m" and "shop" up to 100, payments from
// `payments(n)` with a stranger at `badAt`, checkpoints every 10 records, and each segment's circuit input.
import { findPredicate } from "../../sdk/core/predicates/index.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { CHECKPOINT_INTERVAL, checkpointSlots } from "../../sdk/core/checkpoints.js";
import { chainHead, encodeTrace } from "../../sdk/core/encoding.js";
import { segmentInputs } from "../../prover/segments/witness.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";

export const DEPTH = 3;
export const SIZE = 2 ** DEPTH;
export const SLOTS = checkpointSlots(SIZE);
export const aap3 = findPredicate("AAP-3")!;
export const theta = aap3.parseTheta({ payTools: ["pay"], merchants: ["m", "shop"], cap: "100" });
export const profile: EncodingProfile = {
  version: 1,
  tools: { pay: { target: "to", amount: { key: "wei", decimals: 0 } }, search: {} },
} as EncodingProfile;
export const SECRET = 12345n;

export function payments(n: number, badAt: number[] = []): TraceRecord[] {
  return Array.from({ length: n }, (_, seq) => ({
    kind: "call" as const,
    seq,
    ts: seq * 1000,
    tool: seq % 3 === 2 ? "search" : "pay",
    args: { to: badAt.includes(seq) ? "stranger" : seq % 2 ? "m" : "shop", wei: String(seq + 1) },
  }));
}

/** Checkpoints every 10 records, as the budget allows, plus entries given. */
export function entriesFor(records: readonly TraceRecord[], extra: number[] = []) {
  const leaves = encodeTrace(records, profile, SECRET).map((r) => r.leaf);
  const ns = [];
  for (let k = CHECKPOINT_INTERVAL; k <= records.length; k += CHECKPOINT_INTERVAL) ns.push(k);
  return [...ns, ...extra].map((n) => ({ n, root: chainHead(leaves, n) }));
}

export function inputs(records: readonly TraceRecord[], extra: number[] = []) {
  return segmentInputs({
    records,
    profile,
    sessionSecret: SECRET,
    checkpoints: entriesFor(records, extra),
    predicate: aap3,
    theta,
    context: 99n,
    depth: DEPTH,
    entrySlots: SLOTS,
  });
}
