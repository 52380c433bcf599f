pragma circom 2.1.0;

include "poseidon.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "zeros.circom";
include "sets.circom";

// The trace tree is 16-ary (sdk/core/merkle.ts, TREE_ARITY): one Poseidon(16) per
// internal node. A circuit of capacity N = 2^D holds levels 0..H, H = ceil(D/4);
// level l has ceil(N / 16^l) nodes, and children beyond them are empty subtrees
// (zeroHash constants). Flat layout, leaves first, the root last:
// node(l, i) = nodes[nodeOffset(D, l) + i].
function arityBits() { return 4; }
function arity() { return 1 << arityBits(); }
function treeHeight(D) { return (D + arityBits() - 1) \ arityBits(); }
function levelSize(D, level) {
    var shift = D - arityBits() * level;
    return shift <= 0 ? 1 : 1 << shift;
}
function nodeOffset(D, level) {
    var offset = 0;
    for (var j = 0; j < level; j++) offset += levelSize(D, j);
    return offset;
}
function nodeCount(D) { return nodeOffset(D, treeHeight(D) + 1); }

// active[i] = 1 iff i < n, for i in [0, 2^D). Constrains n to [0, 2^D]: the
// one-hot of n over 0..2^D exists only there, and its running sum closes the mask.
template PrefixMask(D) {
    var N = 1 << D;
    signal input n;
    signal output active[N];

    component position = CountOneHot(N);
    position.value <== n;
    active <== position.before;
}

// Every node of the 16-ary Poseidon tree over `leaves`.
template MerkleTree(D) {
    var N = 1 << D;
    var A = arity();
    var H = treeHeight(D);
    signal input leaves[N];
    signal output nodes[nodeCount(D)];

    for (var i = 0; i < N; i++) nodes[i] <== leaves[i];
    component h[nodeCount(D) - N];
    var k = 0;
    for (var l = 1; l <= H; l++) {
        for (var i = 0; i < levelSize(D, l); i++) {
            h[k] = PoseidonHash(A);
            for (var c = 0; c < A; c++) {
                var child = A * i + c;
                if (child < levelSize(D, l - 1)) {
                    h[k].inputs[c] <== nodes[nodeOffset(D, l - 1) + child];
                } else {
                    h[k].inputs[c] <== zeroHash(l - 1);
                }
            }
            nodes[nodeOffset(D, l) + i] <== h[k].out;
            k++;
        }
    }
}

// One-hot sel[L] for the height L of the smallest tree (16^L leaves) that holds
// max(n, 1) leaves: L = ceil(bitlen(max(n,1) - 1) / 4). Assumes n in [0, 2^D]
// (callers range-check n first); constrains max(n,1) - 1 < 2^D itself.
template LevelSelector(D) {
    var H = treeHeight(D);
    signal input n;
    signal output sel[H + 1];

    signal nIsZero <== IsZero()(n);
    signal m <== n - 1 + nIsZero;
    signal b[D] <== Num2Bits(D)(m);

    // z[t] = 1 iff bits t..D-1 of m are all 0; hsb[t] = 1 iff bit t is the highest set bit.
    signal z[D + 1];
    signal hsb[D];
    z[D] <== 1;
    for (var t = D - 1; t >= 0; t--) {
        z[t] <== z[t + 1] * (1 - b[t]);
        hsb[t] <== b[t] * z[t + 1];
    }
    // bitlen(m) = t + 1 lies in level ceil((t + 1) / 4).
    var level[H + 1];
    level[0] = z[0];
    for (var L = 1; L <= H; L++) level[L] = 0;
    for (var t = 0; t < D; t++) level[(t + arityBits()) \ arityBits()] += hsb[t];
    for (var L = 0; L <= H; L++) sel[L] <== level[L];
}

// The commitment of a trace of n records whose tree is `nodes`: the root of the
// smallest zero-padded tree of 16^L leaves holding n, node(L, 0); 0 for n = 0.
// It does not depend on the capacity 2^D, so one on-chain commitment can be
// proven by any circuit large enough for it.
// Assumes n in [0, 2^D] and leaves at index >= n are 0 (PrefixMask + RecordLeaf).
template CommitmentRoot(D) {
    var H = treeHeight(D);
    signal input n;
    signal input nodes[nodeCount(D)];
    signal output root;

    signal sel[H + 1] <== LevelSelector(D)(n);
    signal term[H + 1];
    var sum = 0;
    for (var L = 0; L <= H; L++) {
        term[L] <== sel[L] * nodes[nodeOffset(D, L)];
        sum += term[L];
    }
    root <== sum;
}
