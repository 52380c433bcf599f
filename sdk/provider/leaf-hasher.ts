// Leaf hashing off the agent's thread. A record's leaf is ~1.6–2.6 ms of poseidon-lite, more than the whole
// per-call budget (docs/BENCHMARKS.md "Harness adapters"), so each session's LeafLog hands its records to
// one worker thread per process (sdk/provider/leaf-worker.ts), which hashes them with a WebAssembly
// Poseidon and posts the leaves back; the agent's thread only copies the record into a message.
//
// The leaves come back two ways: as messages the event loop delivers in the background, and, when a root
// is asked for synchronously (a checkpoint, a receipt, Session.head), by draining the result port with
// receiveMessageOnPort and sleeping on a shared counter (Atomics.wait) until the leaf is there. A wait never
// lasts longer than hashing the missing leaves here would (the worker may be busy with other sessions'
// records); a worker that is still starting, has died, or has posted nothing for STALL_MS while owing leaves
// is not waited for, and the LeafLog hashes what it lacks itself. So nothing depends on the worker, only
// the speed does. An acknowledged record guarantees what it did before: it is in the store (P7) before the
// acknowledgement; its leaf is a function of it.
//
// VAI_LEAF_HASHING=inline turns the worker off (every leaf hashed on the agent's thread, in idle turns).
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type { LeafOffload, LeafSink } from "../core/leaf-log.js";
import type { EncodingProfile } from "../core/profile.js";
import type { TraceRecord } from "../core/records.js";
import {
  HASHER_FAILED,
  HASHER_READY,
  HASHER_STATE,
  LEAVES_POSTED,
  type HasherRequest,
  type HasherResult,
} from "./leaf-hasher-protocol.js";

/** A worker that owes leaves and has posted none for this long (or has not started in this long) is given up. */
export const STALL_MS = 10_000;
/**
 * What a leaf costs on the agent's thread (poseidon-lite, measured 1.6–2.6 ms): a synchronous wait for k
 * missing leaves gives up after k times this, when hashing them here would have been as quick.
 */
export const INLINE_LEAF_MS = 2;

export type LeafHashingMode = "worker" | "inline";

/** VAI_LEAF_HASHING, checked: a session refuses to open on a value it does not know, before writing anything. */
export function leafHashingMode(): LeafHashingMode {
  const mode = process.env.VAI_LEAF_HASHING ?? "worker";
  if (mode !== "worker" && mode !== "inline")
    throw new RangeError(`VAI_LEAF_HASHING must be "worker" or "inline", not ${JSON.stringify(mode)}`);
  return mode;
}

export class LeafHasher {
  private readonly flags = new Int32Array(new SharedArrayBuffer(8));
  /** Requests go out and leaves come back on this port (a worker's own channel would drop early requests). */
  private readonly port: MessagePort;
  private readonly worker: Worker;
  /** Each open log's sink, held weakly: a log its session dropped without dispose() is closed when collected. */
  private readonly logs = new Map<number, WeakRef<LeafSink>>();
  private readonly collected = new FinalizationRegistry<number>((log) => this.close(log));
  private nextLog = 0;
  /** Records sent, and leaves seen posted, when the worker last made progress: what tells a stall. */
  private sent = 0;
  private progress = { posted: 0, at: performance.now() };
  private readonly startup: Promise<void>;
  private readonly createdAt = performance.now();
  private markStarted!: () => void;
  /** Whether the worker runs the WebAssembly Poseidon; undefined until it has started. */
  accelerated: boolean | undefined;
  /** Milliseconds from construction until the worker took requests (loading its modules, building its Poseidon). */
  startupMs: number | undefined;
  /** Leaves delivered from the worker, and the milliseconds it spent hashing them (what the process pays besides the agent's thread). */
  readonly delivered = { leaves: 0, workerMs: 0 };

  constructor(opts: { wasm?: boolean } = {}) {
    this.startup = new Promise((resolve) => (this.markStarted = resolve));
    const channel = new MessageChannel();
    this.port = channel.port1;
    const { boot, entry } = workerFiles();
    this.worker = new Worker(boot, {
      workerData: {
        entry,
        shared: this.flags.buffer,
        port: channel.port2,
        wasm: opts.wasm ?? true,
        // circomlibjs' field library loads the web-worker package, which takes any worker thread for one of
        // its own and imports workerData.mod into it: an empty module keeps it from printing an error.
        mod: "data:text/javascript,",
        type: "module",
      },
      transferList: [channel.port2],
    });
    this.worker.on("error", (e) => this.fail(`it threw: ${e.message}`));
    this.worker.on("exit", (code) => this.fail(`it exited with code ${code}`));
    this.port.on("message", (m: HasherResult) => this.dispatch(m));
    // A worker that cannot start is given up like one that stalls. The timer holds no process open.
    setTimeout(() => {
      if (this.startupMs === undefined) this.fail(`it did not start in ${STALL_MS} ms`);
    }, STALL_MS).unref();
    // Neither keeps a process alive: unhashed leaves are recomputable from the store.
    this.worker.unref();
    this.port.unref();
  }

