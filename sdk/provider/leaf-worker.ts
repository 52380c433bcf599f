// The leaf hasher's worker thread: encodes each record it is sent and posts its chained leaf back
// (sdk/provider/leaf-hasher.ts has the protocol). It computes exactly what sdk/core/encoding.ts computes on
// the agent's thread, with circomlibjs' WebAssembly Poseidon installed in place of poseidon-lite (about 3×
// faster at 8 inputs, 6× at 16) once it has agreed with poseidon-lite at every arity (installPoseidon).
import { workerData, type MessagePort } from "node:worker_threads";
import { encodeRecord } from "../core/encoding.js";
import { installPoseidon, type PoseidonImplementation } from "../core/hash.js";
import type { EncodingProfile } from "../core/profile.js";
import type { TraceRecord } from "../core/records.js";
import {
  HASHER_FAILED,
  HASHER_READY,
  HASHER_STATE,
  LEAVES_POSTED,
  type HasherRequest,
} from "./leaf-hasher-protocol.js";

interface WorkerData {
  shared: SharedArrayBuffer;
  /** Requests arrive and leaves leave on this one port: a transferred port queues what is sent before we listen. */
  port: MessagePort;
  wasm: boolean;
}

interface WasmPoseidon {
  (inputs: bigint[]): Uint8Array;
  F: { toObject(x: Uint8Array): bigint };
}

async function wasmPoseidon(): Promise<PoseidonImplementation> {
  // circomlibjs ships no types; a non-literal specifier keeps tsc from demanding them.
  const specifier = "circomlibjs";
  const { buildPoseidon } = (await import(specifier)) as { buildPoseidon: () => Promise<WasmPoseidon> };
  const hash = await buildPoseidon();
  return (inputs) => hash.F.toObject(hash(inputs));
}

const { shared, port, wasm } = workerData as WorkerData;
const flags = new Int32Array(shared);
const logs = new Map<number, { profile: EncodingProfile; secret: bigint; prev: bigint }>();

let accelerated = false;
if (wasm) {
  try {
    installPoseidon(await wasmPoseidon());
    accelerated = true;
  } catch {
    // poseidon-lite stays: slower, still off the agent's thread. The hasher reports which one runs.
  }
}

port.on("message", (request: HasherRequest) => {
  try {
    handle(request);
  } catch (e) {
    // Every waiter stops waiting and hashes on its own thread (the count moves too, so that a waiter that read
    // it just before sleeps on a changed value); the error surfaces as the worker's.
    Atomics.store(flags, HASHER_STATE, HASHER_FAILED);
    Atomics.add(flags, LEAVES_POSTED, 1);
    Atomics.notify(flags, LEAVES_POSTED);
    throw e;
  }
});

function handle(request: HasherRequest): void {
  switch (request.op) {
    case "open":
      logs.set(request.log, { profile: request.profile, secret: request.secret, prev: 0n });
      return;
    case "close":
      logs.delete(request.log);
      return;
    case "push": {
      const log = logs.get(request.log);
      if (!log) return;
      const started = performance.now();
      const leaf = encodeRecord(request.record as TraceRecord, log.profile, log.secret, log.prev).leaf;
      log.prev = leaf;
      port.postMessage({ log: request.log, seq: request.record.seq, leaf, ms: performance.now() - started });
      // After the post, so that a thread woken by the count finds the message queued.
      Atomics.add(flags, LEAVES_POSTED, 1);
      Atomics.notify(flags, LEAVES_POSTED);
    }
  }
}
Atomics.store(flags, HASHER_STATE, HASHER_READY);
Atomics.notify(flags, HASHER_STATE);
port.postMessage({ ready: true, accelerated });
