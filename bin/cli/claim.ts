// vai claim file|status|default: the user's side of a claim, and its state for anyone.
import { formatEther } from "viem";
import { ClaimStatus } from "../../sdk/chain/escrow.js";
import { ZkvaiError } from "../../sdk/core/errors.js";
import {
  CHAIN_OPTIONS,
  HELP,
  InputError,
  durationText,
  isoTime,
  output,
  parseClaimId,
  parseCommand,
  parseEth,
  parsePromiseId,
  parseSessionId,
  runCommand,
  type Command,
} from "./common.js";
import { USAGE } from "./usage.js";
import { connect, parseRole } from "./connect.js";
import { claimResolution } from "../../sdk/user/claim-status.js";

export const claimCommand: Command = {
  usage: USAGE.claim,
  run: async (argv) => {
    const [name, ...rest] = argv;
    const handler = name ? HANDLERS[name] : undefined;
    if (!handler)
      return runCommand("claim", USAGE.claim, async () => {
        if (name === "--help" || name === "-h") throw HELP;
        const known = Object.keys(HANDLERS).join(", ");
        throw new InputError(
          name === undefined ? `missing subcommand: ${known}` : `unknown subcommand "${name}": ${known}`,
        );
      });
    return runCommand(`claim ${name}`, USAGE.claim, () => handler(rest));
  },
};

const HANDLERS: Record<string, (argv: string[]) => Promise<void>> = {
  async file(argv) {
    const { values, positionals } = parseCommand(
      argv,
      { ...CHAIN_OPTIONS, promise: { type: "string" }, bond: { type: "string" } },
      ["sessionId"],
    );
    const sessionId = parseSessionId(positionals[0]);
    if (!values.promise) throw new InputError("--promise <promiseId> is required");
    const promiseId = parsePromiseId(values.promise);
    if (!values.bond) throw new InputError("--bond <eth> is required");
    const bond = parseEth(values.bond, "--bond");
    const { escrow } = await connect(values, { role: parseRole(values.as, "user"), wallet: true });
    const tx = await escrow.fileClaim(sessionId, promiseId, bond);
    const claim = await escrow.claim(tx.claimId);
    const proofWindowEndsAt = claim.filedAt + (await escrow.constants()).proofWindow;
    output(
      values.json,
      { claimId: tx.claimId, sessionId, promiseId, bond, proofWindowEndsAt, txHash: tx.txHash },
      () => [
        `claim ${tx.claimId} filed on session ${sessionId} under promise ${promiseId}, bond ${formatEther(bond)} ETH`,
        `  the provider has until ${iso(proofWindowEndsAt)} to answer with a proof; tx ${tx.txHash}`,
      ],
    );
  },

  async status(argv) {
    const { values, positionals } = parseCommand(argv, CHAIN_OPTIONS, ["claimId"]);
    const claimId = parseClaimId(positionals[0]);
    const { escrow, chain } = await connect(values, { wallet: false });
    const claim = await escrow.claim(claimId);
    const now = (await chain.publicClient.getBlock()).timestamp;
    const proofWindowEndsAt = claim.filedAt + (await escrow.constants()).proofWindow;
    const resolution = await claimResolution(escrow, claimId, claim.status);
    const status = ClaimStatus[claim.status].toLowerCase();
    const result = { claimId, ...claim, status, proofWindowEndsAt, resolution };
    output(values.json, result, () => [
      `claim ${claimId}: ${status}`,
      `  session ${claim.sessionId}, promise ${claim.promiseId}, claimant ${claim.claimant}, bond ${formatEther(claim.bond)} ETH`,
      `  filed ${iso(claim.filedAt)}; proof window ${now < proofWindowEndsAt ? "open until" : "closed at"} ${iso(proofWindowEndsAt)}`,
      ...(resolution ? [`  ${resolution.summary} (tx ${resolution.txHash})`] : []),
      ...(claim.status === ClaimStatus.Open && now >= proofWindowEndsAt
        ? [`  no proof in time: \`vai claim default ${claimId}\` pays the user`]
        : []),
    ]);
  },

  async default(argv) {
    const { values, positionals } = parseCommand(argv, CHAIN_OPTIONS, ["claimId"]);
    const claimId = parseClaimId(positionals[0]);
    const { escrow, chain } = await connect(values, { role: parseRole(values.as, "provider"), wallet: true });
    // Said here, in dates, before a transaction the escrow would revert with a bare timestamp.
    const claim = await escrow.claim(claimId);
    if (claim.status === ClaimStatus.Settled || claim.status === ClaimStatus.Defaulted)
      throw new ClaimNotDueError(`claim ${claimId} is already ${ClaimStatus[claim.status].toLowerCase()}`);
    if (claim.status === ClaimStatus.Open) {
      const now = (await chain.publicClient.getBlock()).timestamp;
      const endsAt = claim.filedAt + (await escrow.constants()).proofWindow;
      if (now < endsAt)
        throw new ClaimNotDueError(
          `claim ${claimId} cannot default yet: the provider's proof window is open until ${isoTime(endsAt)}, ${durationText(endsAt - now)} from now (chain time); run this again after it`,
        );
    }
    const tx = await escrow.claimDefault(claimId);
    output(
      values.json,
      { claimId, beneficiary: tx.beneficiary, amount: tx.amount, txHash: tx.txHash },
      () => [
        `claim ${claimId} defaulted: ${formatEther(tx.amount)} ETH credited to ${tx.beneficiary} (tx ${tx.txHash})`,
      ],
    );
  },
};

const iso = isoTime;

/** `vai claim default` before the claim can default, or for one already resolved: nothing was sent. */
export class ClaimNotDueError extends ZkvaiError {
  static override readonly code: string = "CLAIM_NOT_DUE";
  override name = "ClaimNotDueError";
}
