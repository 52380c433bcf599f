// The page (sdk/page/index.html): a user's check of a claim's settlement or of a promise, in the browser, with
// the library's user side (sdk/user) and nothing else: the same functions `vai verify` and `vai promise check`
// run, over a JSON-RPC URL the user gives and the manifest the page was built with (or one from a URL). The
// Node-only leaves of those functions are swapped for their `.browser.ts` twins by scripts/build-page.ts.
import { formatEther, getAddress, isAddress, type Address } from "viem";
import { ClaimStatus, EscrowClient } from "../chain/escrow.js";
import { rpcChain, type ChainHandle } from "../chain/network.js";
import { describeError } from "../chain/retry.js";
import { verdictLabel } from "../core/claim.js";
import { parseManifest, type Manifest } from "../manifest/manifest-core.js";
import { checkPromise } from "../user/check-promise.js";
import { claimResolution } from "../user/claim-status.js";
import { useCompiledCode, type CompiledCode } from "../user/expected-code.browser.js";
import { sha256Hex } from "../user/solc-target.js";
import { checkReceipt } from "../user/receipt-check.js";
import { checkPromiseDocument } from "../user/promise-document.js";
import { validLine, verdictOf } from "../user/verdict.js";
import { verifySettlement } from "../user/verify-settlement.js";

type VerdictAttr =
  | "idle"
  | "working"
  | "valid"
  | "invalid"
  | "unchecked"
  | "pending"
  | "not-settled"
  | "defaulted"
  | "no-such-claim"
  | "error";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const field = (id: string) => $<HTMLInputElement>(id).value.trim();

function setVerdict(kind: VerdictAttr, line: string): void {
  const v = $("verdict");
  v.dataset.verdict = kind;
  v.textContent = line;
}

const progressLines: string[] = [];
function progress(line: string): void {
  progressLines.push(line);
  $("progress").textContent = line;
}

function el(tag: string, attrs: Record<string, string> = {}, text?: string): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function section(title: string): HTMLElement {
  const s = el("section");
  s.append(el("h2", {}, title));
  $("details").append(s);
  return s;
}

function table(title: string, rows: [string, string][]): void {
  const t = el("table");
  for (const [k, v] of rows) {
    const tr = el("tr");
    tr.append(el("th", {}, k), el("td", {}, v));
    t.append(tr);
  }
  section(title).append(t);
}

function checklist(title: string, items: string[], failed?: string): void {
  const ul = el("ul", { class: "checks" });
  for (const c of items) ul.append(el("li", { class: "ok" }, c));
  if (failed) ul.append(el("li", { class: "bad" }, failed));
  section(title).append(ul);
}

const time = (s: bigint) => `${new Date(Number(s) * 1000).toISOString()} (unix ${s})`;
const eth = (wei: bigint) => `${formatEther(wei)} ETH`;

/** An error that is not a verdict, in plain words: what the user should look at. */
class PlainError extends Error {}

interface Loaded {
  manifest: Manifest;
  source: string;
  sha256: string;
}

async function fetchText(url: string, what: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { cache: "no-store" });
  } catch (e) {
    throw new PlainError(`cannot load the ${what} from ${url}: ${(e as Error).message}`);
  }
  if (!res.ok) throw new PlainError(`cannot load the ${what} from ${url}: HTTP ${res.status}`);
  return res.text();
}

/** The manifest (bundled, or from the URL given), its sha256, and the code the page build compiled. */
async function loadManifest(url: string): Promise<Loaded> {
  const source = url || "manifest.json (bundled with this page)";
  const text = await fetchText(url || "./manifest.json", "manifest");
  let manifest: Manifest;
  try {
    manifest = parseManifest(text, url || "manifest.json");
  } catch (e) {
    throw new PlainError((e as Error).message);
  }
  useCompiledCode(JSON.parse(await fetchText("./compiled-code.json", "compiled code")) as CompiledCode);
  return { manifest, source, sha256: sha256Hex(text) };
}

