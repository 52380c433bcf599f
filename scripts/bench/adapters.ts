// npm run bench:adapters: what each harness adapter adds per tool call. For every framework, the same
// scripted agent run (examples/<framework>/agent.ts, with --calls extra read_inbox calls) runs bare and
// insured, in turn (bare, insured, bare, insured, …), so the pair-by-pair ratio holds while the machine's
// speed drifts. Insured means through the adapter into a Session with a SQLite store and the default
// checkpoint policy, on a `hardhat node` process: the chain's work (mining checkpoints) runs beside the
// agent, as a remote chain's would, not on the agent's event loop as the in-process chain's does. Reports, per framework, the median per-call time of each, the median
// of the per-pair differences (the p50 added per call) and of the ratios. Writes docs/bench/adapters.json
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
import { TraceStore } from "../../sdk/provider/store.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { deployZkVai } from "../../prover/artifacts/deploy.js";
import { ROOT } from "../../sdk/manifest/packages.js";
import { EXAMPLE_ALLOWLIST, EXAMPLE_PROFILE, FRAMEWORKS, type Framework } from "../../examples/agent.js";
import { AGENTS } from "../../examples/index.js";
import { benchMachine } from "./machine.js";

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
   * The same difference with the leaves still unhashed at the run's end hashed too (Session hashes leaves in
   * idle event-loop turns, so a busy run defers them to the next checkpoint or close): the agent thread's CPU.
   */
  addedWithHashingMsPerCallP50?: number;
}

/** The same pairing for a plain loop of tool calls: run directly, then through Session.call. */
async function sessionCallCost(
  open: () => Promise<Session>,
  calls: number,
  pairs: number,
): Promise<AdapterOverhead> {
  const tool = async () => "1 message";
  const loop = async (session?: Session) => {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) {
      if (session) await session.call("read_inbox", {}, tool, { actionId: `c${i}` });
      else await tool();
    }
    return (performance.now() - t0) / calls;
  };
  const bare: number[] = [];
  const insured: number[] = [];
  const hashed: number[] = [];
  for (let i = 0; i <= pairs; i++) {
    const session = await open();
    const b = await loop();
    const s = await loop(session);
    const t1 = performance.now();
    session.root();
    const h = s + (performance.now() - t1) / calls;
    await session.close();
    if (i === 0) continue; // the warm-up pair
    bare.push(b);
    insured.push(s);
    hashed.push(h);
  }
  return overheadRow("Session.call (no framework)", calls, { bare, insured, hashed });
}

/** The row for paired runs (ms per call, pair i of each array run one after the other). */
function overheadRow(
  framework: AdapterOverhead["framework"],
  calls: number,
  { bare, insured, hashed }: { bare: number[]; insured: number[]; hashed: number[] },
): AdapterOverhead {
  return {
    framework,
    calls,
    pairs: bare.length,
    bareMsPerCall: median(bare),
    insuredMsPerCall: median(insured),
    addedMsPerCallP50: median(insured.map((x, i) => x - bare[i])),
    ratioP50: median(insured.map((x, i) => x / bare[i])),
    addedWithHashingMsPerCallP50: median(hashed.map((x, i) => x - bare[i])),
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
      ...(values["no-checkpoints"] ? { policy: { everyRecords: Infinity, everyMs: Infinity } } : {}),
    });

  // Session.call's own cost, the floor of every adapter: a loop of direct tool calls, bare and recorded.
  const sessionCall = await sessionCallCost(open, calls, pairs);
  console.error(`Session.call: +${sessionCall.addedMsPerCallP50.toFixed(3)} ms/call`);

  const rows: AdapterOverhead[] = [];
  for (const framework of frameworks) {
    const { runAgent } = await AGENTS[framework]();
    const timed = async (session?: Session) => {
      const t0 = performance.now();
      const result = await runAgent({ session, scenario: "compliant", extraCalls: calls });
      const ms = performance.now() - t0;
      if (result.toolCalls < calls)
        throw new Error(`${framework}: ${result.toolCalls} tool calls, expected ≥ ${calls}`);
      // The leaves not hashed yet in idle turns are hashed now, as the next checkpoint or close would.
      const t1 = performance.now();
      session?.root();
      const hashing = performance.now() - t1;
      return { perCall: ms / result.toolCalls, withHashing: (ms + hashing) / result.toolCalls };
    };
    // One warm-up of each: module loading and JIT are not the adapter's cost.
    await timed();
    const warm = await open();
    await timed(warm);
    await warm.close();
    const bare: number[] = [];
    const insured: number[] = [];
    const hashed: number[] = [];
    for (let i = 0; i < pairs; i++) {
      bare.push((await timed()).perCall);
      const session = await open();
      const run = await timed(session);
      insured.push(run.perCall);
      hashed.push(run.withHashing);
      await session.close();
    }
    const row = overheadRow(framework, calls, { bare, insured, hashed });
    rows.push(row);
    console.error(`${framework}: +${row.addedMsPerCallP50.toFixed(3)} ms/call (×${row.ratioP50.toFixed(2)})`);
  }
  store.close();
  await node.stop();

  mkdirSync(path.dirname(values.out!), { recursive: true });
  writeFileSync(values.out!, `${JSON.stringify({ machine: benchMachine(), sessionCall, rows }, null, 2)}\n`);
  console.log(
    "| harness | calls per run | bare ms/call | insured ms/call | added ms/call (p50) | ratio (p50) | added incl. leaf hashing (p50) |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const r of [sessionCall, ...rows])
    console.log(
      `| ${r.framework} | ${r.framework.startsWith("Session") ? r.calls : r.calls + 1} | ${r.bareMsPerCall.toFixed(3)} | ${r.insuredMsPerCall.toFixed(3)} | ${r.addedMsPerCallP50.toFixed(3)} | ${r.ratioP50.toFixed(2)} | ${r.addedWithHashingMsPerCallP50?.toFixed(3) ?? "n/a"} |`,
    );
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
