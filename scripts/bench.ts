// npm run bench: what a proof costs. For now (issue #2) it measures the AAP-4
// circuit: constraints per record and per checkpoint from compiled variants,
// proof time on the built instances, and the gas of checkpoint, settle and
// claimDefault from real transactions on the in-process chain. Results go to
// docs/bench/results.json; docs/BENCHMARKS.md quotes them.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { keccak256, parseEther, toHex } from "viem";
import { embeddedChain } from "../sdk/chain.js";
import type { EncodingProfile } from "../sdk/profile.js";
import { Recorder } from "../sdk/recorder.js";
import { TraceStore } from "../sdk/store.js";
import { loadManifest } from "../prover/artifacts.js";
import { prepareClaim } from "../prover/claims.js";
import { deployZkVai, registerPromise } from "../prover/deploy.js";
import { prove, releaseProver, verifyLocally } from "../prover/prove.js";
import { pkgBin, ROOT } from "./lib/circuit-build.js";
import { Progress } from "./lib/progress.js";
import { readR1csHeader } from "./lib/zkfiles.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PROFILE: EncodingProfile = { version: 1, tools: { read: {}, send_email: { target: "to" } } };
const THETA = { outboundTools: ["send_email"], allowlist: ["alice@a.example", "bob@a.example"] };

async function constraintsOf(depth: number, checkpoints: number): Promise<number> {
  const dir = path.join(ROOT, "build", "bench", `aap4_d${depth}_k${checkpoints}`);
  mkdirSync(dir, { recursive: true });
  const main = path.join(dir, "main.circom");
  writeFileSync(
    main,
    `pragma circom 2.1.0;\ninclude "../../../circuits/main/aap4_recipients.circom";\n` +
      `component main {public [context, finalRoot, n, checkpointAcc, paramsHash, outcome]} = Aap4RecipientsMain(${depth}, ${checkpoints}, 2, 24);\n`,
  );
  execFileSync(
    process.execPath,
    [
      pkgBin("circom2"),
      path.relative(ROOT, main),
      "--r1cs",
      "--O2",
      "-l",
      "node_modules",
      "-o",
      path.relative(ROOT, dir),
    ],
    { cwd: ROOT, stdio: "pipe" },
  );
  return (await readR1csHeader(path.join(dir, "main.r1cs"))).nConstraints;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};

