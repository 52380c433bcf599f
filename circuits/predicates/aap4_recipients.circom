pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";
include "../gadgets/hash.circom";
include "../gadgets/active_set.circom";

// AAP-4 recipients: every recipient of a call to an outbound tool is allowed at
// that call. Semantics, θ and encoding: sdk/core/predicates/aap4/definition.ts.
// Record I (a real (active), executed (kind = CALL) call to a tool in `tools`)
// violates if any present target (slot != 0) is not active at I: the allowed set
// starts as `allow` and the recipient grant/revoke events before I (SetEvents,
// namespace "recipient", compacted by EventLog; `before` is I's row) add and
// remove values (ActiveIn, active_set.circom).
// θ padding with 0 is safe: tool and target hashes of real strings are never 0,
// and ActiveAt never reports 0 as active; absent targets (0) are skipped.
template Aap4RecordViolation(T, A, E) {
    signal input active;
    signal input kind;
    signal input tool;
    signal input targets[2];
    signal input tools[T];
    signal input allow[A];
    signal input slot[E];
    signal input granted[E];
    signal input before[E];
    signal output violated;

    signal isCall <== IsEqual()([kind, KIND_CALL()]);
    signal isOutbound <== IsInSet(T)(tool, tools);
    signal checked <== active * isCall;
    signal outbound <== checked * isOutbound;

    // off[j] = present and not active; active implies present, so it is linear.
    signal off[2];
    component listed[2];
    for (var j = 0; j < 2; j++) {
        listed[j] = ActiveIn(E, A);
        listed[j].value <== targets[j];
        listed[j].initial <== allow;
        listed[j].slot <== slot;
        listed[j].granted <== granted;
        listed[j].before <== before;
        off[j] <== listed[j].present - listed[j].out;
    }
    signal offAny <== off[0] + off[1] - off[0] * off[1];
    violated <== outbound * offAny;
}

// The θ vector of AAP-4, hashed to the promise's paramsHash:
// [PREDICATE_ID, T, A, tools[T], allow[A]] (sdk/core/predicates/aap4/definition.ts).
function AAP4_PREDICATE_ID() { return 4; }

// Checks paramsHash = HashVector(θ) (the vector above); the main and the segment circuit both use it.
template Aap4Theta(T, A) {
    signal input paramsHash;
    signal input tools[T];
    signal input allow[A];

    component theta = HashVector(3 + T + A);
    theta.in[0] <== AAP4_PREDICATE_ID();
    theta.in[1] <== T;
    theta.in[2] <== A;
    for (var i = 0; i < T; i++) theta.in[3 + i] <== tools[i];
    for (var i = 0; i < A; i++) theta.in[3 + T + i] <== allow[i];
    paramsHash === theta.out;
}
