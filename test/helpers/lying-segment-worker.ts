// A segment worker that lies, for test/prover/segment-queue-liar.test.ts only: it proves each segment honestly
// (a child process, as scripts/segment-worker.ts does) and then hands back what an attacker's worker would.
//   --lie words   the honest proof, with one of the 8 words beside it flipped (the proof still verifies)
//   --lie proof   a proof that does not verify (its A and C points swapped, the words packed to match)
// `tsx test/helpers/lying-segment-worker.ts --redis URL --prefix P --lie words|proof [--lock-ms N]
// [--stalled-ms N]`; prints the same JSON lines as scripts/segment-worker.ts, and stops on SIGTERM.
import { parseArgs } from "node:util";
import { packProof } from "../../sdk/core/claim.js";
import { LocalSegmentPool } from "../../prover/segments/pool.js";
import { startSegmentWorker } from "../../prover/segments/queue.js";
import type { SegmentProof } from "../../prover/segments/task.js";

const { values } = parseArgs({
  options: {
    redis: { type: "string" },
    prefix: { type: "string" },
    lie: { type: "string" },
    "lock-ms": { type: "string" },
    "stalled-ms": { type: "string" },
  },
  strict: true,
});
const lie = values.lie;
if (!values.redis || (lie !== "words" && lie !== "proof"))
  throw new Error("usage: --redis URL --lie words|proof [--prefix P] [--lock-ms N] [--stalled-ms N]");
const say = (event: object) => process.stdout.write(`${JSON.stringify(event)}\n`);

function forged(honest: SegmentProof): SegmentProof {
  if (lie === "words") {
    const words = [...honest.words];
    words[3] = String(BigInt(words[3]!) ^ 1n);
    return { ...honest, words };
  }
  const proof = { ...honest.proof, pi_a: honest.proof.pi_c, pi_c: honest.proof.pi_a };
  return { ...honest, proof, words: packProof(proof).map(String) };
}

const pool = new LocalSegmentPool({ workers: 1, retries: 0 });
const worker = await startSegmentWorker({
  connection: values.redis,
  ...(values.prefix === undefined ? {} : { prefix: values.prefix }),
  ...(values["lock-ms"] === undefined ? {} : { lockDurationMs: Number(values["lock-ms"]) }),
  ...(values["stalled-ms"] === undefined ? {} : { stalledIntervalMs: Number(values["stalled-ms"]) }),
  onEvent: say,
  prove: async (task) => {
    const [honest] = await pool.proveAll([task]);
    say({ event: "lied", lie, claimId: task.claimId, index: task.index });
    return forged(honest!);
  },
});
process.once("SIGTERM", () => {
  void (async () => {
    await worker.close();
    await pool.close();
    say({ event: "stopped" });
    process.exit(0);
  })();
});
