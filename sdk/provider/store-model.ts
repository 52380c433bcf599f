// What every trace store holds and refuses, whichever database is under it (store.ts names the interface):
// the rows it returns, and the errors a caller can tell apart by code.
import type { EncodingProfile } from "../core/profile.js";
import { ZkvaiError } from "../core/errors.js";

export class StoreConflictError extends ZkvaiError {
  static override readonly code: string = "STORE_CONFLICT";
  override name = "StoreConflictError";
}
export class StoreError extends ZkvaiError {
  static override readonly code: string = "STORE_FAILED";
  override name = "StoreError";
}
/** A Postgres store whose schema is not the one this code writes: `vai store migrate` brings it up to date. */
export class StoreSchemaError extends ZkvaiError {
  static override readonly code: string = "STORE_SCHEMA";
  override name = "StoreSchemaError";
}

/** How long one write waits for another connection's write lock (better-sqlite3's busy timeout). */
export const BUSY_TIMEOUT_MS = 5_000;
/** Write attempts, each waiting up to BUSY_TIMEOUT_MS, before a write fails as locked. */
export const WRITE_ATTEMPTS = 3;

export interface StoredSession {
  sessionId: `0x${string}`;
  secret: bigint;
  profile: EncodingProfile;
  profileHash: bigint;
  user: `0x${string}`;
  createdAt: number;
}

export interface StoredCheckpoint {
  n: number;
  root: bigint;
  final: boolean;
}

export interface StoredPromise {
  promiseId: bigint;
  predicate: string;
  theta: unknown;
  paramsHash: bigint;
}

/** What createSession takes: the profile hash is computed, and the creation time defaults to now. */
export type NewSession = Omit<StoredSession, "profileHash" | "createdAt"> & { createdAt?: number };
