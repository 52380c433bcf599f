// vai promise register|fund|retire|show: the provider's promises on the escrow, with θ kept in the local store.
import path from "node:path";
import { formatEther, type Hex } from "viem";
import {
  findPredicate,
  paramsHashOf,
  predicateByCode,
  predicateById,
} from "../../sdk/core/predicates/index.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import { parsePromiseDocument } from "../../sdk/core/promise-document.js";
import { registerPromise } from "../../sdk/provider/promises.js";
import { manifestPath, readManifest } from "../../sdk/manifest/manifest.js";
import {
  checkPromise,
  type PromiseReport,
  type SessionCoverageReport,
} from "../../sdk/user/check-promise.js";
import { SettlementInvalid, SettlementUncheckable } from "../../sdk/user/errors.js";
import { INSECURE_KEYS_WARNING } from "../../sdk/user/deployment-check.js";
import {
  AlreadyReported,
  CHAIN_OPTIONS,
  HELP,
  InputError,
  isoTime,
  output,
  parseCommand,
  parseEth,
  parsePromiseId,
  readJsonFile,
  runCommand,
  type Command,
} from "./common.js";
import { USAGE } from "./usage.js";
import { connect, openStore, parseRole, storeName } from "./connect.js";

export const promiseCommand: Command = {
  usage: USAGE.promise,
  run: async (argv) => {
    const [name, ...rest] = argv;
    const handler = name ? HANDLERS[name] : undefined;
    if (!handler)
      return runCommand("promise", USAGE.promise, async () => {
        if (name === undefined) throw new InputError("missing subcommand: register, fund, retire or show");
        if (name === "--help" || name === "-h") throw HELP;
        throw new InputError(`unknown subcommand "${name}": register, fund, retire or show`);
      });
    return runCommand(`promise ${name}`, USAGE.promise, () => handler(rest));
  },
};

