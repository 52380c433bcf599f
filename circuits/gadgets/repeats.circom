pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";

// Counting identical records pairwise, O(N^2): fine at the capacities built here
// (test/circuits/repeats.test.ts). docs/SOUNDNESS.md, "AAP-5 limits", has the argument.

// eq = 1 iff a == b (both coordinates), exactly, in 4 constraints (two IsZero and a
// product take 5). With d0 = a[0] - b[0], d1 = a[1] - b[1]:
//   eq * d0 = 0 and eq * d1 = 0 force eq = 0 when either difference is nonzero;
//   d0 * u + d1 * v = 1 - eq forces eq = 1 when both are zero, and the prover can
//   meet it otherwise (u = 1/d0, or v = 1/d1). u and v are don't-cares beyond that.
template PairEqual() {
    signal input a[2];
    signal input b[2];
    signal output eq;

    signal d0 <== a[0] - b[0];
    signal d1 <== a[1] - b[1];
    signal u;
    signal v;
    eq <-- (d0 == 0 && d1 == 0) ? 1 : 0;
    u <-- d0 != 0 ? 1 / d0 : 0;
    v <-- (d0 == 0 && d1 != 0) ? 1 / d1 : 0;
    eq * d0 === 0;
    eq * d1 === 0;
    signal t <== d0 * u;
    d1 * v === 1 - eq - t;
}

// count[i] = #{ j <= i : live[j] = 1, tool[j] = tool[i], args[j] = args[i] } for a
// live record i: how many times its (tool, args) has occurred so far, itself included.
// Assumes live[] boolean and tool[i] != 0 for every live i (tool slots are string
// hashes, never 0). A record that is not live is keyed with tool 0, so it matches no
// live record; its own count is meaningless and callers gate it by live[i].
// N + 4 * N(N-1)/2 constraints.
template RepeatCounts(N) {
    assert(N >= 2);
    signal input live[N];
    signal input tool[N];
    signal input args[N];
    signal output count[N];

    signal key[N];
    for (var i = 0; i < N; i++) key[i] <== live[i] * tool[i];

    component same[N * (N - 1) \ 2];
    var k = 0;
    for (var i = 0; i < N; i++) {
        var c = 1;
        for (var j = 0; j < i; j++) {
            same[k] = PairEqual();
            same[k].a <== [key[i], args[i]];
            same[k].b <== [key[j], args[j]];
            c += same[k].eq;
            k++;
        }
        count[i] <== c;
    }
}

// hit[i] = 1 iff record i is live and is the bound-th occurrence of its (tool, args).
// Some (tool, args) occurs more than L times among the live records iff some hit is
// 1 for bound = L + 1: counts run 1, 2, ... within a key, so the (L+1)-th
// occurrence exists exactly then. bound = 0 ("no limit") never hits, since counts
// of live records are at least 1 and at most N < r. 3N constraints on top of
// RepeatCounts.
template RepeatHits(N) {
    signal input live[N];
    signal input tool[N];
    signal input args[N];
    signal input bound;
    signal output hit[N];

    component counts = RepeatCounts(N);
    counts.live <== live;
    counts.tool <== tool;
    counts.args <== args;
    component atBound[N];
    for (var i = 0; i < N; i++) {
        atBound[i] = IsEqual();
        atBound[i].in <== [counts.count[i], bound];
        hit[i] <== live[i] * atBound[i].out;
    }
}
