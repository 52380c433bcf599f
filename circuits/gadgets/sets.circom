pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";

// out = 1 iff x equals one of set[0..S).
// Padding the set with 0 is safe only where x = 0 is treated separately by the
// caller (every caller here skips absent values, which are encoded as 0).
template IsInSet(S) {
    assert(S >= 1);
    signal input x;
    signal input set[S];
    signal output out;

    signal acc[S];
    acc[0] <== x - set[0];
    for (var i = 1; i < S; i++) acc[i] <== acc[i - 1] * (x - set[i]);
    out <== IsZero()(acc[S - 1]);
}

// out = 1 iff any of in[] is 1. Assumes boolean inputs; the sum cannot wrap
// because it is at most N < r.
template AnyOf(N) {
    signal input in[N];
    signal output out;
    var sum = 0;
    for (var i = 0; i < N; i++) sum += in[i];
    signal none <== IsZero()(sum);
    out <== 1 - none;
}
