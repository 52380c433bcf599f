// What every trace store holds and refuses, whichever database is under it (store.ts names the interface):
// the rows it returns, and the errors a caller can tell apart by code.
import type { EncodingProfile } from "../core/profile.js";
import type { TraceRecord } from "../core/records.js";
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

/** One trace store, whichever database is under it (store.ts: `TraceStore`, and how to open one). */
export interface TraceStoreApi {
  close(): void;
  /** Throws a StoreError unless the store can take a write now (guard mode asks before each call). */
  ping(): void;
  /** Throws a StoreError once what was opened can no longer keep a write (SQLite: the path names another file). */
  checkFile(): void;

  /** Stores a session's parameters; the same again is a no-op, other parameters a StoreConflictError. */
  createSession(s: NewSession): StoredSession;
  session(sessionId: string): StoredSession | undefined;

  /**
   * Appends the record at its seq, which must be the next one. The same bytes again are an idempotent
   * retry ("duplicate"); other bytes at a stored seq are a StoreConflictError.
   */
  append(sessionId: string, record: TraceRecord): "inserted" | "duplicate";
  /** Reserves a record for a call about to run (guard mode); `fallback` is kept if complete() never comes. */
  reserve(sessionId: string, fallback: TraceRecord): number;
  /** Stores a reserved call's record at the next seq and drops its reservation, in one transaction. */
  complete(sessionId: string, record: TraceRecord, reservation: number): "inserted" | "duplicate";
  /** The session's reservations whose record is not stored, oldest first. */
  pending(sessionId: string): { reservation: number; fallback: TraceRecord }[];
  /** Stores every open reservation's fallback at the next seqs, oldest first (recovery); returns them. */
  settlePending(sessionId: string): TraceRecord[];

  /** Marks this process as the session's one recorder; a StoreConflictError names a live holder. */
  claimWriter(sessionId: string): void;
  /** Gives up this process's claim on the session (it closed). */
  releaseWriter(sessionId: string): void;

  records(sessionId: string): TraceRecord[];
  record(sessionId: string, seq: number): TraceRecord | undefined;
  count(sessionId: string): number;

  addCheckpoint(sessionId: string, c: StoredCheckpoint): void;
  checkpoints(sessionId: string): StoredCheckpoint[];

  putPromise(p: StoredPromise): void;
  promise(promiseId: bigint): StoredPromise | undefined;
}
