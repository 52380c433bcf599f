// Protocol v1 gadget, copied verbatim from git HEAD cffe71c:circuits/gadgets/merkle.circom. Kept only for
// scripts/bench/encodings.ts (checkpoint-encoding costs); not part of any built circuit.
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

// One-hot eq[16] of the 4-bit number `bits` (least significant first), assumed boolean.
template Digit16() {
    signal input bits[4];
    signal output eq[16];

    signal low <== bits[0] * bits[1];
    signal high <== bits[2] * bits[3];
    var lo[4] = [1 - bits[0] - bits[1] + low, bits[0] - low, bits[1] - low, low];
    var hi[4] = [1 - bits[2] - bits[3] + high, bits[2] - high, bits[3] - high, high];
    for (var h = 0; h < 4; h++) {
        for (var l = 0; l < 4; l++) eq[4 * h + l] <== hi[h] * lo[l];
    }
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

// The commitment of the first k records of the tree `nodes`, as if every leaf from
// k on were 0: the root a checkpoint of k records committed on-chain.
// Walks up from position k (the first empty leaf). At level l, with o the l-th
// base-16 digit of k, the prefix tree's parent on the path has children
//   j < o: nodes of the full tree, wholly below k, picked by the bits of k above
//          the digit (the group of 16 the path is in);
//   j = o: the prefix node on the path one level down (cur);
//   j > o: empty subtrees.
// The group index leaves out bit D: it is set only for k = 2^D, when every digit
// below it is 0 and no full-tree child is used.
// Cost ~15·2^(D-4) + 700·ceil(D/4) constraints.
// Assumes k in [1, 2^D]; range-checks k < 2^(D+1) itself.
template PrefixCommitment(D) {
    // Digit16 decodes one base-16 digit: the walk is written for arity 16.
    assert(arityBits() == 4);
    var A = arity();
    var H = treeHeight(D);
    signal input k;
    signal input nodes[nodeCount(D)];
    signal output root;

    signal b[D + 1] <== Num2Bits(D + 1)(k);

    // cur[l]: the prefix tree's node at level l on the path of position k.
    signal cur[H + 1];
    signal val[H + 1];
    signal full[H][A - 1];
    signal fullTerm[H][A - 1];
    signal child[H][A];
    component digit[H];
    component pick[H][A - 1];
    component h[H];
    cur[0] <== 0;
    for (var l = 0; l < H; l++) {
        var at = nodeOffset(D, l);
        var zero = zeroHash(l);
        digit[l] = Digit16();
        for (var t = 0; t < arityBits(); t++) {
            if (arityBits() * l + t <= D) {
                digit[l].bits[t] <== b[arityBits() * l + t];
            } else {
                digit[l].bits[t] <== 0;
            }
        }

        var B = D - arityBits() * (l + 1);
        var above = 0;
        for (var j = A - 1; j >= 0; j--) {
            // above = [o > j]: the digit is past child j, so child j is a full node.
            if (j < A - 1) {
                if (B <= 0) {
                    if (j < levelSize(D, l)) {
                        full[l][j] <== nodes[at + j];
                    } else {
                        full[l][j] <== zero;
                    }
                } else {
                    pick[l][j] = MuxByBits(B);
                    for (var q = 0; q < (1 << B); q++) pick[l][j].in[q] <== nodes[at + A * q + j];
                    for (var t = 0; t < B; t++) pick[l][j].bits[t] <== b[arityBits() * (l + 1) + t];
                    full[l][j] <== pick[l][j].out;
                }
                fullTerm[l][j] <== above * (full[l][j] - zero);
                child[l][j] <== zero + fullTerm[l][j] + digit[l].eq[j] * (cur[l] - zero);
            } else {
                child[l][j] <== zero + digit[l].eq[j] * (cur[l] - zero);
            }
            above += digit[l].eq[j];
        }
        h[l] = PoseidonHash(A);
        h[l].inputs <== child[l];
        cur[l + 1] <== h[l].out;
    }

    // node(L, 0) of the prefix tree: the full tree's node(L, 0) when k = 16^L
    // (bit 4L of k, as k <= 16^L at the selected level), else the path's node.
    for (var L = 0; L <= H; L++) {
        if (arityBits() * L <= D) {
            val[L] <== cur[L] + b[arityBits() * L] * (nodes[nodeOffset(D, L)] - cur[L]);
        } else {
            val[L] <== cur[L];
        }
    }

    signal sel[H + 1] <== LevelSelector(D)(k);
    signal term[H + 1];
    var sum = 0;
    for (var L = 0; L <= H; L++) {
        term[L] <== sel[L] * val[L];
        sum += term[L];
    }
    root <== sum;
}
