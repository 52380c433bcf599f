// A literal, test-only model of how the VAI reference decides the τ³-bench promises, as
// fixtures/vai-tau/SEMANTICS.md describes it: the independent check of fixtures/tau/ and of the dev runs'
// verdicts (test/predicates/tau-fixtures.test.ts). The product rule oracle, written later from a declarative
// rule form, must agree with the fixtures; this model is not that oracle and shares no code with it.
//
// The walk (§3): user turns add typed ids (and, in airline, cancellation bindings); each assistant message
// is checked by the message arms before its calls; each successful call is checked against the state before
// it, then its result is applied (§4); rejected calls are skipped entirely; the end arms run at tau.end.
// The verdict is the first fire in record order; its seq is the record seq of the fired record (§2).
import {
  baggageAllowance,
  basicEconomyNoModify,
  bookableStatus,
  cancelEligibility,
  cancelFlown,
  certificateEligibility,
  certificateMandate,
  flownNoCabinChange,
  modificationPaymentType,
  noBagRemoval,
  passengerCap,
  passengerCountFixed,
  paymentComposition,
  paymentInProfile,
  routePreserved,
  userIdFromUser,
} from "./tau-reference/airline-calls.js";
import {
  baggageAllowanceAfterCabinChange,
  baggageFeeAfterCabinChange,
  readCancellationProse,
  requiredTransferAfterFlownCancellation,
  updateCancellationTriggers,
} from "./tau-reference/airline-end.js";
import { buildEpisode, type AssistantTurn, type EpisodeCall, type Outcome } from "./tau-reference/episode.js";
import {
  containsNotice,
  oneToolAtATime,
  toolWithResponse,
  transferNoticeAfterSuccessAtEnd,
  transferNoticeRequiresCall,
} from "./tau-reference/format.js";
import {
  authFirst,
  cancelReasonEnum,
  modifyItemsLockout,
  newItemDiffers,
  oncePerOrder,
  oneUser,
  statusPrecondition,
} from "./tau-reference/retail.js";
import { TauState, applyResult } from "./tau-reference/state.js";

/** Where an arm looks: per message (§6), per successful call (§5, §7), or once at the end (§5.14, §6.2). */
export interface ArmModel {
  onMessage?: (state: TauState, message: AssistantTurn) => Outcome[];
  onCall?: (state: TauState, call: EpisodeCall) => Outcome[];
  onEnd?: (state: TauState) => Outcome[];
}

const MESSAGE_ARMS: Record<string, ArmModel> = {
  one_tool_at_a_time: { onMessage: oneToolAtATime },
  tool_with_response: { onMessage: toolWithResponse },
  transfer_notice_requires_call: { onMessage: transferNoticeRequiresCall },
  transfer_notice_after_success: { onEnd: transferNoticeAfterSuccessAtEnd },
};

/** Every arm of promises.json, by promise id. */
export const ARM_MODELS: Record<string, ArmModel> = {
  ...Object.fromEntries(Object.entries(MESSAGE_ARMS).map(([arm, model]) => [`tau_airline/${arm}`, model])),
  ...Object.fromEntries(Object.entries(MESSAGE_ARMS).map(([arm, model]) => [`tau_retail/${arm}`, model])),
  "tau_retail/auth_first": { onCall: authFirst },
  "tau_retail/one_user": { onCall: oneUser },
  "tau_retail/status_precondition": { onCall: statusPrecondition },
  "tau_retail/modify_items_lockout": { onCall: modifyItemsLockout },
  "tau_retail/new_item_differs": { onCall: newItemDiffers },
  "tau_retail/cancel_reason_enum": { onCall: cancelReasonEnum },
  "tau_retail/once_per_order": { onCall: oncePerOrder },
  "tau_airline/user_id_from_user": { onCall: userIdFromUser },
  "tau_airline/bookable_status": { onCall: bookableStatus },
  "tau_airline/basic_economy_no_modify": { onCall: basicEconomyNoModify },
  "tau_airline/flown_no_cabin_change": { onCall: flownNoCabinChange },
  "tau_airline/no_bag_removal": { onCall: noBagRemoval },
  "tau_airline/passenger_count_fixed": { onCall: passengerCountFixed },
  "tau_airline/route_preserved": { onCall: routePreserved },
  "tau_airline/cancel_flown": { onCall: cancelFlown },
  "tau_airline/cancel_eligibility": { onCall: cancelEligibility },
  "tau_airline/certificate_eligibility": { onCall: certificateEligibility },
  "tau_airline/certificate_mandate": { onCall: certificateMandate },
  "tau_airline/payment_in_profile": { onCall: paymentInProfile },
  "tau_airline/payment_composition": { onCall: paymentComposition },
  "tau_airline/modification_payment_type": { onCall: modificationPaymentType },
  "tau_airline/passenger_cap": { onCall: passengerCap },
  "tau_airline/baggage_allowance": { onCall: baggageAllowance },
  "tau_airline/baggage_allowance_after_cabin_change": { onEnd: baggageAllowanceAfterCabinChange },
  "tau_airline/baggage_fee_after_cabin_change": { onEnd: baggageFeeAfterCabinChange },
  "tau_airline/required_transfer_after_flown_cancellation": { onEnd: requiredTransferAfterFlownCancellation },
};

