// Opening one record against a session's final commitment: the store shows that a record's raw form is
// what was committed, without revealing the rest of the trace. An opening holds the stored record, its
// salt, the leaf before it and the 16-ary path to the final root; checkOpening recomputes the digest from
// the raw JSON, the slots from the encoding profile, the chained leaf, and the path.
import { encodeRecord, encodeTrace, recordSalt } from "./encoding.js";
import { inclusionPath, verifyInclusion, type InclusionPath } from "./merkle.js";
import type { EncodingProfile } from "./profile.js";
import type { TraceRecord } from "./records.js";

export interface RecordOpening {
  record: TraceRecord;
  /** Poseidon(sessionSecret, seq): reveals this record's salt only, not the session secret. */
  salt: bigint;
  /** The leaf before it (0 for seq 0): the chain head of the records before it. */
  prev: bigint;
  /** Records behind the final commitment. */
  n: number;
  path: InclusionPath;
}

/** The opening of record `seq` of a trace of the given records (the first n, n = records.length). */
export function openRecord(
  records: readonly TraceRecord[],
  profile: EncodingProfile,
  sessionSecret: bigint,
  seq: number,
): RecordOpening {
  const leaves = encodeTrace(records, profile, sessionSecret).map((r) => r.leaf);
  if (!Number.isInteger(seq) || seq < 0 || seq >= leaves.length)
    throw new RangeError(`record ${seq} out of 0..${leaves.length - 1}`);
  return {
    record: records[seq]!,
    salt: recordSalt(sessionSecret, seq),
    prev: seq === 0 ? 0n : leaves[seq - 1]!,
    n: leaves.length,
    path: inclusionPath(leaves, seq),
  };
}

/** Whether the opening shows its record committed at its seq under `finalRoot` (with this profile). */
export function checkOpening(opening: RecordOpening, profile: EncodingProfile, finalRoot: bigint): boolean {
  const { record, salt, prev, n, path } = opening;
  // encodeRecord derives the salt from a secret; an opening carries the salt itself.
  const leaf = encodeRecord(record, profile, 0n, prev, salt).leaf;
  return verifyInclusion(leaf, record.seq, n, path, finalRoot);
}