const HANDLERS: Record<string, (argv: string[]) => Promise<void>> = {
  async register(argv) {
    const { values } = parseCommand(argv, {
      ...CHAIN_OPTIONS,
      file: { type: "string" },
      payout: { type: "string" },
      reserve: { type: "string" },
    });
    if (!values.file) throw new InputError("--file <promise.json> is required");
    const spec = await readPromiseFile(values.file, values.payout, values.reserve);
    const { escrow, deployment, config } = await connect(values, {
      role: parseRole(values.as, "provider"),
      wallet: true,
    });
    // Served by whole-claim verifiers, a segment verifier, or both (as the escrow takes it).
    if (
      ![...deployment.verifiers, ...deployment.segmentVerifiers].some((v) => v.predicate === spec.predicate)
    )
      throw new InputError(`the deployment has no ${spec.predicate} verifier; deploy after \`vai setup\``);
    const store = openStore(config, true);
    try {
      const tx = await registerPromise(deployment, escrow, store, spec);
      const result = {
        promiseId: tx.promiseId,
        predicate: spec.predicate,
        paramsHash: paramsHashOf(predicateById(spec.predicate), spec.theta),
        payout: spec.payout,
        reserve: tx.reserve,
        txHash: tx.txHash,
        gasUsed: tx.gasUsed,
      };
      output(values.json, result, () => [
        `promise ${tx.promiseId} registered: ${spec.predicate}, payout ${formatEther(spec.payout)} ETH, reserve ${formatEther(tx.reserve)} ETH`,
        `  θ stored in ${storeName(config)}; tx ${tx.txHash} (${tx.gasUsed} gas)`,
      ]);
    } finally {
      store.close();
    }
  },

  async fund(argv) {
    const { values, positionals } = parseCommand(argv, { ...CHAIN_OPTIONS, amount: { type: "string" } }, [
      "promiseId",
    ]);
    const promiseId = parsePromiseId(positionals[0]);
    if (!values.amount) throw new InputError("--amount <eth> is required");
    const amount = parseEth(values.amount, "--amount");
    const { escrow } = await connect(values, { role: parseRole(values.as, "provider"), wallet: true });
    const tx = await escrow.fund(promiseId, amount);
    output(values.json, { promiseId, amount: tx.amount, reserve: tx.reserve, txHash: tx.txHash }, () => [
      `promise ${promiseId} funded with ${formatEther(tx.amount)} ETH; reserve now ${formatEther(tx.reserve)} ETH (tx ${tx.txHash})`,
    ]);
  },

  async retire(argv) {
    const { values, positionals } = parseCommand(argv, CHAIN_OPTIONS, ["promiseId"]);
    const promiseId = parsePromiseId(positionals[0]);
    const { escrow } = await connect(values, { role: parseRole(values.as, "provider"), wallet: true });
    const tx = await escrow.retirePromise(promiseId);
    const retiredAt = new Date(Number(tx.retiredAt) * 1000).toISOString();
    output(values.json, { promiseId, retiredAt: tx.retiredAt, txHash: tx.txHash }, () => [
      `promise ${promiseId} retired at ${retiredAt}: no new sessions are covered; the sessions it covers stay covered until 30 days after each one closes (tx ${tx.txHash})`,
    ]);
  },

  async check(argv) {
    const { values, positionals } = parseCommand(
      argv,
      {
        ...CHAIN_OPTIONS,
        manifest: { type: "string" },
        session: { type: "string" },
        verbose: { type: "boolean", default: false },
      },
      ["promiseId"],
    );
    const promiseId = parsePromiseId(positionals[0]);
    if (values.session !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(values.session))
      throw new InputError(
        `--session must be a 32-byte hex session id (0x + 64 hex digits), not ${values.session}`,
      );
    const sessionId = values.session as Hex | undefined;
    const manifestFile = path.resolve(values.manifest ?? manifestPath());
    const manifest = readManifest(manifestFile);
    const { chain, deployment } = await connect(values, { wallet: false });
    let report: PromiseReport;
    try {
      report = await checkPromise({
        chain,
        escrow: deployment.escrow,
        promiseId,
        manifest,
        manifestPath: manifestFile,
        sessionId,
      });
    } catch (e) {
      if (!(e instanceof SettlementInvalid || e instanceof SettlementUncheckable)) throw e;
      const verdict = e instanceof SettlementInvalid ? "NOT safe to rely on" : "could NOT be checked";
      output(values.json, { promiseId, checksOut: false, code: e.code, reason: e.message }, () => [
        `promise ${promiseId} ${verdict}: ${e.message}`,
      ]);
      throw new AlreadyReported(e.message);
    }
    const coverage = report.covered
      ? `${formatEther(report.available)} ETH of reserve is free to cover new sessions (payout ${formatEther(report.payout)} ETH)`
      : `but it covers no new session now: ${formatEther(report.available)} ETH free against a payout of ${formatEther(report.payout)} ETH, or it is retired`;
    const contracts = `${report.predicate}, escrow, Poseidon(3) and ${report.verifiers.length} verifier(s) match the manifest`;
    // Development keys: the contracts are the ones built, but a proof against them proves nothing.
    const head = report.insecureKeys
      ? `promise ${promiseId} checks out under ${INSECURE_KEYS_WARNING}, so its settlements prove nothing: ${contracts}`
      : `promise ${promiseId} checks out: ${contracts}`;
    output(values.json, { checksOut: true, ...report }, () => [
      `${head}; ${coverage}`,
      ...(report.session ? [sessionLine(report.session, report.payout)] : []),
      ...(values.verbose ? report.checks.map((c) => `  ✓ ${c}`) : []),
    ]);
  },

  async show(argv) {
    const { values, positionals } = parseCommand(argv, CHAIN_OPTIONS, ["promiseId"]);
    const promiseId = parsePromiseId(positionals[0]);
    const { escrow, deployment, config } = await connect(values, { wallet: false });
    const p = await escrow.promise(promiseId);
    const predicate = predicateByCode(p.predicateId);
    const store = openStore(config, false);
    const stored = store?.promise(promiseId);
    store?.close();
    const thetaMatches = stored
      ? (() => {
          const def = findPredicate(stored.predicate);
          return !!def && paramsHashOf(def, def.parseTheta(stored.theta)) === p.paramsHash;
        })()
      : false;
    const verifiers = p.verifiers.map((address, i) => ({
      capacity: p.capacities[i],
      address,
      circuit: deployment.verifiers.find((v) => v.address.toLowerCase() === address.toLowerCase())?.circuit,
    }));
    const result = {
      promiseId,
      ...p,
      predicate: predicate?.id ?? `unknown (${p.predicateId})`,
      verifiers,
      store: { path: storeName(config), thetaStored: !!stored, thetaMatchesParamsHash: thetaMatches },
    };
    output(values.json, result, () => [
      `promise ${promiseId}: ${result.predicate} by ${p.provider}`,
      `  payout ${formatEther(p.payout)} ETH, reserve ${formatEther(p.reserve)} ETH, ${formatEther(p.payout * BigInt(p.earmarks))} ETH earmarked for ${p.earmarks} covered session(s)`,
      `  paramsHash ${p.paramsHash}, profileHash ${p.profileHash}`,
      `  ${p.retiredAt === 0n ? "active" : `retired at ${new Date(Number(p.retiredAt) * 1000).toISOString()}`}`,
      ...verifiers.map(
        (v) => `  verifier ≤ ${v.capacity} records: ${v.address}${v.circuit ? ` (${v.circuit})` : ""}`,
      ),
      `  θ in ${storeName(config)}: ${stored ? (thetaMatches ? "yes, hashes to the on-chain paramsHash" : "yes, but it does NOT hash to the on-chain paramsHash") : "no"}`,
    ]);
  },
};

