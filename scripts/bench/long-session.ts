// npm run bench:long: protocol v2's acceptance run. On a real `hardhat node` process, one session of
// --records records (1,000 by default) under the default checkpoint policy (a checkpoint every 10 records
// or 30 s, no cap), then a claim on it, proven on the AAP-4 circuit the escrow picks (1,024 records) and
// settled. Two pacings:
//   chain   after each record the recorder waits until no checkpoint is in flight: the chain keeps up, so
//           every trigger lands where the policy put it (one per 10 records);
//   fast    records as fast as the agent loop goes: triggers that fire while a checkpoint is in flight
//           merge into the newest prefix (as in VAI), and the exposure window is measured instead.
// The exposure of a record is how many records later (and how many ms later) the first checkpoint covering
// it landed. Writes docs/bench/long-session.json (appending, as an array, to a file that holds results
// already) and prints the figures. Needs `npm run setup -- --only aap4_n1024` first (the 1,024-record
// circuit, about 20 minutes to compile and key).
// --segment-size N settles instead as the watcher does a session longer than any whole-claim circuit: the
// escrow deployed with AAP-4's segment circuit of N records (`npx tsx scripts/setup.ts --only aap4_seg1024`,
// plus a whole-claim circuit for the escrow, `--group demo`), the claim answered by segment proofs
// (scripts/bench/long-session-claim.ts). --violate last (the default) sends the last mail off the allowlist;
// --violate none keeps every mail on it. The verdict and who was paid are checked against it: a run that
// settles the other way, or a settlement transaction at or over 2^24 gas, exits non-zero (after writing).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseEther } from "viem";
import { devRpcChain } from "../../sdk/dev/embedded.js";
import { startHardhatNode } from "../../sdk/dev/hardhat-node.js";
import { scopedSessionId } from "../../sdk/chain/escrow.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import { Session } from "../../sdk/provider/session.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { answerClaim } from "../../prover/claims.js";
import { releaseProver } from "../../prover/prove.js";
import { ROOT } from "../../sdk/manifest/packages.js";
import { EXAMPLE_ALLOWLIST, EXAMPLE_PROFILE } from "../../examples/agent.js";
import { benchMachine } from "./machine.js";
import { percentile } from "./analysis.js";
import { appendResult, settleBySegments, TX_GAS_CAP } from "./long-session-claim.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "1000" },
    pace: { type: "string", default: "chain" },
    "no-prove": { type: "boolean", default: false },
    "segment-size": { type: "string" },
    violate: { type: "string", default: "last" },
    out: { type: "string", default: path.join(ROOT, "docs", "bench", "long-session.json") },
  },
});
const records = Number(values.records);
const pace = values.pace;
if (!Number.isInteger(records) || records < 1) throw new Error(`--records must be a positive integer`);
if (pace !== "chain" && pace !== "fast") throw new Error(`--pace must be chain or fast, not ${pace}`);
const violate = values.violate;
if (violate !== "none" && violate !== "last")
  throw new Error(`--violate must be none or last, not ${violate}`);
const segmentSize = values["segment-size"] === undefined ? undefined : Number(values["segment-size"]);
if (segmentSize !== undefined && !(Number.isInteger(segmentSize) && segmentSize > 0))
  throw new Error(`--segment-size must be a positive integer`);
// Mails go out at every 100th record, so a session under 100 records has none to violate with.
const expectViolated = violate === "last" && records >= 100;
// A path as the command line would give it: from the repository root when inside it.
const shortPath = (p: string) => {
  const rel = path.relative(ROOT, path.resolve(p));
  return rel.startsWith("..") ? path.resolve(p) : rel;
};
// What reproduces the run (the npm script also builds aap4_n1024 first, which a segment run does not need).
const command = [
  "npx tsx scripts/bench/long-session.ts",
  `--records ${records} --pace ${pace}`,
  ...(segmentSize === undefined ? [] : [`--segment-size ${segmentSize}`]),
  `--violate ${violate}`,
  ...(values["no-prove"] ? ["--no-prove"] : []),
  ...(process.argv.includes("--out") ? [`--out ${shortPath(values.out!)}`] : []),
].join(" ");
// Why the run did not settle as it should; reported (and the exit status set) once the result is written.
const failures: string[] = [];