  /**
   * Settles once the worker takes requests, or has been given up; a session that records before then hashes
   * its first leaves itself. Awaiting it keeps the process alive until then (the worker itself never does).
   */
  get started(): Promise<void> {
    this.worker.ref();
    return this.startup.finally(() => this.worker.unref());
  }

  /** True until the worker died or was given up; then every session hashes on its own thread. */
  get working(): boolean {
    return Atomics.load(this.flags, HASHER_STATE) !== HASHER_FAILED;
  }

  /** A channel for one LeafLog: its records go to the worker, its leaves come back to sink.accept. */
  open(profile: EncodingProfile, secret: bigint, sink: LeafSink): LeafOffload {
    const log = this.nextLog++;
    if (this.working) {
      this.logs.set(log, new WeakRef(sink));
      this.collected.register(sink, log, sink);
      this.send({ op: "open", log, profile, secret });
    }
    return {
      working: () => this.working,
      push: (record: TraceRecord) => {
        this.sent++;
        this.send({ op: "push", log, record });
      },
      collect: (done: () => boolean, missing: number) => this.collect(done, missing),
      close: () => {
        this.collected.unregister(sink);
        this.close(log);
      },
    };
  }

  private close(log: number): void {
    if (this.logs.delete(log)) this.send({ op: "close", log });
  }

  private send(request: HasherRequest): void {
    if (this.working) this.port.postMessage(request);
  }

  /** Gives the worker up: every waiter wakes (the count moves, so none sleeps on), and says so once. */
  private fail(why: string): void {
    if (!this.working) return;
    Atomics.store(this.flags, HASHER_STATE, HASHER_FAILED);
    Atomics.add(this.flags, LEAVES_POSTED, 1);
    Atomics.notify(this.flags, LEAVES_POSTED);
    this.logs.clear();
    this.markStarted();
    process.emitWarning(
      `zkvai: the leaf hasher's worker is given up (${why}); sessions hash on their own thread`,
    );
  }

  private dispatch(m: HasherResult): void {
    if ("ready" in m) {
      this.accelerated = m.accelerated;
      this.startupMs = performance.now() - this.createdAt;
      this.markStarted();
      if (!m.accelerated)
        process.emitWarning(
          "zkvai: the leaf hasher's WebAssembly Poseidon did not load; its worker uses poseidon-lite",
        );
    } else {
      this.delivered.leaves++;
      this.delivered.workerMs += m.ms;
      this.logs.get(m.log)?.deref()?.accept(m.seq, m.leaf);
    }
  }

  /**
   * Takes every leaf posted so far, then sleeps until done(), for at most what hashing the `missing` leaves
   * here would take; gives the worker up when it owes leaves and has posted none for STALL_MS.
   */
  private collect(done: () => boolean, missing: number): void {
    const deadline = performance.now() + missing * INLINE_LEAF_MS;
    for (;;) {
      // Read the count before draining: a leaf posted after the drain changes it, so the wait returns at once.
      const posted = Atomics.load(this.flags, LEAVES_POSTED);
      for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port))
        this.dispatch(m.message as HasherResult);
      if (done() || Atomics.load(this.flags, HASHER_STATE) !== HASHER_READY) return;
      const now = performance.now();
      if (posted !== this.progress.posted) this.progress = { posted, at: now };
      else if (this.sent > this.delivered.leaves && now - this.progress.at > STALL_MS)
        return this.fail(`it owes leaves and posted none in ${STALL_MS} ms`);
      if (now >= deadline) return;
      Atomics.wait(this.flags, LEAVES_POSTED, posted, deadline - now);
    }
  }
}

/** The boot script and the worker's own module: compiled .js beside this file, or the .ts source (tsx). */
function workerFiles(): { boot: URL; entry: string } {
  const js = new URL("./leaf-worker.js", import.meta.url);
  const entry = existsSync(fileURLToPath(js)) ? js : new URL("./leaf-worker.ts", import.meta.url);
  return { boot: new URL("./leaf-worker-boot.mjs", import.meta.url), entry: entry.href };
}

let processHasher: LeafHasher | null | undefined;

/**
 * The process's leaf hasher, started on first use; undefined when VAI_LEAF_HASHING=inline or when no worker
 * thread can be started here (the sessions then hash on their own thread, as before).
 */
export function processLeafHasher(): LeafHasher | undefined {
  if (processHasher === undefined) {
    try {
      processHasher = leafHashingMode() === "inline" ? null : new LeafHasher();
    } catch (e) {
      if (e instanceof RangeError) throw e;
      processHasher = null;
    }
  }
  return processHasher ?? undefined;
}
