// One proof in a process of its own, so its peak RSS and times are that proof's alone:
//   tsx scripts/bench/prove-child.ts <request.json> <result.json>
// request: {wasm, zkey, vkey, input}; result: {proof, publicSignals, witnessSeconds, proveSeconds,
// verifySeconds, verified, peakRssMB}. Exit 1 with a message on stderr when no witness satisfies the circuit.
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import * as snarkjs from "snarkjs";
import { releaseProver } from "../../prover/prove.js";

export interface ProveRequest {
  wasm: string;
  zkey: string;
  vkey: string;
  input: Record<string, unknown>;
}

export interface ProveMeasurement {
  proof: snarkjs.Groth16Proof;
  publicSignals: string[];
  witnessSeconds: number;
  proveSeconds: number;
  verifySeconds: number;
  verified: boolean;
  /** CPU time of the prove step, all threads: steadier than wall time on a shared machine. */
  proveCpuSeconds: number;
  /** 1-minute load average when the proof finished: how contended the machine was. */
  loadAverage1m: number;
  /** process.resourceUsage().maxRSS of this process, in MiB: node, snarkjs and the proof together. */
  peakRssMB: number;
}

async function main(requestFile: string, resultFile: string): Promise<void> {
  const req = JSON.parse(readFileSync(requestFile, "utf8")) as ProveRequest;
  const wtns = { type: "mem" } as unknown as string;
  const t0 = performance.now();
  await snarkjs.wtns.calculate(req.input as never, req.wasm, wtns);
  const t1 = performance.now();
  const cpu = process.cpuUsage();
  const { proof, publicSignals } = await snarkjs.groth16.prove(req.zkey, wtns);
  const t2 = performance.now();
  const cpuUsed = process.cpuUsage(cpu);
  const vkey = JSON.parse(readFileSync(req.vkey, "utf8"));
  const verified = await snarkjs.groth16.verify(vkey, publicSignals, proof);
  const t3 = performance.now();
  const out: ProveMeasurement = {
    proof,
    publicSignals: publicSignals.map(String),
    witnessSeconds: (t1 - t0) / 1000,
    proveSeconds: (t2 - t1) / 1000,
    verifySeconds: (t3 - t2) / 1000,
    verified,
    proveCpuSeconds: (cpuUsed.user + cpuUsed.system) / 1e6,
    loadAverage1m: Number(loadavg()[0].toFixed(2)),
    peakRssMB: process.resourceUsage().maxRSS / 1024,
  };
  writeFileSync(resultFile, JSON.stringify(out));
}

const [requestFile, resultFile] = process.argv.slice(2);
main(requestFile, resultFile)
  .then(releaseProver)
  .then(
    () => process.exit(0),
    async (e: unknown) => {
      console.error(String((e as Error)?.message ?? e).split("\n")[0]);
      await releaseProver();
      process.exit(1);
    },
  );
