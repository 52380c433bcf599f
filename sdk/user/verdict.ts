// The answer a settlement check gives when it is not "valid", as one line: the same words for `vai verify`
// (bin/cli/verify.ts, which adds the exit code) and the page (sdk/page), so the two never disagree.
import { ClaimNotSettled, NoSuchClaim, SettlementInvalid, SettlementUncheckable } from "./errors.js";
import { INSECURE_KEYS_WARNING } from "./deployment-check.js";
import type { SettlementReport } from "./settlement-report.js";

export type VerdictKind = "valid" | "invalid" | "unchecked" | "no-such-claim" | "defaulted" | "not-settled";

export interface Verdict {
  kind: VerdictKind;
  line: string;
  reason: string;
  /** `vai verify`'s exit code: 0 valid, 1 NOT valid or NOT verified, 3 no proof to check. */
  exitCode: number;
  /** For "not-settled": "open" (proof window still runs) or "overdue" (anyone may call claimDefault). */
  state?: "open" | "overdue" | "defaulted";
}

/** The verdict of a settlement check that threw; undefined for an error that is no verdict (say, RPC down). */
export function verdictOf(e: unknown): Verdict | undefined {
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
      state: e.state,
    };
  return undefined;
}

/** The line of a settlement that checked out. */
export function validLine(report: SettlementReport): string {
  const what = report.violated ? "violation" : "satisfaction";
  return report.insecureKeys
    ? `settlement valid under ${INSECURE_KEYS_WARNING}, so it shows nothing about the session (${what} proven for session ${report.sessionId}, promise ${report.promiseId})`
    : `settlement valid: ${what} proven for session ${report.sessionId}, promise ${report.promiseId}`;
}
