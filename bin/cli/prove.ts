// vai prove: answer a claim with a Groth16 proof from the provider's store, and settle it on-chain.
import { formatEther } from "viem";
import { answerClaim, loadClaim, proveClaimChecked, type PreparedClaim } from "../../prover/claims.js";
import { answerSegmentedClaim, needsSegments } from "../../prover/segments/claims.js";
import { releaseProver } from "../../prover/prove.js";
import type { Verdict } from "../../sdk/core/predicates/types.js";
import { Progress } from "../../prover/artifacts/progress.js";
import {
  CHAIN_OPTIONS,
  InputError,
  output,
  parseClaimId,
  parseCommand,
  runCommand,
  type Command,
} from "./common.js";
import { USAGE } from "./usage.js";
import { connect, openStore, parseRole } from "./connect.js";
import { checkVerifierCode } from "../../sdk/user/evidence.js";

export const proveCommand: Command = {
  usage: USAGE.prove,
  run: (argv) =>
    runCommand("prove", USAGE.prove, async () => {
      const { values, positionals } = parseCommand(
        argv,
        {
          ...CHAIN_OPTIONS,
          "dry-run": { type: "boolean", default: false },
          workers: { type: "string", default: "1" },
        },
        ["claimId"],
      );
      const claimId = parseClaimId(positionals[0]);
      const dryRun = values["dry-run"];
      const workers = Number(values.workers);
      if (!Number.isInteger(workers) || workers < 1)
        throw new InputError(`--workers must be a positive integer, not ${values.workers}`);
      const { escrow, config } = await connect(values, {
        role: parseRole(values.as, "provider"),
        wallet: !dryRun,
      });
      const store = openStore(config, false);
      if (!store)
        throw new InputError(`trace store ${config.store} does not exist (set VAI_STORE or --store)`);
      const progress = new Progress({ total: dryRun ? 4 : 5 });
      const opts = {
        step: <T>(label: string, run: () => Promise<T>) => progress.step(label, run),
        // A verifier built from other keys (setup rerun since deployment) would reject the proof on-chain.
        beforeProving: async (prepared: PreparedClaim) => {
          const { verifier } = await escrow.verifierOf(claimId);
          await checkVerifierCode(escrow.chain, verifier, prepared.artifacts.name);
        },
      };
      try {
        const said = (v: Verdict) => (v.violated ? `violated at seq ${v.seq}: ${v.reason}` : "satisfied");
        const loaded = await progress.step("check the store against the chain", () =>
          loadClaim(store, escrow, claimId),
        );
        if (needsSegments(loaded)) {
          if (dryRun)
            throw new InputError("--dry-run proves whole-claim circuits only; this claim needs segments");
          const a = await answerSegmentedClaim(store, escrow, claimId, {
            loaded,
            workers,
            step: opts.step,
            progress: (e) => {
              if (e.stage === "proven")
                progress.log(`segment ${e.index + 1}/${e.of} proven in ${e.seconds?.toFixed(1)} s`);
            },
          });
          const gas = Object.values(a.segmentGas).reduce((x, y) => x + y, 0n) + a.settleGas;
          output(
            values.json,
            { ...a, settled: true, gasUsed: gas, proofs: a.proofs.map(({ proof: _, ...p }) => p) },
            () => [
              `claim ${claimId} settled by ${a.segments} segments: ${said(a.verdict)}`,
              `  ${formatEther(a.amount)} ETH credited to ${a.beneficiary}; ${a.proofs.length} segments proven now with ${a.circuit}; ${gas} gas in all; tx ${a.txHash}`,
            ],
          );
          return;
        }
        if (dryRun) {
          const p = await proveClaimChecked(store, escrow, claimId, opts);
          const proveSeconds = Number(p.proveSeconds.toFixed(3));
          output(values.json, { ...p, proveSeconds, settled: false }, () => [
            `claim ${claimId}: ${said(p.verdict)}`,
            `  proof with ${p.circuit} in ${proveSeconds}s verifies locally; --dry-run: nothing sent`,
          ]);
          return;
        }
        const a = await answerClaim(store, escrow, claimId, opts);
        const proveSeconds = Number(a.proveSeconds.toFixed(3));
        const { settleGas, ...rest } = a;
        output(values.json, { ...rest, proveSeconds, settled: true, gasUsed: settleGas }, () => [
          `claim ${claimId} settled: ${said(a.verdict)}`,
          `  ${formatEther(a.amount)} ETH credited to ${a.beneficiary}; proof ${proveSeconds}s with ${a.circuit}; tx ${a.txHash} (${settleGas} gas)`,
        ]);
      } finally {
        store.close();
        await releaseProver();
      }
    }),
};
