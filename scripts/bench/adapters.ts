// npm run bench:adapters: what each harness adapter adds per tool call. For every framework, the same
// scripted agent run (examples/<framework>/agent.ts, with --calls extra read_inbox calls) runs bare and
// insured, in turn (bare, insured, bare, insured, …), so the pair-by-pair ratio holds while the machine's
// speed drifts. Insured means through the adapter into a Session with a SQLite store and the default
// checkpoint policy, on a `hardhat node` process: the chain's work (mining checkpoints) runs beside the
// agent, as a remote chain's would, not on the agent's event loop as the in-process chain's does.
// Reports, per framework, the median per-call time of each and the median of the per-pair differences (the
// p50 added per call); the same with every leaf hashed (the run, then session.root(), which waits for the
// leaf hasher's worker to catch up); each Session.call's own time, p50 and p99 over every call; and the
// process's CPU added per call (every thread), with the leaf hasher worker's share of it. The leaf hashing
// mode is the process's: VAI_LEAF_HASHING=inline measures the old path. Writes docs/bench/adapters.json
// and prints a Markdown table for docs/BENCHMARKS.md.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseEther } from "viem";
import { devRpcChain } from "../../sdk/dev/embedded.js";
import { startHardhatNode } from "../../sdk/dev/hardhat-node.js";
import { scopedSessionId } from "../../sdk/chain/escrow.js";
import { Session } from "../../sdk/provider/session.js";
import { processLeafHasher } from "../../sdk/provider/leaf-hasher.js";
import { TraceStore } from "../../sdk/provider/store.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { ROOT } from "../../sdk/manifest/packages.js";
import { EXAMPLE_ALLOWLIST, EXAMPLE_PROFILE, FRAMEWORKS, type Framework } from "../../examples/agent.js";
import { AGENTS } from "../../examples/index.js";
import { benchMachine } from "./machine.js";
import { percentile } from "./analysis.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export interface AdapterOverhead {
  framework: Framework | "Session.call (no framework)";
  calls: number;
  pairs: number;
  bareMsPerCall: number;
  insuredMsPerCall: number;
  /** Median over pairs of (insured − bare) / calls. */
  addedMsPerCallP50: number;
  /** Median over pairs of insured / bare. */
  ratioP50: number;
  /**
   * The same difference with every leaf of the run hashed too: the run, then `session.root()`, which waits for
   * the leaf hasher's worker to finish the run's records (or hashes them itself with VAI_LEAF_HASHING=inline).
   */
  addedWithHashingMsPerCallP50: number;
  /** Session.call's own time in each insured call (its wall time less the tool's), over every call of every pair. */
  sessionCallMs: { p50: number; p99: number };
  /** Median over pairs of the process's CPU (every thread: the agent's and the leaf hasher's) added per call. */
  processCpuAddedMsPerCallP50: number;
  /** Of which the leaf hasher's worker thread, per call (median over pairs); 0 with VAI_LEAF_HASHING=inline. */
  workerCpuMsPerCallP50: number;
}

/** What one run cost: wall per call, wall with every leaf hashed, CPU of the process and of the worker. */
interface RunCost {
  perCall: number;
  withHashing: number;
  cpuPerCall: number;
  workerPerCall: number;
}

/**
 * Times a run: `run` returns how many tool calls it made; with a session, every Session.call's own time
 * (less its tool's) goes to `callMs`, and the run ends with session.root(), every leaf hashed.
 */
async function measure(run: () => Promise<number>, session?: Session, callMs?: number[]): Promise<RunCost> {
  if (session && callMs) timeSessionCalls(session, callMs);
  const worker = processLeafHasher()?.delivered;
  const workerMs0 = worker?.workerMs ?? 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const calls = await run();
  const ms = performance.now() - t0;
  session?.root();
  const withHashing = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    perCall: ms / calls,
    withHashing: withHashing / calls,
    cpuPerCall: (cpu.user + cpu.system) / 1000 / calls,
    workerPerCall: ((worker?.workerMs ?? 0) - workerMs0) / calls,
  };
}

