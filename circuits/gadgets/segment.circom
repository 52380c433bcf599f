pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "leaf.circom";
include "merkle.circom";
include "checkpoints.circom";
include "hash.circom";
include "zeros.circom";

// Segment proofs (docs/PROTOCOL.md "Segmented settlement", docs/SOUNDNESS.md "Segment chains").
// A session of n records is proven by ceil(n / S) segment proofs, S = 2^Ds; segment `index` holds
// records [index·S, min((index+1)·S, n)). Segments are chained by a state commitment: stateIn of a
// segment is the stateOut of the one before, the first one's stateIn is 0, and the last one's
// stateOut is SEGMENT_SATISFIED() or SEGMENT_VIOLATED(). The escrow stores each proven link under
// (claim, claim digest, stateIn, stateOut), the index being inside the states, and settles once a chain
// from 0 to a terminal state covers [0, n).
// sdk/core/segments.ts computes the same states; the two are held equal by test/circuits/segment.test.ts.
//
// The carried state (SegmentState hashes it; sdk/core/segments.ts stateVector):
//   [index, head, acc, sum, chain, alpha, beta, violated, predicate, pending[L][16]]
//   head      the chain head leaf_{index·S − 1} (leaf.circom): the next leaf's `prev`
//   pending   the Merkle frontier: per level q..H−1 of the 16-ary trace tree, the finished nodes of
//             the group the next node joins, zeroHash(level) past them (SegmentFrontier)
//   acc       the checkpoint fold over the entries folded so far, in the escrow's order
//   sum       the checkpoint lookup's running sum; chain, the hash chain of its multiplicities
//   alpha, beta  the lookup's challenge, the same in every segment, checked by the last one
//   violated  whether a record so far violated the promise; predicate, the predicate's own state.
//
// The frame every segment circuit (circuits/segments/aapN_*.circom) shares around its predicate's logic:
// - public inputs: claimDigest, which the escrow computes once per claim from its storage (openSegments),
//   and the states it links. The claim's values behind the digest (context, finalRoot, n, checkpointAcc,
//   paramsHash: the five public inputs of the predicate's main circuit) are private and bound by it
//   (SegmentClaim). The index is private: stateIn = 0 only at index 0, and each state commitment leads
//   with its index, so a chain of links from 0 to a verdict covers [0, n) in order;
// - SegmentClaim; `trace` = SegmentTrace(Ds, K), from the carried inHead, inAcc, inSum, inChain, alpha,
//   beta, inPending, whose active[], isFirst and isLast the predicate reads; `theta` = AapNTheta
//   (circuits/predicates/aapN_*.circom);
// - `state` = SegmentState(L), fed the carried values, trace's outputs, and the predicate's state in and
//   out (predicateIn, predicateOut, predicateInit for the first segment) and its verdict (violatedHere).
// The wiring is written out in each segment circuit rather than wrapped in one template, for two reasons:
// SegmentState takes the predicate's verdict, which needs SegmentTrace's active[], and circom reads a
// component's outputs only once all its inputs are set; and circom lays out a template's constraints in
// the lexicographic order of its sub-components' names (SegmentClaim_<line>_<col>, `state`, `theta`,
// `trace`, with the predicate's components between them), so a wrapper would reorder the r1cs and change
// every verification key (and verifier contract). For the same reason they keep their names. Anonymous
// calls of one template in one body are ordered by their "<line>_<col>" strings, so moving two of them
// across line 99/100 swaps their constraints: recompile and compare the r1cs after editing a circuit.

// Sessions hold at most 16^6 = 16,777,216 records: six levels of the tree (zeros.circom).
function segmentTreeHeight() { return 6; }
function SEGMENT_SATISFIED() { return 1; }
function SEGMENT_VIOLATED() { return 2; }
// The carried state's fields before the frontier.
function segmentStateHead() { return 9; }

