// The session's chained leaves, chain heads and commitment roots, kept off the tool-call path.
// A leaf costs ~2 ms of Poseidon in JS (poseidon-lite), twice the whole per-call
// budget, while a record is durable (P7) as soon as the store has it: so records
// are hashed elsewhere (a LeafOffload: the provider's worker thread, sdk/provider/leaf-hasher.ts)
// or, without one, in idle time, one per event-loop turn; and synchronously only when a
// root is asked for and the leaves are not there yet. Subtrees that are complete are hashed
// once and cached, so the root of any prefix costs O(log n) hashes beyond the leaves.
import { encodeRecord } from "./encoding.js";
import { parentHash, TREE_ARITY, treeHeight, zeroHash } from "./merkle.js";
import type { EncodingProfile } from "./profile.js";
import type { TraceRecord } from "./records.js";

/**
 * Somewhere else that hashes a log's records into the same chained leaves (another thread). It is only
 * ever a speed-up: whatever it has not delivered when a leaf is needed, the log computes itself.
 */
export interface LeafOffload {
  /** False once it stopped working; the log then hashes in idle turns, as without one. */
  working(): boolean;
  /** Sends the next record (seq order); its leaf comes back through the accept callback given at open. */
  push(record: TraceRecord): void;
  /**
   * Delivers the leaves computed so far, then blocks until done(), or until waiting would cost more than
   * hashing the `missing` leaves here.
   */
  collect(done: () => boolean, missing: number): void;
  close(): void;
}

/** Where an offload delivers a log's leaves, in seq order. Held weakly by the offload: see LeafLog. */
export interface LeafSink {
  accept(seq: number, leaf: bigint): void;
}

/** Opens an offload for one log. */
export type OpenLeafOffload = (profile: EncodingProfile, secret: bigint, sink: LeafSink) => LeafOffload;

export class LeafLog {
  /** Records acknowledged but not hashed yet, in seq order, from pending[nextPending]. */
  private pending: TraceRecord[] = [];
  private nextPending = 0;
  /** nodes[l][i] covers leaves [i·16^l, (i+1)·16^l); only complete subtrees are kept. */
  private readonly nodes: bigint[][] = [[]];
  private idle: NodeJS.Immediate | undefined;
  private offload: LeafOffload | undefined;
  // The offload holds this sink weakly, and only this log holds it: a log its owner drops without dispose()
  // is collected, and the offload forgets it then.
  private readonly sink: LeafSink = { accept: (seq, leaf) => this.accept(seq, leaf) };

  constructor(
    private readonly profile: EncodingProfile,
    private readonly secret: bigint,
    offload?: OpenLeafOffload,
  ) {
    this.offload = offload?.(profile, secret, this.sink);
  }

  /** Records pushed so far, hashed or not. */
  get length(): number {
    return this.nodes[0].length + this.pending.length - this.nextPending;
  }

  /** Takes the record at seq = length; it must already be encodable (the session checked it). */
  push(record: TraceRecord): void {
    if (record.seq !== this.length)
      throw new RangeError(`leaf log: expected seq ${this.length}, got ${record.seq}`);
    this.pending.push(record);
    if (this.offload?.working()) this.offload.push(record);
    else this.scheduleIdle();
  }

  /** The first n leaves, hashing what is still pending. */
  leaves(n = this.length): readonly bigint[] {
    this.hashUpTo(n);
    return this.nodes[0].slice(0, n);
  }

  /** The chain head of the first n records (n >= 1): what a checkpoint or receipt for n posts. */
  head(n = this.length): bigint {
    if (!Number.isInteger(n) || n < 1 || n > this.length)
      throw new RangeError(`chain head of ${n} records out of 1..${this.length}`);
    this.hashUpTo(n);
    return this.nodes[0][n - 1]!;
  }

  /** commitmentRoot of the first n records (sdk/core/merkle.ts), 0 for none. */
  root(n = this.length): bigint {
    if (!Number.isInteger(n) || n < 0 || n > this.length)
      throw new RangeError(`prefix ${n} out of 0..${this.length}`);
    if (n === 0) return 0n;
    this.hashUpTo(n);
    return this.node(treeHeight(n), 0, n);
  }

  /** Stops idle hashing (the session is closed or abandoned); roots still work on demand. */
  dispose(): void {
    if (this.idle) clearImmediate(this.idle);
    this.idle = undefined;
    this.offload?.close();
    // Leaves still owed would never come: from here on the log hashes on demand, on this thread.
    this.offload = undefined;
  }

  /** A leaf from the offload. One this log already computed itself (it could not wait) is dropped. */
  private accept(seq: number, leaf: bigint): void {
    if (seq !== this.nodes[0].length) return;
    this.nodes[0].push(leaf);
    this.advancePending();
  }

  private node(level: number, index: number, n: number): bigint {
    const span = TREE_ARITY ** level;
    const start = index * span;
    if (start >= n) return zeroHash(level);
    if (level === 0) return this.nodes[0][index];
    const complete = start + span <= n;
    if (complete && this.nodes[level]?.[index] !== undefined) return this.nodes[level][index];
    const children: bigint[] = [];
    for (let c = 0; c < TREE_ARITY; c++) children.push(this.node(level - 1, TREE_ARITY * index + c, n));
    const value = parentHash(children, level - 1);
    // Leaves never change, so a complete subtree's node is final.
    if (complete) (this.nodes[level] ??= [])[index] = value;
    return value;
  }

  private hashUpTo(n: number): void {
    if (this.nodes[0].length < n && this.offload?.working())
      this.offload.collect(() => this.nodes[0].length >= n, n - this.nodes[0].length);
    while (this.nodes[0].length < n) this.hashOne();
  }

  private hashOne(): void {
    const record = this.pending[this.nextPending];
    const prev = this.nodes[0].at(-1) ?? 0n;
    this.nodes[0].push(encodeRecord(record, this.profile, this.secret, prev).leaf);
    this.advancePending();
  }

  private advancePending(): void {
    if (++this.nextPending === this.pending.length) {
      this.pending = [];
      this.nextPending = 0;
    }
  }

  private scheduleIdle(): void {
    if (this.idle || this.nextPending === this.pending.length) return;
    // With a working offload the leaves come from there; idle hashing would only race it on this thread.
    if (this.offload?.working()) return;
    // setImmediate, not a microtask: the agent's next turn runs first, and the
    // process may exit with leaves unhashed (they are recomputable from the store).
    this.idle = setImmediate(() => {
      this.idle = undefined;
      if (this.nextPending < this.pending.length) this.hashOne();
      this.scheduleIdle();
    });
    this.idle.unref();
  }
}
