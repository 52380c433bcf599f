// The provider's trace store on Postgres, for a postgres:// URL: recorders on several hosts share one
// database. The TraceStore interface is synchronous (every caller is), and pg is asynchronous, so this
// class is a facade: each call runs in a worker thread that owns the one connection
// (store-postgres-worker.ts, which says how each write is isolated and how the writer lock works), while
// the caller's thread waits for its reply (sync-worker.ts). The schema comes from `vai store migrate`
// (store-postgres-schema.ts); opening a database whose schema is behind refuses.
import { canonicalJson } from "../core/canonical.js";
import { ZkvaiError } from "../core/errors.js";
import { parseProfile, profileHash } from "../core/profile.js";
import { parseRecord, recordBytes, type TraceRecord } from "../core/records.js";
import {
  StoreConflictError,
  StoreError,
  StoreSchemaError,
  type NewSession,
  type StoredCheckpoint,
  type StoredPromise,
  type StoredSession,
  type TraceStoreApi,
} from "./store-model.js";
import { SyncWorker, workerEntry, type SyncFailure } from "./sync-worker.js";

/** Whether a store location is a Postgres URL rather than a SQLite file path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres://…";
  }
}

/**
 * How long a call waits for the worker: past the worker's own 15 s lock timeout and its retries, so a slow
 * database fails there, with its reason, before this fires.
 */
const CALL_TIMEOUT_MS = 90_000;
/** Starting the worker loads pg (and, from a checkout, tsx): seconds on a busy machine. */
const OPEN_TIMEOUT_MS = 60_000;

const ERRORS: Record<string, new (message: string, options?: { details?: never }) => ZkvaiError> = {
  StoreConflictError,
  StoreSchemaError,
};

export class PostgresTraceStore implements TraceStoreApi {
  private closed = false;

  private constructor(
    private readonly worker: SyncWorker,
    /** The URL opened, its password redacted. */
    readonly location: string,
  ) {}

  static open(url: string): PostgresTraceStore {
    const where = redactUrl(url);
    const worker = new SyncWorker(workerEntry("store-postgres-worker", import.meta.url), { url, where });
    const store = new PostgresTraceStore(worker, where);
    try {
      store.call("open", [], OPEN_TIMEOUT_MS);
    } catch (e) {
      worker.terminate();
      if (e instanceof StoreSchemaError) throw e;
      throw new StoreError(`cannot open trace store at ${where}: ${(e as Error).message}`, { cause: e });
    }
    return store;
  }

  private call<T>(method: string, args: unknown[] = [], timeoutMs = CALL_TIMEOUT_MS): T {
    if (this.closed) throw new StoreError(`trace store ${this.location} is closed`);
    const reply = this.worker.call(method, args, timeoutMs);
    if (reply.ok) return reply.value as T;
    throw rebuild(reply.error, this.location);
  }

  close(): void {
    if (this.closed) return;
    try {
      this.call("close", [], 10_000);
    } finally {
      this.closed = true;
      this.worker.terminate();
    }
  }