// The claim a segment proves for, as the escrow commits to it once per claim (openSegments):
// claimDigest = Poseidon(Poseidon(context, finalRoot, n), checkpointAcc, paramsHash), the five values a
// whole-claim circuit takes as public inputs (circuits/main/). One public input instead of five keeps
// each proveSegment transaction under 300k gas; Poseidon's collision resistance binds all five.
template SegmentClaim() {
    signal input claimDigest;
    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;

    signal inner <== PoseidonHash(3)([context, finalRoot, n]);
    signal outer <== PoseidonHash(3)([inner, checkpointAcc, paramsHash]);
    claimDigest === outer;
}

// Where the segment lies: start = index·S, which rows are records (active[i] = start + i < n),
// whether it is the first and whether it is the last (n <= start + S). A segment must begin inside
// the trace (start < n) and end inside the tree's 16^H leaves: index < 2^(4H − Ds), so that
// indexBits are exactly its bits. Assumes n < 2^32 (the escrow's uint32).
template SegmentRows(Ds) {
    var S = 1 << Ds;
    var IB = 4 * segmentTreeHeight() - Ds;
    signal input n;
    signal input index;
    signal output start;
    signal output isFirst;
    signal output isLast;
    signal output active[S];
    signal output indexBits[IB];

    indexBits <== Num2Bits(IB)(index);
    start <== index * S;
    isFirst <== IsZero()(index);
    // 1 <= n − start <= 2^32: the segment holds at least one record.
    signal left <== n - start;
    component inside = Num2Bits(32);
    inside.in <== left - 1;
    isLast <== LessThan(33)([left, S + 1]);
    signal count <== S + isLast * (left - S);
    active <== PrefixMask(Ds)(count);
}

// The segment's part of the 16-ary trace tree (merkle.circom). With Ds = 4q + r, its S leaves are
// 2^r whole subtrees of height q, which join the level-q group at digit d_q of u = index·2^r; a
// group that fills up is hashed into the next level, and so on (an incremental Merkle tree whose
// frontier `pending` is carried). Unfilled places hold zeroHash(level), so hashing a group as it
// stands gives the node of the zero-padded tree: top[j] below is the level-(q + 1 + j) node over the
// trace so far, and the commitment of a trace ending in this segment is that node at the height the
// commitment has (CommitmentRoot), or one of the segment's own nodes when it is the first and the
// trace fits under 16^q leaves. cand[h] is that candidate for height h.
template SegmentFrontier(Ds) {
    var S = 1 << Ds;
    var H = segmentTreeHeight();
    var q = Ds \ 4;
    var B = 1 << (Ds % 4);
    var L = H - q;
    signal input indexBits[4 * H - Ds];
    signal input leaves[S];
    signal input pending[L][16];
    signal output pendingOut[L][16];
    signal output cand[H + 1];

    // The segment's own levels 0..q: level l has S / 16^l nodes at offset off[l].
    var off[q + 2];
    off[0] = 0;
    for (var l = 0; l <= q; l++) off[l + 1] = off[l] + (S >> (4 * l));
    signal node[off[q + 1]];
    component inner[off[q + 1]];
    for (var i = 0; i < S; i++) node[i] <== leaves[i];
    for (var l = 1; l <= q; l++) {
        for (var i = 0; i < (S >> (4 * l)); i++) {
            inner[off[l] + i] = PoseidonHash(16);
            for (var c = 0; c < 16; c++) inner[off[l] + i].inputs[c] <== node[off[l - 1] + 16 * i + c];
            node[off[l] + i] <== inner[off[l] + i].out;
        }
    }
    for (var h = 0; h <= q; h++) cand[h] <== node[off[h]];

    // Digits of u = index·2^r, one per carried level: the place the segment's nodes take.
    var ubit[4 * L];
    for (var t = 0; t < 4 * L; t++) ubit[t] = t < Ds % 4 ? 0 : indexBits[t - Ds % 4];
    component digit[L];
    for (var j = 0; j < L; j++) {
        digit[j] = CountOneHot(15);
        var d = 0;
        for (var t = 0; t < 4; t++) d += ubit[4 * j + t] * (1 << t);
        digit[j].value <== d;
    }

    // Level q: the B nodes go to places d_q .. d_q + B − 1 (d_q is a multiple of B).
    signal group[L][16];
    signal put[16][B];
    for (var k = 0; k < 16; k++) {
        var v = pending[0][k];
        for (var t = 0; t < B; t++) {
            if (t <= k) {
                put[k][t] <== digit[0].bit[k - t] * (node[off[q] + t] - pending[0][k]);
            } else {
                put[k][t] <== 0;
            }
            v += put[k][t];
        }
        group[0][k] <== v;
    }
    // group[j] is level q + j with what reached it; top[j], its hash, the level-(q + 1 + j) node.
    signal complete[L];
    signal arrived[L];
    signal up[L][16];
    signal top[L];
    component hashGroup[L];
    arrived[0] <== 1;
    complete[0] <== digit[0].bit[16 - B];
    for (var j = 0; j < L; j++) {
        if (j > 0) {
            // The node from below goes to place d_j: for good if the group below filled up, and for
            // the candidate only otherwise (it is still partial).
            arrived[j] <== complete[j - 1];
            for (var k = 0; k < 16; k++) {
                up[j][k] <== digit[j].bit[k] * (top[j - 1] - pending[j][k]);
                group[j][k] <== pending[j][k] + up[j][k];
            }
            complete[j] <== arrived[j] * digit[j].bit[15];
        } else {
            for (var k = 0; k < 16; k++) up[0][k] <== 0;
        }
        hashGroup[j] = PoseidonHash(16);
        hashGroup[j].inputs <== group[j];
        top[j] <== hashGroup[j].out;
        cand[q + 1 + j] <== top[j];
    }

    // The frontier after the segment: a group that filled up starts again empty; a group nothing
    // reached stays as it was.
    signal reset[L][16];
    for (var j = 0; j < L; j++) {
        for (var k = 0; k < 16; k++) {
            reset[j][k] <== complete[j] * (zeroHash(q + j) - group[j][k]);
            if (j == 0) {
                pendingOut[j][k] <== group[j][k] + reset[j][k];
            } else {
                pendingOut[j][k] <== pending[j][k] + arrived[j] * (group[j][k] + reset[j][k] - pending[j][k]);
            }
        }
    }
}

