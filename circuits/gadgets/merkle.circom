pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "zeros.circom";

// Flat layout of a full binary tree of depth D: level 0 (the 2^D leaves) first,
// then each level up, the root last. node(l, i) = nodes[nodeOffset(D, l) + i].
function nodeOffset(D, level) {
    var offset = 0;
    for (var j = 0; j < level; j++) offset += 1 << (D - j);
    return offset;
}

function nodeCount(D) { return (2 << D) - 1; }

// active[i] = 1 iff i < n, for i in [0, 2^D). Constrains n to [0, 2^D]:
// a one-hot vector e marks position n, and its running sum closes the mask.
template PrefixMask(D) {
    var N = 1 << D;
    signal input n;
    signal output active[N];

    signal e[N + 1];
    var sum = 0;
    var weighted = 0;
    for (var i = 0; i <= N; i++) {
        e[i] <-- i == n ? 1 : 0;
        e[i] * (e[i] - 1) === 0;
        sum += e[i];
        weighted += i * e[i];
    }
    sum === 1;
    weighted === n;

    var seen = 0;
    for (var i = 0; i < N; i++) {
        seen += e[i];
        active[i] <== 1 - seen;
    }
}

// Every node of the Poseidon tree over `leaves` (2^D - 1 hashes).
template MerkleTree(D) {
    var N = 1 << D;
    signal input leaves[N];
    signal output nodes[nodeCount(D)];

    for (var i = 0; i < N; i++) nodes[i] <== leaves[i];
    component h[N - 1];
    var k = 0;
    for (var l = 1; l <= D; l++) {
        for (var i = 0; i < (N >> l); i++) {
            h[k] = Poseidon(2);
            h[k].inputs[0] <== nodes[nodeOffset(D, l - 1) + 2 * i];
            h[k].inputs[1] <== nodes[nodeOffset(D, l - 1) + 2 * i + 1];
            nodes[nodeOffset(D, l) + i] <== h[k].out;
            k++;
        }
    }
}

// One-hot sel[L] for L = bitlen(max(n, 1) - 1): the height of the smallest
// power-of-two tree that holds n leaves. Assumes n in [0, 2^D] (callers range-check
// n first); constrains max(n,1) - 1 < 2^D itself.
template LevelSelector(D) {
    signal input n;
    signal output sel[D + 1];

    signal nIsZero <== IsZero()(n);
    signal m <== n - 1 + nIsZero;
    signal b[D] <== Num2Bits(D)(m);

    // z[l] = 1 iff bits l..D-1 of m are all 0; hsb[l] = 1 iff bit l is the highest set bit.
    signal z[D + 1];
    signal hsb[D];
    z[D] <== 1;
    for (var l = D - 1; l >= 0; l--) {
        z[l] <== z[l + 1] * (1 - b[l]);
        hsb[l] <== b[l] * z[l + 1];
    }
    sel[0] <== z[0];
    for (var l = 0; l < D; l++) sel[l + 1] <== hsb[l];
}

// out = in[index], index given by its bits (least significant first). 2^B - 1 constraints.
template MuxByBits(B) {
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

// The commitment of a trace of n records whose tree is `nodes`: the root of the
// smallest power-of-two zero-padded tree holding n leaves, node(L, 0) with
// L = bitlen(max(n,1) - 1); 0 for n = 0. It does not depend on the capacity 2^D,
// so one on-chain commitment can be proven by any circuit large enough for it.
// Assumes n in [0, 2^D] and leaves at index >= n are 0 (PrefixMask + RecordLeaf).
template CommitmentRoot(D) {
    signal input n;
    signal input nodes[nodeCount(D)];
    signal output root;

    signal sel[D + 1] <== LevelSelector(D)(n);
    signal term[D + 1];
    var sum = 0;
    for (var l = 0; l <= D; l++) {
        term[l] <== sel[l] * nodes[nodeOffset(D, l)];
        sum += term[l];
    }
    root <== sum;
}

// The commitment of the first k records of the tree `nodes`, as if every leaf from
// k on were 0: the root a checkpoint of k records committed on-chain.
// Walks up from position k (the first empty leaf). Left siblings lie wholly below k,
// so they are nodes of the full tree, picked by the bits of k; right siblings lie
// wholly at or above k, so they are empty subtrees. ~2^D + 245*D constraints.
// Assumes k in [1, 2^D]; range-checks k < 2^(D+1) itself.
template PrefixCommitment(D) {
    signal input k;
    signal input nodes[nodeCount(D)];
    signal output root;

    signal b[D + 1] <== Num2Bits(D + 1)(k);

    // cur[l]: the prefix tree's node at level l on the path of position k.
    signal cur[D + 1];
    signal val[D + 1];
    signal left[D];
    signal right[D];
    signal sibling[D];
    component pick[D];
    component h[D];
    cur[0] <== 0;
    for (var l = 0; l < D; l++) {
        // The left sibling at level l is node(l, 2 * (k >> (l + 1))): select it among
        // the even nodes of level l by the bits of k above l.
        var B = D - l - 1;
        if (B == 0) {
            sibling[l] <== nodes[nodeOffset(D, l)];
        } else {
            pick[l] = MuxByBits(B);
            for (var q = 0; q < (1 << B); q++) pick[l].in[q] <== nodes[nodeOffset(D, l) + 2 * q];
            for (var j = 0; j < B; j++) pick[l].bits[j] <== b[l + 1 + j];
            sibling[l] <== pick[l].out;
        }

        left[l] <== cur[l] + b[l] * (sibling[l] - cur[l]);
        right[l] <== zeroHash(l) + b[l] * (cur[l] - zeroHash(l));
        h[l] = Poseidon(2);
        h[l].inputs[0] <== left[l];
        h[l].inputs[1] <== right[l];
        cur[l + 1] <== h[l].out;
        // node(l, 0) of the prefix tree: the left sibling when k = 2^l, else cur[l].
        val[l] <== left[l];
    }
    val[D] <== cur[D] + b[D] * (nodes[nodeOffset(D, D)] - cur[D]);

    signal sel[D + 1] <== LevelSelector(D)(k);
    signal term[D + 1];
    var sum = 0;
    for (var l = 0; l <= D; l++) {
        term[l] <== sel[l] * val[l];
        sum += term[l];
    }
    root <== sum;
}
