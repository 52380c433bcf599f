pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";
include "../gadgets/limits.circom";
include "../gadgets/hash.circom";

// AAP-3 payment: every executed call to a pay tool goes to allowlisted merchants
// with an amount <= cap. Semantics, θ and encoding: sdk/core/predicates/aap3/definition.ts.
// Per record: a real (active), executed (kind = CALL) call to a tool in `tools`
// violates if
//   - its amount is missing or malformed (aux = 0), or amount > cap; or
//   - it names no merchant (target0 = 0), or target0 is not in `merchants`; or
//   - it names a second merchant (target1 != 0) that is not in `merchants`.
// Assumes cap < 2^64 (the caller range-checks it once). θ padding with 0 is safe:
// tool and target hashes of real strings are never 0, and a 0 target is judged
// absent before the allowlist is consulted. ~170 constraints (P = 2, M = 8).
template Aap3RecordViolation(P, M) {
    signal input active;
    signal input kind;
    signal input tool;
    signal input aux;
    signal input targets[2];
    signal input tools[P];
    signal input merchants[M];
    signal input cap;
    signal output violated;

    signal isCall <== IsEqual()([kind, KIND_CALL()]);
    signal isPayTool <== IsInSet(P)(tool, tools);
    signal checked <== active * isCall;
    signal pay <== checked * isPayTool;

    // Amount: (0, 0) unless pay; range-checked < 2^64 before the comparison.
    component amount = GatedAmount();
    amount.checked <== pay;
    amount.aux <== aux;
    signal over <== Exceeds(AMOUNT_BITS())(amount.amount, cap);
    // missing = 1 forces amount = 0 <= cap, so missing and over never are both 1.
    signal amountOk <== 1 - amount.missing - over;

    component absent[2];
    component listed[2];
    for (var j = 0; j < 2; j++) {
        absent[j] = IsZero();
        absent[j].in <== targets[j];
        listed[j] = IsInSet(M);
        listed[j].x <== targets[j];
        listed[j].set <== merchants;
    }
    // First merchant: present and listed. Second: absent, or listed.
    signal firstOk <== listed[0].out * (1 - absent[0].out);
    signal secondOff <== (1 - absent[1].out) * (1 - listed[1].out);
    signal merchantOk <== firstOk * (1 - secondOff);
    signal ok <== merchantOk * amountOk;
    violated <== pay * (1 - ok);
}

// The θ vector of AAP-3, hashed to the promise's paramsHash:
// [PREDICATE_ID, P, M, tools[P], merchants[M], cap] (sdk/core/predicates/aap3/definition.ts).
function AAP3_PREDICATE_ID() { return 3; }

// Checks paramsHash = HashVector(θ) (the vector above); the main and the segment circuit both use it.
template Aap3Theta(P, M) {
    signal input paramsHash;
    signal input tools[P];
    signal input merchants[M];
    signal input cap;

    component theta = HashVector(4 + P + M);
    theta.in[0] <== AAP3_PREDICATE_ID();
    theta.in[1] <== P;
    theta.in[2] <== M;
    for (var i = 0; i < P; i++) theta.in[3 + i] <== tools[i];
    for (var i = 0; i < M; i++) theta.in[3 + P + i] <== merchants[i];
    theta.in[3 + P + M] <== cap;
    paramsHash === theta.out;
}
