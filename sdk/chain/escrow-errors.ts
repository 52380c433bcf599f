// An escrow transaction that failed, as a ZkvaiError a caller can branch on without knowing viem: the
// escrow refused it (EscrowRevertError, naming the escrow's custom error), or it could not be sent or
// confirmed (EscrowTxError). Reverts are read from viem's typed error chain (sdk/chain/retry.ts).
import { ZkvaiError } from "../core/errors.js";
import { describeError, isTransportError, revertName } from "./retry.js";

/** The escrow reverted the transaction: `revert` is its custom error's name, e.g. "InsufficientReserve". */
export class EscrowRevertError extends ZkvaiError {
  static override readonly code: string = "ESCROW_REVERTED";
  override name = "EscrowRevertError";
  constructor(
    readonly functionName: string,
    /** The escrow's custom error ("ClaimWindowClosed", …), or "unknown revert" when it could not be decoded. */
    readonly revert: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The transaction could not be sent or its receipt read (the node is unreachable, the account cannot pay for
 * gas, the wallet refused): `transient` when retrying later may succeed. It may still have landed when the
 * receipt was what failed, so read the chain before sending it again.
 */
export class EscrowTxError extends ZkvaiError {
  static override readonly code: string = "ESCROW_TX_FAILED";
  override name = "EscrowTxError";
  constructor(
    readonly functionName: string,
    readonly transient: boolean,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** `e`, thrown by sending `functionName`, as one of the two errors above (a ZkvaiError is kept as it is). */
export function escrowFailure(functionName: string, e: unknown): ZkvaiError {
  if (e instanceof ZkvaiError) return e;
  const revert = revertName(e);
  const line = describeError(e);
  if (revert !== undefined)
    return new EscrowRevertError(functionName, revert, line.includes(revert) ? line : `${line} (${revert})`, {
      cause: e,
    });
  return new EscrowTxError(functionName, isTransportError(e), `${functionName} failed: ${line}`, {
    cause: e,
  });
}
