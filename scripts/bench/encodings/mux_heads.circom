pragma circom 2.1.0;

// Encoding E2, bench only (scripts/bench/encodings.ts): chained leaves (circuits/gadgets/leaf.circom), each
// checkpoint the chain head leaf[n_k - 1], selected by a multiplexer over all N leaves per entry, with no
// challenge. Compared against E1 (prefix_roots.circom) and E3 (lookup_heads.circom).
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "../../../circuits/gadgets/checkpoints.circom";

// out = in[index], index given by its bits (least significant first). 2^B - 1 constraints.
// Protocol v1's MuxByBits (v1/merkle.circom), renamed: v2's merkle.circom no longer has it, and the v1 file
// cannot be included beside v2's gadgets (both define PoseidonHash).
template SelectByBits(B) {
    assert(B >= 1);
    var M = 1 << B;
    signal input in[M];
    signal input bits[B];
    signal output out;

    signal layer[2 * M - 1];
    for (var i = 0; i < M; i++) layer[i] <== in[i];
    var from = 0;
    var to = M;
    for (var j = 0; j < B; j++) {
        var width = M >> (j + 1);
        for (var i = 0; i < width; i++) {
            layer[to + i] <== layer[from + 2 * i] + bits[j] * (layer[from + 2 * i + 1] - layer[from + 2 * i]);
        }
        from = to;
        to += width;
    }
    out <== layer[2 * M - 2];
}

// Every active entry (n_k, head_k) has 1 <= n_k <= n and head_k = leaves[n_k - 1]; the fold of the active
// prefix is checkpointAcc. An inactive entry folds nothing (CheckpointFold) and selects index 0, whatever
// its n_k, and its head is not compared. Assumes n in [0, 2^D] (PrefixMask).
// Cost per entry: 2^D - 1 (mux) + D (bits) + D + 2 (comparison) + 3, beside its fold hash.
template MuxHeads(D, K) {
    var N = 1 << D;
    signal input n;
    signal input checkpointAcc;
    signal input leaves[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];

    component fold = CheckpointFold(K);
    fold.cpN <== cpN;
    fold.cpHead <== cpHead;
    fold.cpActive <== cpActive;
    checkpointAcc === fold.acc;

    signal index[K];
    signal bits[K][D];
    signal within[K];
    signal head[K];
    for (var k = 0; k < K; k++) {
        // Range first: index = n_k - 1 in [0, 2^D) (so 1 <= n_k <= 2^D) before comparing it with n.
        index[k] <== cpActive[k] * (cpN[k] - 1);
        bits[k] <== Num2Bits(D)(index[k]);
        // index < n: both below 2^(D+1), so LessThan(D + 1) is exact.
        within[k] <== LessThan(D + 1)([index[k], n]);
        cpActive[k] * (1 - within[k]) === 0;
        head[k] <== SelectByBits(D)(leaves, bits[k]);
        cpActive[k] * (head[k] - cpHead[k]) === 0;
    }
}
