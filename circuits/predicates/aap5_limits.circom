pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";
include "../gadgets/limits.circom";
include "../gadgets/repeats.circom";
include "../gadgets/hash.circom";

// AAP-5 limits over the executed calls of a trace. Semantics, θ and encoding:
// sdk/core/predicates/aap5/definition.ts. With call[i] = active and kind = CALL:
//   count  = #{ i : call[i], tool[i] in countedTools }           > maxCount  violates
//   sum    = Σ amount[i] over call[i], tool[i] in summedTools    > maxSum    violates
//   a summed call whose amount is missing or malformed (aux = 0)             violates
//   some (tool, args) occurs among the calls more than maxRepeat times       violates
// Each limit is optional: limits[] holds limit + 1, or 0 for none (OptionalLimit).
// The count and the sum only grow along the trace (each term is a boolean or a
// range-checked amount >= 0), so a prefix exceeds its limit iff the whole trace
// does: comparing the totals once decides the verdict, and the TS oracle reports
// the first record at which the running value passes the limit.
// Widths: count <= N < 2^(D+1); each amount < 2^64, so sum < N * 2^64 = 2^(64+D).

// Per-record flags: which calls count, which are summed and with what amount.
template Aap5RecordFlags(C, S) {
    signal input active;
    signal input kind;
    signal input tool;
    signal input aux;
    signal input countedTools[C];
    signal input summedTools[S];
    signal output call;
    signal output counted;
    signal output missing;
    signal output amount;

    signal isCall <== IsEqual()([kind, KIND_CALL()]);
    call <== active * isCall;
    signal isCounted <== IsInSet(C)(tool, countedTools);
    counted <== call * isCounted;
    signal isSummed <== IsInSet(S)(tool, summedTools);
    signal summed <== call * isSummed;

    component a = GatedAmount();
    a.checked <== summed;
    a.aux <== aux;
    missing <== a.missing;
    amount <== a.amount;
}

// The θ vector of AAP-5, hashed to the promise's paramsHash:
// [PREDICATE_ID, C, S, countedTools[C], summedTools[S], maxCount + 1, maxSum + 1,
//  maxRepeat + 1] with 0 for an absent limit (sdk/core/predicates/aap5/definition.ts).
function AAP5_PREDICATE_ID() { return 5; }

// Checks paramsHash = HashVector(θ) (the vector above); the main and the segment circuit both use it.
template Aap5Theta(C, S) {
    signal input paramsHash;
    signal input countedTools[C];
    signal input summedTools[S];
    signal input limits[3];

    component theta = HashVector(6 + C + S);
    theta.in[0] <== AAP5_PREDICATE_ID();
    theta.in[1] <== C;
    theta.in[2] <== S;
    for (var i = 0; i < C; i++) theta.in[3 + i] <== countedTools[i];
    for (var i = 0; i < S; i++) theta.in[3 + C + i] <== summedTools[i];
    for (var i = 0; i < 3; i++) theta.in[3 + C + S + i] <== limits[i];
    paramsHash === theta.out;
}