function timeSessionCalls(session: Session, into: number[]): void {
  const call = session.call.bind(session);
  session.call = async (tool, args, run, opts) => {
    let toolMs = 0;
    const t0 = performance.now();
    try {
      return await call(
        tool,
        args,
        async () => {
          const s = performance.now();
          try {
            return await run();
          } finally {
            toolMs += performance.now() - s;
          }
        },
        opts,
      );
    } finally {
      into.push(performance.now() - t0 - toolMs);
    }
  };
}

/** The same pairing for a plain loop of tool calls: run directly, then through Session.call. */
async function sessionCallCost(
  open: () => Promise<Session>,
  calls: number,
  pairs: number,
): Promise<AdapterOverhead> {
  const tool = async () => "1 message";
  const loop = (session?: Session) => async () => {
    for (let i = 0; i < calls; i++) {
      if (session) await session.call("read_inbox", {}, tool, { actionId: `c${i}` });
      else await tool();
    }
    return calls;
  };
  const bare: RunCost[] = [];
  const insured: RunCost[] = [];
  const callMs: number[] = [];
  for (let i = 0; i <= pairs; i++) {
    const session = await open();
    const b = await measure(loop());
    const s = await measure(loop(session), session, i === 0 ? [] : callMs);
    await session.close();
    if (i === 0) continue; // the warm-up pair
    bare.push(b);
    insured.push(s);
  }
  return overheadRow("Session.call (no framework)", calls, bare, insured, callMs);
}