const node = await startHardhatNode();
try {
  const chain = await devRpcChain(node.url);
  const [providerWallet, userWallet] = chain.wallets;
  const store = TraceStore.open(path.join(mkdtempSync(path.join(tmpdir(), "zkvai-long-")), "store.sqlite"));
  const { escrow, record } = await deployZkVai(chain, providerWallet, {
    rpcUrl: node.url,
    receiptWindow: 0,
    ...(segmentSize === undefined ? {} : { segmentSize }),
  });
  const theta = { outboundTools: ["send_email"], allowlist: EXAMPLE_ALLOWLIST };
  const { promiseId } = await registerPromise(record, escrow, store, {
    predicate: "AAP-4",
    theta,
    profile: EXAMPLE_PROFILE,
    payout: parseEther("1"),
    reserve: parseEther("1"),
  });
  // The session's log, each entry stamped with when it was written (a checkpoint's landing time).
  const log = memoryLogger();
  const stamps: number[] = [];
  const logger = {
    log: (...args: Parameters<typeof log.log>) => {
      stamps.push(performance.now());
      log.log(...args);
    },
  };
  const sessionId = scopedSessionId(providerWallet.account.address, `long:${records}:${pace}:${Date.now()}`);
  const session = await Session.open({
    store,
    escrow,
    sessionId,
    user: userWallet.account.address,
    profile: EXAMPLE_PROFILE,
    promises: [{ predicate: "AAP-4", theta }],
    log: logger,
  });
  const ackedAt: number[] = [];

  const t0 = performance.now();
  for (let i = 0; i < records; i++) {
    // Every 100th call mails someone; under --violate last, the last of them an address off the allowlist
    // (the violation claimed: at 10,000 records, in the last segment of 1,024).
    if (i % 100 === 99) {
      const to = violate === "last" && i + 100 >= records ? "eve@evil.example" : EXAMPLE_ALLOWLIST[0]!;
      await session.call("send_email", { to }, async () => "sent");
    } else await session.call("read_inbox", {}, async () => `${i} messages`);
    ackedAt.push(performance.now());
    if (pace === "chain") await session.flush();
  }
  const recordSeconds = (performance.now() - t0) / 1000;
  await session.flush();
  const closed = await session.close();

  const landed = log.entries.flatMap((e, k) =>
    e.event === "checkpoint.confirmed" && !e.fields.reconciled
      ? [{ n: Number(e.fields.n), gas: Number(e.fields.gasUsed), at: stamps[k]! }]
      : [],
  );
  const onChain = await escrow.checkpointsOf(sessionId);
  // Exposure: for record i (1-based count i+1), the first checkpoint with n >= i+1.
  // and how long after the record was acknowledged that checkpoint landed.
  const exposureRecords: number[] = [];
  const exposureMs: number[] = [];
  for (let i = 0; i < records; i++) {
    const first = landed.find((c) => c.n >= i + 1);
    exposureRecords.push(first ? first.n - (i + 1) : closed.finalN - (i + 1));
    if (first) exposureMs.push(first.at - ackedAt[i]!);
  }
  const gas = landed.map((c) => c.gas);
  const result: Record<string, unknown> = {
    command,
    machine: benchMachine(),
    measuredAt: new Date().toISOString(),
    records,
    pace,
    violate,
    ...(segmentSize === undefined ? {} : { segmentSize }),
    recordSeconds: +recordSeconds.toFixed(1),
    checkpoints: onChain.length,
    checkpointNs: onChain.map((c) => c.n),
    deferred: log.entries.filter((e) => e.event === "checkpoint.deferred").length,
    failedSends: log.entries.filter((e) => e.event === "checkpoint.failed").length,
    checkpointGas: { min: Math.min(...gas), median: percentile(gas, 0.5), max: Math.max(...gas) },
    exposureRecords: {
      p50: percentile(exposureRecords, 0.5),
      p99: percentile(exposureRecords, 0.99),
      max: Math.max(...exposureRecords),
    },
    exposureMs: {
      p50: +percentile(exposureMs, 0.5).toFixed(1),
      p99: +percentile(exposureMs, 0.99).toFixed(1),
      max: +Math.max(...exposureMs).toFixed(1),
    },
    recordsAnchoredOnlyByClose: exposureRecords.length - exposureMs.length,
    closeGas: Number(closed.gasUsed),
  };
  console.log(JSON.stringify(result, null, 2));

  if (!values["no-prove"]) {
    const { claimId } = await escrow.as(userWallet).fileClaim(sessionId, promiseId, parseEther("0.1"));
    let violated: boolean;
    let paidTo: string;
    if (segmentSize !== undefined) {
      const settled = await settleBySegments(store, escrow, claimId);
      Object.assign(result, settled.fields);
      ({ violated, paidTo } = settled);
      const { largest } = settled.fields.settlementGas;
      if (largest >= TX_GAS_CAP)
        failures.push(`a settlement transaction took ${largest} gas, not under 2^24`);
    } else {
      const t1 = performance.now();
      const answer = await answerClaim(store, escrow, claimId, {
        step: async (label, run) => {
          const s = performance.now();
          const out = await run();
          console.log(`  ${label}: ${((performance.now() - s) / 1000).toFixed(1)} s`);
          return out;
        },
      });
      Object.assign(result, {
        circuit: answer.circuit,
        verdict: answer.verdict.violated ? "violated" : "satisfied",
        proveSeconds: +answer.proveSeconds.toFixed(1),
        answerSeconds: +((performance.now() - t1) / 1000).toFixed(1),
        settleGas: Number(answer.settleGas),
        paidTo: answer.beneficiary,
      });
      violated = answer.verdict.violated;
      paidTo = answer.beneficiary;
      await releaseProver();
    }
    // The outcome the session was built for: a violation pays the user, a compliant session the provider.
    const expectedPayee = (expectViolated ? userWallet : providerWallet).account.address;
    const verdictOk = violated === expectViolated;
    const payeeOk = paidTo.toLowerCase() === expectedPayee.toLowerCase();
    if (!verdictOk)
      failures.push(
        `settled ${violated ? "violated" : "satisfied"}, expected ${expectViolated ? "violated" : "satisfied"}`,
      );
    if (!payeeOk)
      failures.push(
        `paid ${paidTo}, expected ${expectViolated ? "the user" : "the provider"} ${expectedPayee}`,
      );
    result.expectedVerdict = expectViolated ? "violated" : "satisfied";
    result.verdictAsExpected = verdictOk && payeeOk;
  }
  appendResult(values.out!, result);
  console.log(JSON.stringify(result, null, 2));
  store.close();
} finally {
  await node.stop();
}
if (failures.length > 0) {
  console.error(`FAILED: ${failures.join("; ")}`);
  process.exit(1);
}
// The prover's pool and the node's client may hold handles open: the run is over once its result is written.
process.exit(0);
