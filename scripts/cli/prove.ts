// vai prove: answer a claim with a Groth16 proof from the provider's store, and settle it on-chain.
import { formatEther } from "viem";
import { prepareClaim } from "../../prover/claims.js";
import { prove, releaseProver, verifyLocally } from "../../prover/prove.js";
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
import { verdictLabel } from "../../sdk/core/claim.js";

export const proveCommand: Command = {
  usage: USAGE.prove,
  run: (argv) =>
    runCommand("prove", USAGE.prove, async () => {
      const { values, positionals } = parseCommand(
        argv,
        { ...CHAIN_OPTIONS, "dry-run": { type: "boolean", default: false } },
        ["claimId"],
      );
      const claimId = parseClaimId(positionals[0]);
      const dryRun = values["dry-run"];
      const { escrow, config } = await connect(values, {
        role: parseRole(values.as, "provider"),
        wallet: !dryRun,
      });
      const store = openStore(config, false);
      if (!store)
        throw new InputError(`trace store ${config.store} does not exist (set VAI_STORE or --store)`);
      const progress = new Progress({ total: dryRun ? 3 : 4 });
      try {
        const { artifacts, input, verdict } = await progress.step(
          "check the store against the chain",
          async () => {
            const prepared = await prepareClaim(store, escrow, claimId);
            // A verifier built from other keys (setup rerun since deployment) would reject the proof on-chain.
            const { verifier } = await escrow.verifierOf(claimId);
            await checkVerifierCode(escrow.chain, verifier, prepared.artifacts.name);
            return prepared;
          },
        );
        const proof = await progress.step(
          `prove ${verdictLabel(verdict.violated)} with ${artifacts.name}`,
          () => prove(artifacts, input),
        );
        await progress.step("verify the proof locally", async () => {
          if (!(await verifyLocally(artifacts, proof))) throw new Error("the proof does not verify locally");
          const expected = await escrow.publicInputs(claimId, verdict.violated);
          if (expected.some((x, i) => x !== proof.publicSignals[i]))
            throw new Error("the proof's public inputs differ from those the escrow will rebuild");
        });
        const base = {
          claimId,
          verdict,
          circuit: artifacts.name,
          proveSeconds: Number(proof.proveSeconds.toFixed(3)),
          proof: proof.words,
        };
        if (dryRun) {
          output(values.json, { ...base, settled: false }, () => [
            `claim ${claimId}: ${verdict.violated ? `violated at seq ${verdict.seq}: ${verdict.reason}` : "satisfied"}`,
            `  proof with ${artifacts.name} in ${base.proveSeconds}s verifies locally; --dry-run: nothing sent`,
          ]);
          return;
        }
        const tx = await progress.step("settle on-chain", () =>
          escrow.settle(claimId, proof.words, verdict.violated),
        );
        output(
          values.json,
          {
            ...base,
            settled: true,
            txHash: tx.txHash,
            gasUsed: tx.gasUsed,
            beneficiary: tx.beneficiary,
            amount: tx.amount,
          },
          () => [
            `claim ${claimId} settled: ${verdict.violated ? `violated at seq ${verdict.seq}: ${verdict.reason}` : "satisfied"}`,
            `  ${formatEther(tx.amount)} ETH credited to ${tx.beneficiary}; proof ${base.proveSeconds}s with ${artifacts.name}; tx ${tx.txHash} (${tx.gasUsed} gas)`,
          ],
        );
      } finally {
        store.close();
        await releaseProver();
      }
    }),
};