interface PromiseFileSpec {
  predicate: string;
  theta: unknown;
  profile: EncodingProfile;
  payout: bigint;
  reserve: bigint;
}

/** Everything registerPromise needs, validated before any transaction (sdk/core/promise-document.ts). */
export async function readPromiseFile(
  file: string,
  payoutFlag?: string,
  reserveFlag?: string,
): Promise<PromiseFileSpec> {
  const doc = parsePromiseDocument(readJsonFile(file, "promise"), `promise file ${file}`, {
    profile: "required",
  });
  const amount = (flag: string | undefined, key: "payout" | "reserve"): bigint | undefined => {
    if (flag !== undefined) return parseEth(flag, `--${key}`);
    const written = doc[key];
    return written === undefined ? undefined : parseEth(written, `"${key}" in ${file}`);
  };
  const payout = amount(payoutFlag, "payout");
  if (payout === undefined) throw new InputError(`no payout: pass --payout <eth> or put "payout" in ${file}`);
  const reserve = amount(reserveFlag, "reserve") ?? payout;
  if (reserve < payout)
    throw new InputError(
      `the reserve (${formatEther(reserve)} ETH) must be at least the payout (${formatEther(payout)} ETH)`,
    );
  return { predicate: doc.predicate.id, theta: doc.theta, profile: doc.profile!, payout, reserve };
}

/** What the promise owes one session, in a line. */
function sessionLine(s: SessionCoverageReport, payout: bigint): string {
  const until =
    s.claimDeadline === null ? "until 30 days after it closes" : `until ${isoTime(s.claimDeadline)}`;
  if (s.coverage === "earmarked" && s.windowEnded && !s.openClaimId)
    return `session ${s.sessionId}: its claim window ended at ${isoTime(s.claimDeadline!)} with no claim; its earmark can only be released`;
  switch (s.coverage) {
    case "earmarked":
      return `session ${s.sessionId} is covered: ${formatEther(s.amount)} ETH is earmarked for it alone, claimable by its user ${s.user} only, ${until}${s.openClaimId ? ` (claim ${s.openClaimId} is open)` : ""}`;
    case "none":
      return `session ${s.sessionId} is NOT covered by this promise (not named when it opened, or no free reserve for its ${formatEther(payout)} ETH payout then)`;
    case "resolved":
      return `session ${s.sessionId}: a claim under this promise was settled or defaulted; it pays no more`;
    case "released":
      return `session ${s.sessionId}: its claim window ended unclaimed and its earmark went back to the reserve`;
  }
}
