pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/segment.circom";
include "../gadgets/segment_repeats.circom";
include "../gadgets/limits.circom";
include "../predicates/aap5_limits.circom";

// One segment of an AAP-5 claim. The frame every segment circuit shares (the public inputs, SegmentClaim,
// SegmentTrace, SegmentState and the state they carry) is described in circuits/gadgets/segment.circom;
// the rest is AAP-5's own.
// The predicate state it carries (HashVector of 11, aap5/segment-repeats.ts): the running count and
// sum, and RepeatHitsFrom's running values and challenges (circuits/gadgets/segment_repeats.circom):
//   [count, sum, packChain, weightChain, labelled, steps, roots, fractions, firsts, beta, zeta]
// The first segment starts from [0, 0, 0, 0, 1, 1, 1, 0, 0, beta, zeta] with the prover's beta and zeta,
// which the last segment pins. The count and the sum only grow, so a segment whose running value is over
// its limit marks the chain violated, and the OR over the segments is the whole trace's verdict; so is a
// repeat hit or a missing amount in any segment. There is no bound on distinct keys or repeats: only on
// the session's length (2^24 records, the labels' width).
// Ds: S = 2^Ds records per segment; K: entry slots per segment; C: counted tools; M: summed tools.
template Aap5LimitsSegment(Ds, K, C, M) {
    var S = 1 << Ds;
    var SL = slotCount();
    var L = segmentTreeHeight() - Ds \ 4;
    signal input claimDigest;
    signal input stateIn;
    signal input stateOut;

    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;
    signal input index;

    signal input slots[S][SL];
    signal input digest[S];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[S][2];
    signal input inHead;
    signal input inAcc;
    signal input inSum;
    signal input inChain;
    signal input alpha;
    signal input beta;
    signal input inViolated;
    signal input inPending[L][16];
    signal input countedTools[C];
    signal input summedTools[M];
    signal input limits[3];
    // The carried AAP-5 state (see above) and this segment's repeat labels and weights.
    signal input runCount;
    signal input runSum;
    signal input packChain;
    signal input weightChain;
    signal input labelled;
    signal input steps;
    signal input roots;
    signal input fractions;
    signal input firsts;
    signal input repeatBeta;
    signal input repeatZeta;
    signal input repeatCount[S];
    signal input repeatLast[S];
    signal input repeatWeight[S];

    // The shared frame (circuits/gadgets/segment.circom): the claim, the trace, θ; the state at the end.
    SegmentClaim()(claimDigest, context, finalRoot, n, checkpointAcc, paramsHash);

    component trace = SegmentTrace(Ds, K);
    trace.n <== n;
    trace.finalRoot <== finalRoot;
    trace.checkpointAcc <== checkpointAcc;
    trace.index <== index;
    trace.slots <== slots;
    trace.digest <== digest;
    trace.cpN <== cpN;
    trace.cpHead <== cpHead;
    trace.cpActive <== cpActive;
    trace.cpHits <== cpHits;
    trace.head <== inHead;
    trace.acc <== inAcc;
    trace.sum <== inSum;
    trace.chain <== inChain;
    trace.alpha <== alpha;
    trace.beta <== beta;
    trace.pending <== inPending;

    component theta = Aap5Theta(C, M);
    theta.paramsHash <== paramsHash;
    theta.countedTools <== countedTools;
    theta.summedTools <== summedTools;
    theta.limits <== limits;
    component limit[3];
    for (var i = 0; i < 3; i++) {
        limit[i] = OptionalLimit(AMOUNT_BITS());
        limit[i].enc <== limits[i];
    }

    component record[S];
    signal call[S];
    var count = runCount;
    var sum = runSum;
    var missing = 0;
    for (var i = 0; i < S; i++) {
        record[i] = Aap5RecordFlags(C, M);
        record[i].active <== trace.active[i];
        record[i].kind <== slots[i][SLOT_KIND()];
        record[i].tool <== slots[i][SLOT_TOOL()];
        record[i].aux <== slots[i][SLOT_AUX()];
        record[i].countedTools <== countedTools;
        record[i].summedTools <== summedTools;
        call[i] <== record[i].call;
        count += record[i].counted;
        sum += record[i].amount;
        missing += record[i].missing;
    }
    // The running totals after this segment. The first segment starts from 0; later ones from the carried
    // values, each a sum of the session's earlier terms: count <= 2^24, sum < 2^(64 + 24).
    trace.isFirst * runCount === 0;
    trace.isFirst * runSum === 0;
    signal countOut <== count;
    signal sumOut <== sum;
    signal countOver <== Exceeds(AMOUNT_BITS())(countOut, limit[0].limit);
    signal countViolated <== limit[0].enabled * countOver;
    signal sumOver <== Exceeds(AMOUNT_BITS() + SESSION_COUNT_BITS())(sumOut, limit[1].limit);
    signal sumViolated <== limit[1].enabled * sumOver;

    component repeats = RepeatHitsFrom(S);
    repeats.live <== call;
    for (var i = 0; i < S; i++) {
        repeats.tool[i] <== slots[i][SLOT_TOOL()];
        repeats.args[i] <== slots[i][SLOT_ARGS()];
    }
    repeats.bound <== limits[2];
    repeats.count <== repeatCount;
    repeats.last <== repeatLast;
    repeats.weight <== repeatWeight;
    repeats.beta <== repeatBeta;
    repeats.zeta <== repeatZeta;
    repeats.packChainIn <== packChain;
    repeats.weightChainIn <== weightChain;
    repeats.labelledIn <== labelled;
    repeats.stepsIn <== steps;
    repeats.rootsIn <== roots;
    repeats.fractionsIn <== fractions;
    repeats.firstsIn <== firsts;
    var hits = 0;
    for (var i = 0; i < S; i++) hits += repeats.hit[i];

    component close = SessionArgumentClose();
    close.isLast <== trace.isLast;
    close.finalRoot <== finalRoot;
    close.beta <== repeatBeta;
    close.zeta <== repeatZeta;
    close.packChain <== repeats.packChainOut;
    close.weightChain <== repeats.weightChainOut;
    close.left <== repeats.labelledOut;
    close.right <== repeats.stepsOut;
    close.roots <== repeats.rootsOut;
    close.fractions <== repeats.fractionsOut;
    close.firsts <== repeats.firstsOut;

    // Every term is boolean and there are at most 2S + 2 < r of them.
    signal none <== IsZero()(countViolated + sumViolated + missing + hits);

    signal predicateInit <== HashVector(11)([0, 0, 0, 0, 1, 1, 1, 0, 0, repeatBeta, repeatZeta]);
    signal predicateIn <== HashVector(11)(
        [runCount, runSum, packChain, weightChain, labelled, steps, roots, fractions, firsts, repeatBeta, repeatZeta]
    );
    signal predicateOut <== HashVector(11)(
        [
            countOut,
            sumOut,
            repeats.packChainOut,
            repeats.weightChainOut,
            repeats.labelledOut,
            repeats.stepsOut,
            repeats.rootsOut,
            repeats.fractionsOut,
            repeats.firstsOut,
            repeatBeta,
            repeatZeta
        ]
    );

    // The shared frame's state commitments (SegmentState, circuits/gadgets/segment.circom).
    component state = SegmentState(L);
    state.index <== index;
    state.isFirst <== trace.isFirst;
    state.isLast <== trace.isLast;
    state.stateIn <== stateIn;
    state.stateOut <== stateOut;
    state.predicateInit <== predicateInit;
    state.inHead <== inHead;
    state.inAcc <== inAcc;
    state.inSum <== inSum;
    state.inChain <== inChain;
    state.alpha <== alpha;
    state.beta <== beta;
    state.inViolated <== inViolated;
    state.inPredicate <== predicateIn;
    state.inPending <== inPending;
    state.outHead <== trace.headOut;
    state.outAcc <== trace.accOut;
    state.outSum <== trace.sumOut;
    state.outChain <== trace.chainOut;
    state.violatedHere <== 1 - none;
    state.outPredicate <== predicateOut;
    state.outPending <== trace.pendingOut;
}