// CheckpointFold (checkpoints.circom) continued from `from`: the escrow's fold is one hash chain,
// and each segment folds the next run of its entries.
template CheckpointFoldFrom(K) {
    signal input from;
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal output acc;

    signal chain[K + 1];
    signal folded[K];
    component hash[K];
    chain[0] <== from;
    for (var k = 0; k < K; k++) {
        cpActive[k] * (cpActive[k] - 1) === 0;
        if (k > 0) cpActive[k] * (1 - cpActive[k - 1]) === 0;
        hash[k] = PoseidonHash(3);
        hash[k].inputs[0] <== chain[k];
        hash[k].inputs[1] <== cpN[k];
        hash[k].inputs[2] <== cpHead[k];
        folded[k] <== cpActive[k] * (hash[k].out - chain[k]);
        chain[k + 1] <== chain[k] + folded[k];
    }
    acc <== chain[K];
}

// The segment's share of the checkpoint lookup (CheckpointHeads, checkpoints.circom), whose
// challenge is global: sum_i m_i / (alpha − (leaf_i + beta·(start + i + 1))) over its rows, minus
// sum_k active_k / (alpha − (head_k + beta·n_k)) over the entries it folds. The entries a segment
// folds need not be its rows (the spare receipt names any n): only the total over the chain must
// vanish, which the last segment checks, with alpha = HashVector(n, finalRoot, acc, chain) over
// the multiplicities' hash chain. m_i is 2 bits, 0 past n.
template SegmentLookup(Ds, K) {
    var S = 1 << Ds;
    var PACK = 126;
    var J = (S + PACK - 1) \ PACK;
    signal input alpha;
    signal input beta;
    signal input start;
    signal input leaves[S];
    signal input active[S];
    signal input hits[S][2];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input chainIn;
    signal output delta;
    signal output chainOut;

    signal m[S];
    var packed[J];
    for (var j = 0; j < J; j++) packed[j] = 0;
    for (var i = 0; i < S; i++) {
        hits[i][0] * (hits[i][0] - 1) === 0;
        hits[i][1] * (hits[i][1] - 1) === 0;
        m[i] <== hits[i][0] + 2 * hits[i][1];
        m[i] * (1 - active[i]) === 0;
        packed[i \ PACK] += m[i] * (4 ** (i % PACK));
    }
    component link = HashVector(1 + J);
    link.in[0] <== chainIn;
    for (var j = 0; j < J; j++) link.in[1 + j] <== packed[j];
    chainOut <== link.out;

    component row[S];
    signal rowBeta[S];
    var total = 0;
    for (var i = 0; i < S; i++) {
        rowBeta[i] <== beta * (start + i + 1);
        row[i] = LogTerm();
        row[i].alpha <== alpha;
        row[i].key <== leaves[i] + rowBeta[i];
        row[i].weight <== m[i];
        total += row[i].out;
    }
    component entry[K];
    signal entryBeta[K];
    for (var k = 0; k < K; k++) {
        entryBeta[k] <== beta * cpN[k];
        entry[k] = LogTerm();
        entry[k].alpha <== alpha;
        entry[k].key <== cpHead[k] + entryBeta[k];
        entry[k].weight <== cpActive[k];
        total -= entry[k].out;
    }
    delta <== total;
}

