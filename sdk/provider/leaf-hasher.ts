// Leaf hashing off the agent's thread. A record's leaf is ~2.6 ms of poseidon-lite, more than the whole
// per-call budget (docs/BENCHMARKS.md "Harness adapters"), so each session's LeafLog hands its records to
// one worker thread per process (sdk/provider/leaf-worker.ts), which hashes them with a WebAssembly
// Poseidon and posts the leaves back; the agent's thread only copies the record into a message.
//
// The leaves come back two ways: as messages the event loop delivers in the background, and, when a root
// is asked for synchronously (a checkpoint, a receipt, Session.head), by draining the result port with
// receiveMessageOnPort and sleeping on a shared counter (Atomics.wait) until the leaf is there. A worker
// that is still starting, has died or has posted nothing for STALL_MS is not waited for: the LeafLog
// hashes what it lacks itself, so nothing ever depends on the worker, only the speed does. An acknowledged
// record guarantees what it did before: it is in the store (P7); its leaf is a function of it.
//
// VAI_LEAF_HASHING=inline turns the worker off (every leaf hashed on the agent's thread, in idle turns).
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type { LeafOffload } from "../core/leaf-log.js";
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

/** How long a synchronous wait goes without a single leaf posted (by any session) before it hashes itself. */
export const STALL_MS = 30_000;

type Accept = (seq: number, leaf: bigint) => void;

export class LeafHasher {
  private readonly flags = new Int32Array(new SharedArrayBuffer(8));
  /** Requests go out and leaves come back on this port (a worker's own channel would drop early requests). */
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private readonly logs = new Map<number, Accept>();
  private nextLog = 0;
  /** Whether the worker runs the WebAssembly Poseidon; undefined until it has started. */
  accelerated: boolean | undefined;
  private readonly startup: Promise<void>;
  /** Milliseconds from construction until the worker took requests (loading its modules, building its Poseidon). */
  startupMs: number | undefined;
  private readonly createdAt = performance.now();
  private markStarted!: () => void;
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
    const failed = () => {
      Atomics.store(this.flags, HASHER_STATE, HASHER_FAILED);
      Atomics.notify(this.flags, LEAVES_POSTED);
      this.markStarted();
    };
    // A dead worker only slows the sessions down: each LeafLog hashes what is missing itself.
    this.worker.on("error", failed);
    this.worker.on("exit", failed);
    this.port.on("message", (m: HasherResult) => this.dispatch(m));
    // Neither keeps a process alive: unhashed leaves are recomputable from the store.
    this.worker.unref();
    this.port.unref();
  }

  /**
   * Settles once the worker takes requests, or has died; a session that records before then hashes its first
   * leaves itself. Awaiting it keeps the process alive until then (the worker itself never does).
   */
  get started(): Promise<void> {
    this.worker.ref();
    return this.startup.finally(() => this.worker.unref());
  }

  /** True until the worker died; a session whose hasher stops working hashes on its own thread. */
  get working(): boolean {
    return Atomics.load(this.flags, HASHER_STATE) !== HASHER_FAILED;
  }

  /** A channel for one LeafLog: its records go to the worker, its leaves come back through accept. */
  open(profile: EncodingProfile, secret: bigint, accept: Accept): LeafOffload {
    const log = this.nextLog++;
    this.logs.set(log, accept);
    this.send({ op: "open", log, profile, secret });
    return {
      working: () => this.working,
      push: (record: TraceRecord) => this.send({ op: "push", log, record }),
      collect: (done: () => boolean) => this.collect(done),
      close: () => {
        if (this.logs.delete(log)) this.send({ op: "close", log });
      },
    };
  }

  /** Stops the worker (tests; a process otherwise just exits). */
  async terminate(): Promise<void> {
    this.port.close();
    await this.worker.terminate();
  }

  private send(request: HasherRequest): void {
    if (this.working) this.port.postMessage(request);
  }

  private dispatch(m: HasherResult): void {
    if ("ready" in m) {
      this.accelerated = m.accelerated;
      this.startupMs = performance.now() - this.createdAt;
      this.markStarted();
    } else {
      this.delivered.leaves++;
      this.delivered.workerMs += m.ms;
      this.logs.get(m.log)?.(m.seq, m.leaf);
    }
  }

  /** Takes every leaf posted so far, then sleeps until done() or until waiting is pointless. */
  private collect(done: () => boolean): void {
    for (;;) {
      // Read the count before draining: a leaf posted after the drain changes it, so the wait returns at once.
      const posted = Atomics.load(this.flags, LEAVES_POSTED);
      for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port))
        this.dispatch(m.message as HasherResult);
      if (done() || Atomics.load(this.flags, HASHER_STATE) !== HASHER_READY) return;
      if (Atomics.wait(this.flags, LEAVES_POSTED, posted, STALL_MS) === "timed-out") return;
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
    const mode = process.env.VAI_LEAF_HASHING ?? "worker";
    if (mode !== "worker" && mode !== "inline")
      throw new RangeError(`VAI_LEAF_HASHING must be "worker" or "inline", not ${JSON.stringify(mode)}`);
    try {
      processHasher = mode === "inline" ? null : new LeafHasher();
    } catch {
      processHasher = null;
    }
  }
  return processHasher ?? undefined;
}