/** The row for paired runs (pair i of each array run one after the other). */
function overheadRow(
  framework: AdapterOverhead["framework"],
  calls: number,
  bare: RunCost[],
  insured: RunCost[],
  callMs: number[],
): AdapterOverhead {
  const paired = (f: (b: RunCost, s: RunCost) => number) => median(insured.map((s, i) => f(bare[i]!, s)));
  return {
    framework,
    calls,
    pairs: bare.length,
    bareMsPerCall: median(bare.map((b) => b.perCall)),
    insuredMsPerCall: median(insured.map((s) => s.perCall)),
    addedMsPerCallP50: paired((b, s) => s.perCall - b.perCall),
    ratioP50: paired((b, s) => s.perCall / b.perCall),
    addedWithHashingMsPerCallP50: paired((b, s) => s.withHashing - b.perCall),
    sessionCallMs: { p50: percentile(callMs, 0.5), p99: percentile(callMs, 0.99) },
    processCpuAddedMsPerCallP50: paired((b, s) => s.cpuPerCall - b.cpuPerCall),
    workerCpuMsPerCallP50: median(insured.map((s) => s.workerPerCall)),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      calls: { type: "string", default: "200" },
      pairs: { type: "string", default: "7" },
      frameworks: { type: "string" },
      // Without checkpoints: what the adapter and Session.call cost with no chain work beside them.
      "no-checkpoints": { type: "boolean", default: false },
      out: { type: "string", default: path.join(ROOT, "docs/bench/adapters.json") },
    },
  });
  const calls = Number(values.calls);
  const pairs = Number(values.pairs);
  const frameworks = (values.frameworks?.split(",") ?? FRAMEWORKS) as Framework[];
  for (const f of frameworks)
    if (!FRAMEWORKS.includes(f)) throw new Error(`unknown framework ${f}; known: ${FRAMEWORKS.join(", ")}`);

  const node = await startHardhatNode();
  const chain = await devRpcChain(node.url);
  const [providerWallet, userWallet] = chain.wallets;
  const store = TraceStore.open(
    path.join(mkdtempSync(path.join(tmpdir(), "zkvai-adapter-bench-")), "store.sqlite"),
  );
  const { escrow, record } = await deployZkVai(chain, providerWallet, DEV);
  const theta = { outboundTools: ["send_email"], allowlist: EXAMPLE_ALLOWLIST };
  await registerPromise(record, escrow, store, {
    predicate: "AAP-4",
    theta,
    profile: EXAMPLE_PROFILE,
    payout: parseEther("1"),
    reserve: parseEther("1"),
  });
  let n = 0;
  const open = () =>
    Session.open({
      store,
      escrow,
      sessionId: scopedSessionId(providerWallet.account.address, `bench:${n++}:${Date.now()}`),
      user: userWallet.account.address,
      profile: EXAMPLE_PROFILE,
      promises: [{ predicate: "AAP-4", theta }],
      // The recording cost does not depend on which circuits are built (a test build proves 8 records).
      beyondCapacity: "warn",
      ...(values["no-checkpoints"] ? { policy: { everyRecords: Infinity, everyMs: Infinity } } : {}),
    });

  // The leaf hasher's worker starts with the process's first session (loading its modules, building its
  // WebAssembly Poseidon); like module loading and JIT, that is not a per-call cost: wait it out, report it.
  await (await open()).close();
  await processLeafHasher()?.started;
  console.error(`leaf hasher: started in ${processLeafHasher()?.startupMs?.toFixed(0) ?? "n/a (inline)"} ms`);

  // Session.call's own cost, the floor of every adapter: a loop of direct tool calls, bare and recorded.
  const sessionCall = await sessionCallCost(open, calls, pairs);
  console.error(`Session.call: +${sessionCall.addedMsPerCallP50.toFixed(3)} ms/call`);

  const rows: AdapterOverhead[] = [];
  for (const framework of frameworks) {
    const { runAgent } = await AGENTS[framework]();
    const timed = (session?: Session, callMs?: number[]) =>
      measure(
        async () => {
          const result = await runAgent({ session, scenario: "compliant", extraCalls: calls });
          if (result.toolCalls < calls)
            throw new Error(`${framework}: ${result.toolCalls} tool calls, expected ≥ ${calls}`);
          return result.toolCalls;
        },
        session,
        callMs,
      );
    // One warm-up of each: module loading and JIT are not the adapter's cost.
    await timed();
    const warm = await open();
    await timed(warm, []);
    await warm.close();
    const bare: RunCost[] = [];
    const insured: RunCost[] = [];
    const callMs: number[] = [];
    for (let i = 0; i < pairs; i++) {
      bare.push(await timed());
      const session = await open();
      insured.push(await timed(session, callMs));
      await session.close();
    }
    const row = overheadRow(framework, calls, bare, insured, callMs);
    rows.push(row);
    console.error(`${framework}: +${row.addedMsPerCallP50.toFixed(3)} ms/call (×${row.ratioP50.toFixed(2)})`);
  }
  store.close();
  await node.stop();

  mkdirSync(path.dirname(values.out!), { recursive: true });
  const hasher = processLeafHasher();
  const leafHashing = {
    mode: hasher ? "worker" : "inline",
    webAssemblyPoseidon: hasher?.accelerated ?? false,
    workerStartupMs: hasher?.startupMs,
  };
  writeFileSync(
    values.out!,
    `${JSON.stringify({ machine: benchMachine(), leafHashing, sessionCall, rows }, null, 2)}\n`,
  );
  console.log(`leaf hashing: ${JSON.stringify(leafHashing)}`);
  console.log(
    "| harness | bare ms/call | insured ms/call | added ms/call (p50) | added incl. leaf hashing (p50) | Session.call p50 / p99 | process CPU added / of which worker (ms/call) |",
  );
  console.log("|---|---|---|---|---|---|---|");
  const ms = (x: number) => x.toFixed(2);
  for (const r of [sessionCall, ...rows])
    console.log(
      `| ${r.framework} | ${r.bareMsPerCall.toFixed(3)} | ${r.insuredMsPerCall.toFixed(3)} | **${ms(r.addedMsPerCallP50)}** | **${ms(r.addedWithHashingMsPerCallP50)}** | ${ms(r.sessionCallMs.p50)} / ${ms(r.sessionCallMs.p99)} | ${ms(r.processCpuAddedMsPerCallP50)} / ${ms(r.workerCpuMsPerCallP50)} |`,
    );
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
