// What a user's check can answer besides "valid": a link of the chain of evidence that does not hold (NOT valid),
// evidence that cannot be examined here (NOT verified), and a claim with no proof to check: none with that id,
// or one not settled by a proof (still open, or defaulted). Each has its own code, and `vai verify` its own
// line and exit code (bin/cli/verify.ts).
import { withDetails, ZkvaiError, type ZkvaiErrorOptions } from "../core/errors.js";

/** A link of the chain of evidence that does not hold; its message is the reason. */
export class SettlementInvalid extends ZkvaiError {
  static override readonly code: string = "SETTLEMENT_INVALID";
  override name = "SettlementInvalid";
}

/** The settlement could not be examined (e.g. settle was called through another contract, a key is missing). */
export class SettlementUncheckable extends ZkvaiError {
  static override readonly code: string = "SETTLEMENT_UNCHECKABLE";
  override name = "SettlementUncheckable";
}

/** The escrow holds no claim with this id. */
export class NoSuchClaim extends ZkvaiError {
  static override readonly code: string = "NO_SUCH_CLAIM";
  override name = "NoSuchClaim";
  constructor(
    readonly claimId: bigint,
    escrow: string,
    options?: ZkvaiErrorOptions,
  ) {
    super(
      `claim ${claimId} does not exist on escrow ${escrow}`,
      withDetails(options, { claimId: String(claimId), escrow }),
    );
  }
}

/**
 * The claim exists but no proof settled it: "open" (its proof window still runs), "overdue" (the window ended
 * and nobody has called claimDefault yet) or "defaulted" (paid to the user for want of a proof).
 */
export class ClaimNotSettled extends ZkvaiError {
  static override readonly code: string = "CLAIM_NOT_SETTLED";
  override name = "ClaimNotSettled";
  constructor(
    readonly claimId: bigint,
    readonly state: "open" | "overdue" | "defaulted",
    message: string,
    options?: ZkvaiErrorOptions,
  ) {
    super(message, withDetails(options, { claimId: String(claimId), state }));
  }
}