// Everything a segment proof needs to know about the committed trace, given the carried state:
// the segment's rows chain on from `head` (leaf.circom), its leaves join the carried Merkle
// frontier, its entries continue the checkpoint fold and lookup; and when it is the last segment,
// the tree is the public finalRoot, the fold the public checkpointAcc, the lookup's sum 0 at the
// challenge derived from all of it. Rows past n are zero, as in CommittedTrace (trace.circom).
template SegmentTrace(Ds, K) {
    var S = 1 << Ds;
    var H = segmentTreeHeight();
    var L = H - Ds \ 4;
    var SL = slotCount();
    signal input n;
    signal input finalRoot;
    signal input checkpointAcc;
    signal input index;
    signal input slots[S][SL];
    signal input digest[S];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[S][2];
    signal input head;
    signal input acc;
    signal input sum;
    signal input chain;
    signal input alpha;
    signal input beta;
    signal input pending[L][16];
    signal output active[S];
    signal output isFirst;
    signal output isLast;
    signal output headOut;
    signal output accOut;
    signal output sumOut;
    signal output chainOut;
    signal output pendingOut[L][16];

    component rows = SegmentRows(Ds);
    rows.n <== n;
    rows.index <== index;
    active <== rows.active;
    isFirst <== rows.isFirst;
    isLast <== rows.isLast;

    component leaf[S];
    for (var i = 0; i < S; i++) {
        leaf[i] = RecordLeaf();
        leaf[i].slots <== slots[i];
        leaf[i].digest <== digest[i];
        if (i == 0) {
            leaf[i].prev <== head;
        } else {
            leaf[i].prev <== leaf[i - 1].leaf;
        }
        leaf[i].active <== active[i];
        for (var j = 0; j < SL; j++) (1 - active[i]) * slots[i][j] === 0;
    }
    headOut <== leaf[S - 1].leaf;

    component tree = SegmentFrontier(Ds);
    tree.indexBits <== rows.indexBits;
    for (var i = 0; i < S; i++) tree.leaves[i] <== leaf[i].leaf;
    tree.pending <== pending;
    pendingOut <== tree.pendingOut;

    accOut <== CheckpointFoldFrom(K)(acc, cpN, cpHead, cpActive);

    component lookup = SegmentLookup(Ds, K);
    lookup.alpha <== alpha;
    lookup.beta <== beta;
    lookup.start <== rows.start;
    for (var i = 0; i < S; i++) lookup.leaves[i] <== leaf[i].leaf;
    lookup.active <== active;
    lookup.hits <== cpHits;
    lookup.cpN <== cpN;
    lookup.cpHead <== cpHead;
    lookup.cpActive <== cpActive;
    lookup.chainIn <== chain;
    chainOut <== lookup.chainOut;
    sumOut <== sum + lookup.delta;

    // The last segment closes the chain against the escrow's storage.
    component height = LevelSelector(4 * H);
    height.n <== n;
    var root = 0;
    signal rootTerm[H + 1];
    for (var h = 0; h <= H; h++) {
        rootTerm[h] <== height.sel[h] * tree.cand[h];
        root += rootTerm[h];
    }
    isLast * (root - finalRoot) === 0;
    isLast * (accOut - checkpointAcc) === 0;
    isLast * sumOut === 0;
    signal seed <== HashVector(4)([n, finalRoot, checkpointAcc, chainOut]);
    isLast * (alpha - seed) === 0;
    signal betaOfAlpha <== PoseidonHash(1)([alpha]);
    isLast * (beta - betaOfAlpha) === 0;
}

