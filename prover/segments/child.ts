// A local pool's worker process (prover/segments/pool.ts forks it): proves the segments its parent sends,
// one at a time, and answers each with its proof or its error. It exits when the parent goes away.
import { hostname } from "node:os";
import { provePayload, type SegmentTask } from "./task.js";

const me = `${hostname()}:${process.pid}`;
process.on("message", (message: { id: number; task: SegmentTask }) => {
  provePayload(message.task, me).then(
    (proof) => process.send!({ id: message.id, ok: true, proof }),
    (e: unknown) => process.send!({ id: message.id, ok: false, error: String((e as Error)?.message ?? e) }),
  );
});
process.on("disconnect", () => process.exit(0));
