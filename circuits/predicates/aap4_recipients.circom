pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";

// AAP-4 recipients: every recipient of a call to an outbound tool is on the
// allowlist. Semantics, θ and encoding: sdk/predicates/aap4-recipients.ts.
// Per record: a real (active), executed (kind = CALL) call to a tool in `tools`
// violates if any present target (slot != 0) is not in `allow`.
// θ padding with 0 is safe: tool and target hashes of real strings are never 0,
// and absent targets (0) are skipped before the allowlist is consulted.

template Aap4RecordViolation(T, A) {
    signal input active;
    signal input kind;
    signal input tool;
    signal input targets[2];
    signal input tools[T];
    signal input allow[A];
    signal output violated;

    signal isCall <== IsEqual()([kind, KIND_CALL()]);
    signal isOutbound <== IsInSet(T)(tool, tools);
    signal checked <== active * isCall;
    signal outbound <== checked * isOutbound;

    signal off[2];
    component absent[2];
    component listed[2];
    for (var j = 0; j < 2; j++) {
        absent[j] = IsZero();
        absent[j].in <== targets[j];
        listed[j] = IsInSet(A);
        listed[j].x <== targets[j];
        listed[j].set <== allow;
        off[j] <== (1 - absent[j].out) * (1 - listed[j].out);
    }
    signal offAny <== off[0] + off[1] - off[0] * off[1];
    violated <== outbound * offAny;
}

// The θ vector of AAP-4, hashed to the promise's paramsHash:
// [PREDICATE_ID, T, A, tools[T], allow[A]] (sdk/predicates/aap4-recipients.ts).
function AAP4_PREDICATE_ID() { return 4; }