/** The chain behind the RPC URL, and an escrow contract there: each failure in words a user can act on. */
async function openEscrow(
  rpc: string,
  escrowText: string,
  chainIdText: string,
): Promise<{ chain: ChainHandle; escrow: Address }> {
  if (!rpc) throw new PlainError("give the JSON-RPC URL of the chain the escrow lives on");
  if (!/^https?:\/\//.test(rpc)) throw new PlainError(`${rpc} is not an http(s) JSON-RPC URL`);
  if (!isAddress(escrowText)) throw new PlainError(`${escrowText || "(empty)"} is not an escrow address`);
  const escrow = getAddress(escrowText);
  progress(`connecting to ${rpc}…`);
  let chain: ChainHandle;
  try {
    chain = await rpcChain(rpc);
  } catch (e) {
    throw new PlainError(
      `the JSON-RPC endpoint ${rpc} does not answer (is the URL right, the node up, and does it allow this page's origin?): ${shortError(e)}`,
    );
  }
  if (chainIdText && chainIdText !== String(chain.chainId))
    throw new PlainError(
      `the JSON-RPC endpoint ${rpc} serves chain ${chain.chainId}, not chain ${chainIdText}: a wrong RPC URL for this escrow`,
    );
  const code = await chain.publicClient.getCode({ address: escrow });
  if (!code || code === "0x")
    throw new PlainError(
      `there is no contract at ${escrow} on chain ${chain.chainId}: a wrong escrow address, or an RPC URL of another chain`,
    );
  return { chain, escrow };
}

function shortError(e: unknown): string {
  return describeError(e).split("\n")[0]!.slice(0, 300);
}

async function checkClaim(
  l: Loaded,
  chain: ChainHandle,
  escrowAddress: Address,
  claimId: bigint,
  fromBlock: bigint,
) {
  const escrow = await EscrowClient.connect(chain, escrowAddress, undefined, { fromBlock });
  progress(`reading claim ${claimId}…`);
  const started = performance.now();
  let verdict: { kind: VerdictAttr; line: string };
  let checks: string[] = [];
  let failed: string | undefined;
  const steps: { step: string; t: number }[] = [];
  try {
    const report = await verifySettlement({
      chain,
      escrow: escrowAddress,
      fromBlock,
      claimId,
      manifest: l.manifest,
      manifestPath: l.source,
      progress: (step) => {
        steps.push({ step, t: performance.now() });
        progress(`${step}…`);
      },
    });
    const end = performance.now();
    // Each proof's time: from its step to the next one (or the end).
    const proofMs = steps
      .map((s, i) => ({ ...s, ms: (steps[i + 1]?.t ?? end) - s.t }))
      .filter((s) => /^verifying .*Groth16 proof/.test(s.step))
      .map((s) => s.ms);
    $("details").dataset.proofMs = proofMs.map((ms) => ms.toFixed(1)).join(",");
    checks = report.checks;
    verdict = { kind: "valid", line: validLine(report) };
    table("Settlement", [
      ["outcome", verdictLabel(report.violated)],
      [
        "paid",
        `${eth(report.amount)} to ${report.beneficiary} (${report.violated ? "the user" : "the provider"})`,
      ],
      ["settle transaction", `${report.txHash} (block ${report.blockNumber})`],
      ["circuit / verifier", `${report.circuit} at ${report.verifier}`],
      ["public inputs (rebuilt from chain state)", report.publicInputs.join(", ")],
      [
        "verified in this browser",
        `${proofMs.length} Groth16 proof(s) in ${proofMs.map((ms) => `${Math.round(ms)} ms`).join(", ")}; every check, chain reads included, in ${Math.round(end - started)} ms`,
      ],
    ]);
  } catch (e) {
    const v = verdictOf(e);
    if (!v) throw e;
    verdict = {
      // Open: pending until the proof window ends; overdue: no proof came, anyone may now call claimDefault.
      kind: v.kind === "not-settled" ? (v.state === "open" ? "pending" : "not-settled") : v.kind,
      line: v.kind === "not-settled" && v.state === "open" ? `pending: ${v.line}` : v.line,
    };
    if (v.kind === "invalid" || v.kind === "unchecked") failed = v.reason;
  }
  if (verdict.kind !== "no-such-claim") await claimDetails(escrow, claimId);
  if (checks.length || failed) checklist("What was checked", checks, failed);
  return verdict;
}

/** The claim's state and deadlines, and its session's commitments over time (checkpoints, receipts, close). */
async function claimDetails(escrow: EscrowClient, claimId: bigint): Promise<void> {
  const claim = await escrow.claim(claimId);
  const { proofWindow } = await escrow.constants();
  const now = (await escrow.chain.publicClient.getBlock()).timestamp;
  const resolution = await claimResolution(escrow, claimId, claim.status);
  const status = ClaimStatus[claim.status] ?? String(claim.status);
  table(`Claim ${claimId}`, [
    ["state", status],
    ["session", claim.sessionId],
    ["promise", String(claim.promiseId)],
    ["claimant", claim.claimant],
    ["bond", eth(claim.bond)],
    ["filed", time(claim.filedAt)],
    [
      "proof window ends",
      `${time(claim.filedAt + proofWindow)}${claim.filedAt + proofWindow < now ? " (passed)" : ""}`,
    ],
    ["chain time now", time(now)],
    ...(resolution
      ? ([["resolution", `${resolution.summary} (tx ${resolution.txHash})`]] as [string, string][])
      : []),
  ]);
  progress(`scanning the session's logs…`);
  const [entries, close] = await Promise.all([
    escrow.checkpointsOf(claim.sessionId),
    escrow.closeOf(claim.sessionId),
  ]);
  const rows: [string, string][] = entries.map((e, i) => [
    `${i + 1}. ${e.kind}${e.kind === "receipt" && e.spare ? " (spare)" : ""}`,
    `first ${e.n} records, root 0x${e.root.toString(16)}`,
  ]);
  rows.push(
    close
      ? [
          "close",
          `${close.args.finalN} records, final root 0x${close.args.finalRoot.toString(16)} (block ${close.blockNumber})`,
        ]
      : ["close", "the session is not closed"],
  );
  table(`Session ${claim.sessionId}: commitments over time`, rows);
}

async function checkPromiseView(
  l: Loaded,
  chain: ChainHandle,
  escrowAddress: Address,
  promiseId: bigint,
  doc: string,
) {
  progress(`checking promise ${promiseId}: the escrow, its Poseidon and every verifier…`);
  const escrow = await EscrowClient.connect(chain, escrowAddress);
  try {
    const report = await checkPromise({
      chain,
      escrow: escrowAddress,
      promiseId,
      manifest: l.manifest,
      manifestPath: l.source,
    });
    const p = await escrow.promise(promiseId);
    const rows: [string, string][] = [
      ["predicate", report.predicate],
      ["payout", eth(report.payout)],
      ["reserve", eth(p.reserve)],
      ["available coverage", `${eth(report.available)} (not earmarked for covered sessions)`],
      ["retirement", p.retiredAt === 0n ? "not retired" : `retired at ${time(p.retiredAt)}`],
      ["params hash (θ)", `0x${p.paramsHash.toString(16)}`],
      ...report.verifiers.map(
        (v) =>
          [
            `${v.kind} verifier (${v.kind === "segment" ? `${v.capacity} records a segment` : `≤ ${v.capacity} records`})`,
            `${v.address}: the manifest's ${v.circuit} ✓`,
          ] as [string, string],
      ),
    ];
    let thetaLine = "";
    if (doc) {
      const t = checkPromiseDocument(doc, p);
      rows.push(["θ (promise document)", t.line]);
      if (!t.ok) thetaLine = t.line;
    }
    table(`Promise ${promiseId}`, rows);
    checklist("What was checked", report.checks, thetaLine || undefined);
    if (thetaLine) return { kind: "invalid" as const, line: `promise NOT as documented: ${thetaLine}` };
    const cover = report.covered
      ? `covers a new session (payout ${eth(report.payout)})`
      : "does NOT cover a new session (reserve short or retired)";
    const keys = report.insecureKeys
      ? "; INSECURE development keys: anyone can forge proofs against them"
      : "";
    return {
      kind: "valid" as const,
      line: `promise ${promiseId} valid: ${report.predicate}, escrow and every verifier are the manifest's; it ${cover}${keys}`,
    };
  } catch (e) {
    const v = verdictOf(e);
    if (!v) throw e;
    checklist("What was checked", [], v.reason);
    return {
      kind: v.kind === "invalid" ? ("invalid" as const) : ("unchecked" as const),
      line: `promise NOT valid: ${v.reason}`,
    };
  }
}

async function receiptView(
  chain: ChainHandle,
  escrowAddress: Address,
  text: string,
): Promise<{ kind: VerdictAttr; line: string }> {
  const escrow = await EscrowClient.connect(chain, escrowAddress);
  const r = await checkReceipt(escrow, text);
  table(
    "Receipt",
    r.lines.map((line, i) => [i === 0 ? "receipt" : "advice", line] as [string, string]),
  );
  return r.ok
    ? { kind: "valid", line: `receipt valid: ${r.lines.join(" ")}` }
    : { kind: "invalid", line: `receipt NOT valid: ${r.lines[0]}` };
}

async function run(): Promise<void> {
  $("details").replaceChildren();
  progressLines.length = 0;
  setVerdict("working", "checking…");
  const rpc = field("rpc");
  const claimText = field("claim");
  const promiseText = field("promise");
  const receiptText = $<HTMLTextAreaElement>("receipt").value.trim();
  try {
    const loaded = await loadManifest(field("manifestUrl"));
    $("source").textContent =
      `manifest: ${loaded.source}, sha256 ${loaded.sha256} (${Object.keys(loaded.manifest.circuits).length} circuits)`;
    const { chain, escrow } = await openEscrow(rpc, field("escrow"), field("chainId"));
    const fromBlock = BigInt(/^\d+$/.test(field("fromBlock")) ? field("fromBlock") : "0");
    let verdict: { kind: VerdictAttr; line: string };
    if (receiptText) verdict = await receiptView(chain, escrow, receiptText);
    else if (claimText) {
      if (!/^\d+$/.test(claimText) || claimText === "0")
        throw new PlainError(`${claimText} is not a claim id (a positive whole number)`);
      verdict = await checkClaim(loaded, chain, escrow, BigInt(claimText), fromBlock);
    } else if (promiseText) {
      if (!/^\d+$/.test(promiseText)) throw new PlainError(`${promiseText} is not a promise id`);
      verdict = await checkPromiseView(
        loaded,
        chain,
        escrow,
        BigInt(promiseText),
        $<HTMLTextAreaElement>("promiseDoc").value.trim(),
      );
    } else throw new PlainError("give a claim id, a promise id or a receipt to check");
    setVerdict(verdict.kind, verdict.line);
    progress("done");
  } catch (e) {
    const line = e instanceof PlainError ? e.message : `error: ${shortError(e)}`;
    setVerdict("error", line);
    progress("stopped");
  }
}

/** The link's query keys and the fields they fill. */
const QUERY: [string, string][] = [
  ["rpc", "rpc"],
  ["chain", "chainId"],
  ["escrow", "escrow"],
  ["claim", "claim"],
  ["promise", "promise"],
  ["fromBlock", "fromBlock"],
  ["manifest", "manifestUrl"],
];

function fromQuery(): boolean {
  const q = new URLSearchParams(location.search);
  for (const [k, id] of QUERY) {
    const v = q.get(k);
    if (v !== null) $<HTMLInputElement>(id).value = v;
  }
  return q.has("rpc") && q.has("escrow") && (q.has("claim") || q.has("promise"));
}

$("form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const q = new URLSearchParams();
  for (const [k, id] of QUERY) if (field(id)) q.set(k, field(id));
  history.replaceState(null, "", `?${q}`);
  void run();
});
if (fromQuery()) void run();
