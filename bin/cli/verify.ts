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
import { validLine, verdictOf } from "../../sdk/user/verdict.js";
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
      const line = validLine(report);
      output(values.json, { valid: true, verdict: "valid", ...report }, () => [
        line,
        ...(values.verbose ? report.checks.map((c) => `  ✓ ${c}`) : []),
      ]);
    }),
};
