// Protocol v1 gadget, copied verbatim from git HEAD cffe71c:circuits/gadgets/sets.circom. Kept only for
// scripts/bench/encodings.ts (checkpoint-encoding costs); not part of any built circuit.
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

// bit[] is the one-hot of `value` over 0..M: booleans summing to 1 whose weighted
// sum is value, so it exists iff 0 <= value <= M, and then it is unique.
// before[k] = 1 iff k < value (a prefix mask: the first `value` positions).
template CountOneHot(M) {
    signal input value;
    signal output bit[M + 1];
    signal output before[M];

    var ones = 0;
    var weighted = 0;
    for (var k = 0; k <= M; k++) {
        bit[k] <-- value == k ? 1 : 0;
        bit[k] * (bit[k] - 1) === 0;
        ones += bit[k];
        weighted += k * bit[k];
    }
    ones === 1;
    weighted === value;
    var later = bit[M];
    for (var k = M - 1; k >= 0; k--) {
        before[k] <== later;
        later += bit[k];
    }
}