async function main() {
  const progress = new Progress({ total: 3 });
  const variants = await progress.step("compile AAP-4 variants for the cost breakdown", async (h) => {
    const out: Record<string, number> = {};
    for (const [d, k] of [
      [3, 1],
      [3, 2],
      [4, 1],
      [5, 1],
    ] as const) {
      h.note(`depth ${d}, ${k} checkpoint(s)`);
      out[`${d},${k}`] = await constraintsOf(d, k);
    }
    return out;
  });
  const perCheckpoint = variants["3,2"] - variants["3,1"];
  const perRecord = (variants["5,1"] - variants["4,1"]) / 16;

  const manifest = loadManifest();
  const chain = await embeddedChain();
  const [providerWallet, userWallet] = chain.wallets;
  const deployment = await deployZkVai(chain, providerWallet);
  const escrow = deployment.escrow;
  const store = TraceStore.open(path.join(os.tmpdir(), `zkvai-bench-${Date.now()}.sqlite`));
  const { promiseId } = await registerPromise(deployment, escrow, store, {
    predicate: "AAP-4",
    theta: THETA,
    profile: PROFILE,
    payout: parseEther("1"),
    reserve: parseEther("100"),
  });

  const results = [];
  for (const [name, entry] of Object.entries(manifest.circuits).filter(([, c]) => c.predicate === "AAP-4")) {
    const capacity = 2 ** Number(entry.params.depth);
    const measured = await progress.step(
      `prove ${name} (${capacity} records) ×${RUNS}, settle, default`,
      async (h) => {
        const gas = { checkpoint: 0n, settle: 0n, claimDefault: 0n };
        const times: number[] = [];
        const verifyMs: number[] = [];
        for (let run = 0; run <= RUNS; run++) {
          const violated = run % 2 === 1;
          const rec = await Recorder.open({
            store,
            escrow,
            sessionId: keccak256(toHex(`${name}-${run}-${Date.now()}`)),
            user: userWallet.account.address,
            profile: PROFILE,
          });
          for (let i = 0; i < capacity; i++) {
            const to =
              violated && i === capacity - 1
                ? "eve@evil.example"
                : i % 2
                  ? "alice@a.example"
                  : "bob@a.example";
            rec.append({
              kind: "call",
              tool: i % 3 === 0 ? "read" : "send_email",
              args: i % 3 === 0 ? {} : { to },
              result: "ok",
            });
            if ((i + 1) % Math.max(1, capacity / 4) === 0 && i + 1 < capacity)
              gas.checkpoint = (await rec.checkpoint()).gasUsed;
          }
          await rec.close();
          const { claimId } = await escrow
            .as(userWallet)
            .fileClaim(rec.sessionId, promiseId, parseEther("0.01"));
          if (run === RUNS) {
            await chain.testClient.increaseTime({ seconds: 3 * 24 * 3600 + 1 });
            await chain.testClient.mine({ blocks: 1 });
            gas.claimDefault = (await escrow.as(userWallet).claimDefault(claimId)).gasUsed;
            break;
          }
          h.note(`run ${run + 1}/${RUNS}`);
          const { artifacts, input, verdict } = await prepareClaim(store, escrow, claimId);
          if (artifacts.name !== name)
            throw new Error(`expected ${name}, the prover chose ${artifacts.name}`);
          const proof = await prove(artifacts, input);
          times.push(proof.proveSeconds);
          const t = performance.now();
          if (!(await verifyLocally(artifacts, proof))) throw new Error("proof does not verify");
          verifyMs.push(performance.now() - t);
          gas.settle = (await escrow.settle(claimId, proof.words, verdict.violated)).gasUsed;
        }
        return { gas, times, verifyMs };
      },
    );
    results.push({
      predicate: "AAP-4",
      circuit: name,
      capacity,
      checkpoints: Number(entry.params.checkpoints),
      constraints: entry.constraints,
      constraintsPerRecord: perRecord,
      constraintsPerCheckpoint: perCheckpoint,
      proveSeconds: stats(measured.times),
      verifyMs: stats(measured.verifyMs),
      gas: Object.fromEntries(Object.entries(measured.gas).map(([k, v]) => [k, Number(v)])),
    });
  }

  const circuits = Object.entries(manifest.circuits)
    .map(([name, c]) => ({
      circuit: name,
      predicate: c.predicate,
      capacity: 2 ** Number(c.params.depth),
      checkpoints: Number(c.params.checkpoints),
      constraints: c.constraints,
      constraintsPerRecordAllIn: Math.round(c.constraints / 2 ** Number(c.params.depth)),
    }))
    .sort((a, b) => a.predicate.localeCompare(b.predicate) || a.capacity - b.capacity);

  const out = {
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    command: "npm run bench",
    measuredAt: new Date().toISOString(),
    variants: Object.fromEntries(Object.entries(variants).map(([k, v]) => [`depth,checkpoints=${k}`, v])),
    circuits,
    results,
  };
  mkdirSync(path.join(ROOT, "docs", "bench"), { recursive: true });
  writeFileSync(path.join(ROOT, "docs", "bench", "results.json"), JSON.stringify(out, null, 2) + "\n");
  console.log(
    "\n| circuit | records | constraints | per record | per checkpoint | prove s (min/med/max) | settle gas | checkpoint gas | claimDefault gas |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const p = r.proveSeconds;
    console.log(
      `| ${r.circuit} | ${r.capacity} | ${r.constraints} | ${r.constraintsPerRecord} | ${r.constraintsPerCheckpoint} | ${p.min.toFixed(2)} / ${p.median.toFixed(2)} / ${p.max.toFixed(2)} | ${r.gas.settle} | ${r.gas.checkpoint} | ${r.gas.claimDefault} |`,
    );
  }
  console.log("\n| circuit | predicate | records | checkpoints | constraints | all-in per record |");
  console.log("|---|---|---|---|---|---|");
  for (const c of circuits) {
    console.log(
      `| ${c.circuit} | ${c.predicate} | ${c.capacity} | ${c.checkpoints} | ${c.constraints} | ${c.constraintsPerRecordAllIn} |`,
    );
  }
  store.close();
  await releaseProver();
}

main().catch(async (e) => {
  console.error(`bench failed: ${(e as Error)?.stack ?? e}`);
  await releaseProver();
  process.exit(1);
});