export interface ModelVerdict {
  violated: boolean;
  /** Record seq of the first fire (§2); null when satisfied. */
  seq: number | null;
  /** Checks made (passed or fired). */
  checks: number;
  /** "Unsupported" notes: evaluations that lacked evidence and made no check (§3). */
  unsupported: number;
  /** The first fire came from missing evidence (retail auth_first / status_precondition "never read", §3). */
  failClosed: boolean;
  /** False when the arm lacked evidence and made no check at all: the verdict rests on fail-open (§3). */
  supported: boolean;
}

const USER_ID_MENTION = /\b[a-z]+_[a-z]+_\d+\b/g;

/** Evaluates one promise (e.g. "tau_retail/status_precondition") on one run of raw reference records. */
export function evaluateTauArm(promiseId: string, records: readonly unknown[]): ModelVerdict {
  const arm = ARM_MODELS[promiseId];
  if (arm === undefined) throw new Error(`no model for ${promiseId}`);
  const airline = promiseId.startsWith("tau_airline/");
  const episode = buildEpisode(records);
  const state = new TauState();
  const verdict: ModelVerdict = {
    violated: false,
    seq: null,
    checks: 0,
    unsupported: 0,
    failClosed: false,
    supported: true,
  };
  const tally = (outcomes: Outcome[], recordSeq: number) => {
    for (const outcome of outcomes) {
      if (outcome.kind === "unsupported") {
        verdict.unsupported += 1;
        continue;
      }
      verdict.checks += 1;
      if (outcome.kind === "fire" && !verdict.violated) {
        verdict.violated = true;
        verdict.seq = recordSeq;
        verdict.failClosed = outcome.failClosed === true;
      }
    }
  };
  for (const turn of episode.turns) {
    if (turn.role === "user") {
      // §3.1: ids the user typed; in airline, also the cancellation bindings of §5.14.
      state.position += 1;
      for (const id of turn.text.toLowerCase().match(USER_ID_MENTION) ?? []) state.userIdsMentioned.add(id);
      if (airline) {
        readCancellationProse(state, turn.text);
        updateCancellationTriggers(state);
      }
      continue;
    }
    // §3.2, §6: message checks come before the message's calls; a notice then clears pending transfers.
    tally(arm.onMessage?.(state, turn) ?? [], turn.recordSeq);
    if (containsNotice(turn.text)) state.pendingTransfers = [];
    for (const call of turn.calls) {
      state.position += 1;
      if (call.rejected) continue; // §3.3: no check, no state change, no count
      tally(arm.onCall?.(state, call) ?? [], call.recordSeq);
      applyResult(state, call);
      if (airline) updateCancellationTriggers(state);
    }
  }
  tally(arm.onEnd?.(state) ?? [], episode.endSeq);
  verdict.supported = !(verdict.checks === 0 && verdict.unsupported > 0);
  return verdict;
}