// The state commitments. stateIn is 0 for the first segment, whose carried values must then be the
// empty trace's (alpha and beta excepted: the last segment pins them); otherwise it is the hash of
// the carried values, led by this segment's index. stateOut is the hash of the values after the
// segment, led by index + 1, or, for the last segment, the verdict: SEGMENT_SATISFIED() or
// SEGMENT_VIOLATED(). A hash equals 1 or 2 with probability 2/r, so the two kinds never meet.
// `violated` is boolean in and out: 0 in the first segment, and OR-ed with the segment's own verdict.
template SegmentState(L) {
    var HEAD = segmentStateHead();
    var W = HEAD + 16 * L;
    signal input index;
    signal input isFirst;
    signal input isLast;
    signal input stateIn;
    signal input stateOut;
    signal input predicateInit;
    signal input inHead;
    signal input inAcc;
    signal input inSum;
    signal input inChain;
    signal input alpha;
    signal input beta;
    signal input inViolated;
    signal input inPredicate;
    signal input inPending[L][16];
    signal input outHead;
    signal input outAcc;
    signal input outSum;
    signal input outChain;
    signal input violatedHere;
    signal input outPredicate;
    signal input outPending[L][16];
    signal output outViolated;

    // The empty trace: no head, no entries, nothing summed or hashed, nothing violated.
    isFirst * inHead === 0;
    isFirst * inAcc === 0;
    isFirst * inSum === 0;
    isFirst * inChain === 0;
    isFirst * inViolated === 0;
    isFirst * (inPredicate - predicateInit) === 0;
    for (var j = 0; j < L; j++) {
        for (var k = 0; k < 16; k++) isFirst * (inPending[j][k] - zeroHash(segmentLevel(L) + j)) === 0;
    }
    isFirst * stateIn === 0;

    component hashIn = HashVector(W);
    hashIn.in[0] <== index;
    hashIn.in[1] <== inHead;
    hashIn.in[2] <== inAcc;
    hashIn.in[3] <== inSum;
    hashIn.in[4] <== inChain;
    hashIn.in[5] <== alpha;
    hashIn.in[6] <== beta;
    hashIn.in[7] <== inViolated;
    hashIn.in[8] <== inPredicate;
    for (var j = 0; j < L; j++) {
        for (var k = 0; k < 16; k++) hashIn.in[HEAD + 16 * j + k] <== inPending[j][k];
    }
    (1 - isFirst) * (stateIn - hashIn.out) === 0;

    outViolated <== inViolated + violatedHere - inViolated * violatedHere;
    component hashOut = HashVector(W);
    hashOut.in[0] <== index + 1;
    hashOut.in[1] <== outHead;
    hashOut.in[2] <== outAcc;
    hashOut.in[3] <== outSum;
    hashOut.in[4] <== outChain;
    hashOut.in[5] <== alpha;
    hashOut.in[6] <== beta;
    hashOut.in[7] <== outViolated;
    hashOut.in[8] <== outPredicate;
    for (var j = 0; j < L; j++) {
        for (var k = 0; k < 16; k++) hashOut.in[HEAD + 16 * j + k] <== outPending[j][k];
    }
    signal verdictOrHash <== isLast * (SEGMENT_SATISFIED() + outViolated - hashOut.out);
    stateOut === hashOut.out + verdictOrHash;
}

// The lowest carried level q of a segment whose state carries L levels.
function segmentLevel(L) { return segmentTreeHeight() - L; }
