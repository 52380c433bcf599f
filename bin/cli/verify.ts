// vai verify: a user's independent check that a settlement followed from a valid proof.
import path from "node:path";
import { manifestPath, readManifest } from "../../sdk/manifest/manifest.js";
import { releaseProver } from "../../prover/prove.js";
import {
  AlreadyReported,
  CHAIN_OPTIONS,
  InputError,
  output,
  parseAddress,
  parseClaimId,
  parseCommand,
  parseInteger,
  runCommand,
  type Command,
} from "./common.js";
import { USAGE } from "./usage.js";
import { loadConfig, rpcUrlFor } from "./config.js";
import { connect, openChain } from "./connect.js";
import {
  ClaimNotSettled,
  NoSuchClaim,
  SettlementInvalid,
  SettlementUncheckable,
} from "../../sdk/user/errors.js";
import { INSECURE_KEYS_WARNING } from "../../sdk/user/deployment-check.js";
import { verifySettlement, type SettlementReport } from "../../sdk/user/verify-settlement.js";
import type { ZkvaiError } from "../../sdk/core/errors.js";

export const verifyCommand: Command = {
  usage: USAGE.verify,
  run: (argv) =>
    runCommand("verify", USAGE.verify, async () => {
      const { values, positionals } = parseCommand(
        argv,
        {
          "rpc-url": CHAIN_OPTIONS["rpc-url"],
          deployment: CHAIN_OPTIONS.deployment,
          config: CHAIN_OPTIONS.config,
          json: CHAIN_OPTIONS.json,
          manifest: { type: "string" },
          escrow: { type: "string" },
          "from-block": { type: "string" },
          verbose: { type: "boolean", default: false },
          recompile: { type: "boolean", default: false },
        },
        ["claimId"],
      );
      const claimId = parseClaimId(positionals[0]);
      const manifestFile = path.resolve(values.manifest ?? manifestPath());
      const manifest = readManifest(manifestFile);
      if (values["from-block"] !== undefined && values.escrow === undefined)
        throw new InputError("--from-block goes with --escrow (the deployment file has its own)");
      let target: { chain: Awaited<ReturnType<typeof openChain>>; escrow: `0x${string}`; fromBlock: bigint };
      if (values.escrow !== undefined) {
        const escrow = parseAddress(values.escrow, "--escrow");
        const fromBlock = BigInt(parseInteger(values["from-block"] ?? "0", "--from-block", 0));
        const config = loadConfig(values);
        target = { chain: await openChain(rpcUrlFor(config)), escrow, fromBlock };
      } else {
        const c = await connect(values, { wallet: false });
        target = { chain: c.chain, escrow: c.deployment.escrow, fromBlock: BigInt(c.deployment.fromBlock) };
      }
      let report: SettlementReport;
      try {
        report = await verifySettlement({
          ...target,
          claimId,
          manifest,
          manifestPath: manifestFile,
          recompile: values.recompile,
        });
      } catch (e) {
        const verdict = verdictOf(e);
        if (!verdict) throw e;
        output(
          values.json,
          {
            claimId,
            valid: false,
            verdict: verdict.kind,
            code: (e as ZkvaiError).code,
            reason: verdict.reason,
          },
          () => [verdict.line],
        );
        throw new AlreadyReported(verdict.reason, verdict.exitCode);
      } finally {
        await releaseProver();
      }
      const what = report.violated ? "violation" : "satisfaction";
      const line = report.insecureKeys
        ? `settlement valid under ${INSECURE_KEYS_WARNING}, so it shows nothing about the session (${what} proven for session ${report.sessionId}, promise ${report.promiseId})`
        : `settlement valid: ${what} proven for session ${report.sessionId}, promise ${report.promiseId}`;
      output(values.json, { valid: true, verdict: "valid", ...report }, () => [
        line,
        ...(values.verbose ? report.checks.map((c) => `  ✓ ${c}`) : []),
      ]);
    }),
};

/**
 * The line and exit code of every answer that is not "valid" (USAGE.verify lists them): 1 for a settlement that
 * is NOT valid or could NOT be verified, 3 for a claim with no proof to check (none with that id, not settled
 * yet, defaulted).
 */
function verdictOf(e: unknown): { kind: string; line: string; reason: string; exitCode: number } | undefined {
  if (e instanceof SettlementInvalid)
    return { kind: "invalid", line: `settlement NOT valid: ${e.message}`, reason: e.message, exitCode: 1 };
  if (e instanceof SettlementUncheckable)
    return {
      kind: "unchecked",
      line: `settlement NOT verified: ${e.message}`,
      reason: e.message,
      exitCode: 1,
    };
  // These messages say themselves that nothing was settled by a proof: "claim 9 does not exist …", "claim 2 is
  // not settled yet: …", "claim 2 was not settled by a proof: it defaulted …".
  if (e instanceof NoSuchClaim)
    return { kind: "no-such-claim", line: e.message, reason: e.message, exitCode: 3 };
  if (e instanceof ClaimNotSettled)
    return {
      kind: e.state === "defaulted" ? "defaulted" : "not-settled",
      line: e.message,
      reason: e.message,
      exitCode: 3,
    };
  return undefined;
}
