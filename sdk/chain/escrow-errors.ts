// An escrow transaction that failed, as a ZkvaiError a caller can branch on without knowing viem: the
// escrow refused it (EscrowRevertError, naming the escrow's custom error), or it could not be sent or
// confirmed (EscrowTxError). Reverts are read from viem's typed error chain (sdk/chain/retry.ts).
import { withDetails, ZkvaiError, type ZkvaiErrorOptions } from "../core/errors.js";
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
    options?: ZkvaiErrorOptions,
  ) {
    super(message, withDetails(options, { functionName, revert }));
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
    options?: ZkvaiErrorOptions,
  ) {
    super(message, withDetails(options, { functionName, transient }));
  }
}

/**
 * The chain is not in the state an operation needs, or answered what this SDK does not expect: a mined
 * transaction reverted, a receipt lacks the event the call emits, the escrow reports a status it does not
 * define (another escrow version?), an account has no funds.
 */
export class ChainStateError extends ZkvaiError {
  static override readonly code: string = "UNEXPECTED_CHAIN_STATE";
  override name = "ChainStateError";
}

/**
 * `e`, thrown by sending `functionName`, as one of the two errors above. Another ZkvaiError is kept as it is,
 * except a ChainStateError (a receipt that reverted or lacks its event), which becomes an EscrowTxError
 * caused by it, as such a failure always has.
 */
export function escrowFailure(functionName: string, e: unknown): ZkvaiError {
  if (e instanceof ZkvaiError && !(e instanceof ChainStateError)) return e;
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