  ping(): void {
    try {
      this.call("ping");
    } catch (e) {
      throw new StoreError(`trace store unavailable: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Throws once the connection was lost: its writer locks went with it (there is no file to check). */
  checkFile(): void {
    this.call("checkLost");
  }

  createSession(s: NewSession): StoredSession {
    const profile = parseProfile(s.profile);
    this.call("createSession", [
      {
        session_id: s.sessionId.toLowerCase(),
        secret: s.secret.toString(),
        profile: canonicalJson(profile),
        profile_hash: profileHash(profile).toString(),
        user_address: s.user.toLowerCase(),
        created_at: String(s.createdAt ?? Date.now()),
      },
    ]);
    return this.session(s.sessionId)!;
  }

  session(sessionId: string): StoredSession | undefined {
    const row = this.call<Record<string, string> | undefined>("session", [sessionId.toLowerCase()]);
    if (!row) return undefined;
    return {
      sessionId: row.session_id as `0x${string}`,
      secret: BigInt(row.secret!),
      profile: parseProfile(JSON.parse(row.profile!)),
      profileHash: BigInt(row.profile_hash!),
      user: row.user_address as `0x${string}`,
      createdAt: Number(row.created_at),
    };
  }

  append(sessionId: string, record: TraceRecord): "inserted" | "duplicate" {
    const body = recordBytes(parseRecord(record));
    return this.call("append", [sessionId.toLowerCase(), record.seq, body]);
  }

  reserve(sessionId: string, fallback: TraceRecord): number {
    return this.call("reserve", [sessionId.toLowerCase(), recordBytes(parseRecord(fallback))]);
  }

  complete(sessionId: string, record: TraceRecord, reservation: number): "inserted" | "duplicate" {
    const body = recordBytes(parseRecord(record));
    return this.call("complete", [sessionId.toLowerCase(), record.seq, body, reservation]);
  }

  pending(sessionId: string): { reservation: number; fallback: TraceRecord }[] {
    return this.call<{ reservation: number; fallback: string }[]>("pending", [sessionId.toLowerCase()]).map(
      (r) => ({ reservation: r.reservation, fallback: parseRecord(JSON.parse(r.fallback)) }),
    );
  }

  settlePending(sessionId: string): TraceRecord[] {
    return this.pending(sessionId).map(({ reservation, fallback }) => {
      const seq = this.call<number>("nextSeq", [sessionId.toLowerCase()]);
      const record = parseRecord({ ...fallback, seq });
      this.complete(sessionId, record, reservation);
      return record;
    });
  }

  claimWriter(sessionId: string): void {
    this.call("claimWriter", [sessionId.toLowerCase(), Date.now()]);
  }

  releaseWriter(sessionId: string): void {
    this.call("releaseWriter", [sessionId.toLowerCase()]);
  }

  records(sessionId: string): TraceRecord[] {
    return this.call<string[]>("records", [sessionId.toLowerCase()]).map((b) => parseRecord(JSON.parse(b)));
  }

  record(sessionId: string, seq: number): TraceRecord | undefined {
    const body = this.call<string | undefined>("record", [sessionId.toLowerCase(), seq]);
    return body === undefined ? undefined : parseRecord(JSON.parse(body));
  }

  count(sessionId: string): number {
    return this.call("count", [sessionId.toLowerCase()]);
  }

  addCheckpoint(sessionId: string, c: StoredCheckpoint): void {
    this.call("addCheckpoint", [sessionId.toLowerCase(), c.n, c.root.toString(), c.final]);
  }

  checkpoints(sessionId: string): StoredCheckpoint[] {
    return this.call<{ n: number; root: string; final: boolean }[]>("checkpoints", [
      sessionId.toLowerCase(),
    ]).map((r) => ({ n: r.n, root: BigInt(r.root), final: r.final }));
  }

  putPromise(p: StoredPromise): void {
    this.call("putPromise", [
      p.promiseId.toString(),
      p.predicate,
      canonicalJson(p.theta),
      p.paramsHash.toString(),
    ]);
  }

  promise(promiseId: bigint): StoredPromise | undefined {
    const row = this.call<Record<string, string> | undefined>("promise", [promiseId.toString()]);
    if (!row) return undefined;
    return {
      promiseId: BigInt(row.promise_id!),
      predicate: row.predicate!,
      theta: JSON.parse(row.theta!),
      paramsHash: BigInt(row.params_hash!),
    };
  }
}

/** The worker's error as the class the caller expects: a conflict or a schema refusal as itself, else a StoreError. */
function rebuild(failure: SyncFailure, where: string): Error {
  const details = (failure.details ?? {}) as never;
  const known = ERRORS[failure.name];
  if (known) return new known(failure.message, { details });
  if (failure.name === "StoreError") return new StoreError(failure.message, { details });
  // A database error (pg's DatabaseError carries its SQLSTATE as code), a lost connection, a timeout.
  // SQLSTATEs are five characters; a socket's errno (ECONNREFUSED) is named as itself.
  const code = failure.code;
  const sqlstate = !code ? "" : /^[0-9A-Z]{5}$/.test(code) ? ` (SQLSTATE ${code})` : ` (${code})`;
  return new StoreError(`trace store ${where}: ${failure.message}${sqlstate}`);
}
