// A synchronous call into a worker thread: the caller posts a request, then blocks in Atomics.wait on a
// shared flag until the worker has posted its reply and raised the flag, and takes the reply off the port
// with receiveMessageOnPort (no event loop turn needed). This is how synckit makes an async library
// synchronous; it is written out here because it is small, and because the store needs one worker that
// keeps its state (a database connection holding session-level locks) from call to call.
// Both sides: SyncWorker is the caller's end, serveSync the worker's.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  workerData,
  type MessagePort,
} from "node:worker_threads";

/** flag[0]: 0 while a request is out, 1 once its reply is on the port. */
const REPLY_READY = 1;
/** How long a reply the worker flagged may take to show on the port. */
const LATE_REPLY_MS = 2000;

export interface SyncRequest {
  method: string;
  args: unknown[];
}
/** An error as it crosses the thread boundary: what the caller needs to rebuild its class. */
export interface SyncFailure {
  name: string;
  message: string;
  code?: string;
  details?: unknown;
}
export type SyncReply = { ok: true; value: unknown } | { ok: false; error: SyncFailure };

export class SyncWorker {
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  /**
   * Set once a call went unanswered: its reply may still come, and would be taken for the next call's, and
   * whether it took effect is unknown, so no later call is made.
   */
  private broken: string | undefined;

  /** Starts the worker module `entry` (a .ts source under tsx, or its compiled .js) with `data`. */
  constructor(entry: URL, data: Record<string, unknown>) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(bootFile(), {
      workerData: { ...data, entry: entry.href, flag: this.flag.buffer, port: port2 },
      transferList: [port2],
    });
    // A worker that throws or exits is not the process's failure: the calls it leaves unanswered fail instead
    // (an 'error' event without a listener would end the process).
    this.worker.on("error", (e) => (this.broken ??= `the worker thread stopped: ${e.message}`));
    // Neither keeps the process alive: a store left open must not keep a finished program running.
    this.worker.unref();
    this.port.unref();
  }

  /** Runs `method` in the worker and returns its reply; a reply that does not come in timeoutMs is a failure. */
  call(method: string, args: unknown[], timeoutMs: number): SyncReply {
    if (this.broken) return { ok: false, error: { name: "Broken", message: this.broken } };
    // No reply is owed between calls: a message waiting now is the worker saying it could not start.
    const unsolicited = receiveMessageOnPort(this.port);
    if (unsolicited) {
      const failure = unsolicited.message as SyncReply;
      this.broken = failure.ok ? "the worker thread sent a reply no call asked for" : failure.error.message;
      return { ok: false, error: { name: "Broken", message: this.broken } };
    }
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ method, args } satisfies SyncRequest);
    if (Atomics.wait(this.flag, 0, 0, timeoutMs) === "timed-out") {
      this.broken = `the store's worker thread did not answer ${method} in ${timeoutMs} ms (whether it took effect is unknown); reopen the store`;
      return { ok: false, error: { name: "Timeout", message: this.broken } };
    }
    // The worker posts its reply before it raises the flag, so the reply should be on the port now. Once, under
    // 4 loaded recorder processes (docs/BENCHMARKS.md, Postgres load), it was not: wait a little for it rather
    // than fail a call that took effect (a hypothesis not reproduced since; the failure below stays the answer).
    let reply = receiveMessageOnPort(this.port);
    for (const until = Date.now() + LATE_REPLY_MS; !reply && Date.now() < until;) {
      Atomics.wait(this.flag, 0, REPLY_READY, 5);
      reply = receiveMessageOnPort(this.port);
    }
    if (!reply) {
      this.broken = `no reply to ${method} on the worker's port (whether it took effect is unknown); reopen the store`;
      return { ok: false, error: { name: "Lost", message: this.broken } };
    }
    return reply.message as SyncReply;
  }

  terminate(): void {
    void this.worker.terminate();
  }
}

/**
 * The worker's end: answers each request with handlers[method](...args), and wakes the caller after each
 * reply is posted. Requests come one at a time, since the caller waits for each reply before the next.
 */
export function serveSync(handlers: Record<string, (...args: never[]) => Promise<unknown>>): void {
  const { flag, port } = workerData as { flag: SharedArrayBuffer; port: MessagePort };
  const flags = new Int32Array(flag);
  port.on("message", async (request: SyncRequest) => {
    let reply: SyncReply;
    try {
      const handler = handlers[request.method];
      if (!handler) throw new Error(`no handler for ${request.method}`);
      reply = { ok: true, value: await handler(...(request.args as never[])) };
    } catch (e) {
      const err = e as { name?: string; message?: string; code?: unknown; details?: unknown };
      reply = {
        ok: false,
        error: {
          name: err?.name ?? "Error",
          message: err?.message ?? String(e),
          code: typeof err?.code === "string" ? err.code : undefined,
          details: err?.details,
        },
      };
    }
    port.postMessage(reply);
    Atomics.store(flags, 0, REPLY_READY);
    Atomics.notify(flags, 0);
  });
}

/**
 * The worker's boot script: sdk/provider/leaf-worker-boot.mjs registers tsx before it imports a .ts entry
 * (a worker thread in Node 20 does not inherit tsx's loader), and imports a compiled .js entry as it is.
 */
function bootFile(): URL {
  return new URL("./leaf-worker-boot.mjs", import.meta.url);
}

/** The compiled .js beside this file when there is one (the package), else the .ts source (tsx). */
export function workerEntry(name: string, base: string): URL {
  const js = new URL(`./${name}.js`, base);
  return existsSync(fileURLToPath(js)) ? js : new URL(`./${name}.ts`, base);
}
