// What the agent's thread and the leaf hasher's worker (sdk/provider/leaf-worker.ts) send each other. Kept
// apart from both sides so that the worker does not load the hasher, nor the hasher the worker.
import type { EncodingProfile } from "../core/profile.js";
import type { TraceRecord } from "../core/records.js";

/** Indices into the shared Int32Array. */
export const LEAVES_POSTED = 0; // how many leaves the worker has posted, over all logs: what a waiter waits on
export const HASHER_STATE = 1; // HASHER_STARTING until the worker takes requests, then HASHER_READY; HASHER_FAILED once it died
export const HASHER_STARTING = 0;
export const HASHER_READY = 1;
export const HASHER_FAILED = 2;

export type HasherRequest =
  | { op: "open"; log: number; profile: EncodingProfile; secret: bigint }
  | { op: "push"; log: number; record: TraceRecord }
  | { op: "close"; log: number };

/** A leaf (with the milliseconds the worker spent on it), or the worker's word that it has started. */
export type HasherResult =
  { log: number; seq: number; leaf: bigint; ms: number } | { ready: true; accelerated: boolean };
