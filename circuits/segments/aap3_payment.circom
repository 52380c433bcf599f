pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/segment.circom";
include "../gadgets/limits.circom";
include "../predicates/aap3_payment.circom";

// One segment of an AAP-3 claim. The frame every segment circuit shares (the public inputs, SegmentClaim,
// SegmentTrace, SegmentState and the state they carry) is described in circuits/gadgets/segment.circom;
// the rest is AAP-3's own.
// AAP-3 judges each call on its own, so it carries no predicate state (predicate = 0).
// Ds: S = 2^Ds records per segment; K: entry slots per segment; P: pay tools; M: merchants.
template Aap3PaymentSegment(Ds, K, P, M) {
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
    signal input tools[P];
    signal input merchants[M];
    signal input cap;

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

    component theta = Aap3Theta(P, M);
    theta.paramsHash <== paramsHash;
    theta.tools <== tools;
    theta.merchants <== merchants;
    theta.cap <== cap;

    component capBits = Num2Bits(AMOUNT_BITS());
    capBits.in <== cap;

    component record[S];
    signal violations[S];
    for (var i = 0; i < S; i++) {
        record[i] = Aap3RecordViolation(P, M);
        record[i].active <== trace.active[i];
        record[i].kind <== slots[i][SLOT_KIND()];
        record[i].tool <== slots[i][SLOT_TOOL()];
        record[i].aux <== slots[i][SLOT_AUX()];
        record[i].targets <== [slots[i][SLOT_TARGET0()], slots[i][SLOT_TARGET1()]];
        record[i].tools <== tools;
        record[i].merchants <== merchants;
        record[i].cap <== cap;
        violations[i] <== record[i].violated;
    }

    // The shared frame's state commitments (SegmentState, circuits/gadgets/segment.circom).
    component state = SegmentState(L);
    state.index <== index;
    state.isFirst <== trace.isFirst;
    state.isLast <== trace.isLast;
    state.stateIn <== stateIn;
    state.stateOut <== stateOut;
    state.predicateInit <== 0;
    state.inHead <== inHead;
    state.inAcc <== inAcc;
    state.inSum <== inSum;
    state.inChain <== inChain;
    state.alpha <== alpha;
    state.beta <== beta;
    state.inViolated <== inViolated;
    state.inPredicate <== 0;
    state.inPending <== inPending;
    state.outHead <== trace.headOut;
    state.outAcc <== trace.accOut;
    state.outSum <== trace.sumOut;
    state.outChain <== trace.chainOut;
    state.violatedHere <== AnyOf(S)(violations);
    state.outPredicate <== 0;
    state.outPending <== trace.pendingOut;
}
