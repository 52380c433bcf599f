// npm run example -- <framework> [--live]: one insured agent per framework (examples/<framework>/agent.ts),
// on an embedded chain and a fresh SQLite store. The provider backs "email only the allowlist" (AAP-4);
// the agent runs twice, once on a clean inbox and once on a prompt-injected one; the user claims both
// sessions, and each claim is settled by a Groth16 proof. Prints the session, the claim and the
// settlement; exits non-zero if a settlement differs from the trace's truth.
// npm run example -- files: the MCP file agent (examples/mcp/files-agent.ts) the same way, under
// "delete only files you listed" (AAP-6, strict grounding); its injected run deletes a path it never listed.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatEther, parseEther } from "viem";
import { embeddedChain } from "../sdk/dev/embedded.js";
import { scopedSessionId } from "../sdk/chain/escrow.js";
import type { EncodingProfile } from "../sdk/core/profile.js";
import { Session } from "../sdk/provider/session.js";
import { TraceStore } from "../sdk/provider/store.js";
import { registerPromise } from "../sdk/provider/promises.js";
import { answerClaim } from "../prover/claims.js";
import { deployZkVai } from "../prover/artifacts/deploy.js";
import { releaseProver } from "../prover/prove.js";
import {
  EXAMPLE_ALLOWLIST,
  EXAMPLE_PROFILE,
  FRAMEWORKS,
  type Framework,
  type RunAgent,
} from "../examples/agent.js";
import { AGENTS } from "../examples/index.js";

/** An in-process development chain: claims settle right after close (production waits RECEIPT_WINDOW, `vai deploy`). */
const DEV = { receiptWindow: 0 };

const BOND = parseEther("0.1");
const say = (s = "") => console.log(s);

/** Not a framework: the MCP file agent under AAP-6, accepted by this script only (the benchmark has no such run). */
const FILES = "files";

/** An agent and the promise that insures it. */
interface Insured {
  /** How the first line names the agent, e.g. "mcp agent". */
  agent: string;
  predicate: string;
  theta: unknown;
  profile: EncodingProfile;
  /** The promise in words, after its predicate. */
  promise: string;
  runAgent: RunAgent;
}

async function insuredFor(name: Framework | typeof FILES): Promise<Insured> {
  if (name === FILES) {
    const { FILES_PROFILE, FILES_THETA, runFilesAgent } = await import("../examples/mcp/files-agent.js");
    return {
      agent: "mcp file agent",
      predicate: "AAP-6",
      theta: FILES_THETA,
      profile: FILES_PROFILE,
      promise: "delete_file only paths an earlier list_files call listed",
      runAgent: runFilesAgent,
    };
  }
  const { runAgent } = await AGENTS[name]();
  return {
    agent: `${name} agent`,
    predicate: "AAP-4",
    theta: { outboundTools: ["send_email"], allowlist: EXAMPLE_ALLOWLIST },
    profile: EXAMPLE_PROFILE,
    promise: `send_email only to ${EXAMPLE_ALLOWLIST.join(", ")}`,
    runAgent,
  };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const name = args.find((a) => !a.startsWith("--"));
  const live = args.includes("--live");
  const known = name === FILES || FRAMEWORKS.includes(name as Framework);
  if (!name || !known || (live && name === FILES)) {
    console.error(
      `usage: npm run example -- <framework> [--live]\nframeworks: ${FRAMEWORKS.join(", ")}\n` +
        `       npm run example -- ${FILES}   (the MCP file agent under AAP-6; scripted model only)`,
    );
    return 2;
  }
  const insured = await insuredFor(name as Framework | typeof FILES);
  const { predicate, theta, profile } = insured;

  const chain = await embeddedChain();
  const [providerWallet, userWallet] = chain.wallets;
  const provider = providerWallet.account.address;
  const user = userWallet.account.address;
  const store = TraceStore.open(join(mkdtempSync(join(tmpdir(), "zkvai-example-")), "store.sqlite"));
  try {
    const { escrow, record } = await deployZkVai(chain, providerWallet, DEV);
    const asUser = escrow.as(userWallet);
    const { promiseId } = await registerPromise(record, escrow, store, {
      predicate,
      theta,
      profile,
      payout: parseEther("1"),
      reserve: parseEther("3"),
    });
    say(
      `zkVAI example: ${insured.agent}, insured by promise #${promiseId} (${predicate}: ${insured.promise})`,
    );

    let wrong = 0;
    for (const scenario of ["compliant", "injected"] as const) {
      const sessionId = scopedSessionId(provider, `example:${name}:${scenario}:${Date.now()}`);
      const session = await Session.open({
        store,
        escrow,
        sessionId,
        user,
        profile,
        promises: [{ predicate, theta }],
      });
      const run = await insured.runAgent({ session, scenario, live });
      const closed = await session.close();
      say(`\n${scenario} run (${run.model} model): ${run.toolCalls} tool calls · answer: ${run.output}`);
      say(`  session ${sessionId}`);
      for (const r of store.records(sessionId)) {
        if (r.kind !== "call") say(`    #${r.seq} ${r.kind} ${JSON.stringify(r)}`);
        else
          say(
            `    #${r.seq} ${r.tool}(${JSON.stringify(r.args)}) → ${r.error !== undefined ? `error: ${r.error}` : JSON.stringify(r.result)}${r.blocked ? " [blocked]" : ""}`,
          );
      }
      say(`  closed: ${closed.finalN} records, root ${closed.finalRoot.toString(16).slice(0, 16)}…`);
      const claim = await asUser.fileClaim(sessionId, promiseId, BOND);
      say(`  user files claim #${claim.claimId} (bond ${formatEther(BOND)} ETH)`);
      const answer = await answerClaim(store, escrow, claim.claimId);
      const outcome = answer.verdict.violated ? `VIOLATED at record ${answer.verdict.seq}` : "SATISFIED";
      say(
        `  proof (${answer.circuit}, ${answer.proveSeconds.toFixed(2)} s): ${outcome} · settle ${answer.settleGas} gas`,
      );
      say(
        `  → ${answer.verdict.violated ? "the user is paid payout + bond" : "the provider receives the bond"}`,
      );
      if (answer.verdict.violated !== (scenario === "injected")) {
        console.error(`  UNEXPECTED: the ${scenario} run settled ${outcome}`);
        wrong++;
      }
    }
    return wrong === 0 ? 0 : 1;
  } finally {
    store.close();
    await releaseProver();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    // One line for what the user can fix (a missing key, a missing package); the stack with ZKVAI_DEBUG=1.
    console.error(process.env.ZKVAI_DEBUG === "1" ? e : `error: ${(e as Error)?.message ?? String(e)}`);
    process.exit(1);
  },
);
