pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/segment.circom";
include "../gadgets/limits.circom";
include "../predicates/aap3_payment.circom";

// One segment of an AAP-3 claim (circuits/gadgets/segment.circom has the chain).
// Public inputs: claimDigest, which the escrow computes once per claim from its storage (openSegments),
// and the states it links (docs/PROTOCOL.md "Segmented settlement"). The claim's values behind the
// digest are private here and bound by it (SegmentClaim): the same five public inputs as
// circuits/main/aap3_payment.circom. The index is private: stateIn = 0 only at index 0, and each state
// commitment leads with its index, so a chain of links from 0 to a verdict covers [0, n) in order.
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

    component theta = HashVector(4 + P + M);
    theta.in[0] <== AAP3_PREDICATE_ID();
    theta.in[1] <== P;
    theta.in[2] <== M;
    for (var i = 0; i < P; i++) theta.in[3 + i] <== tools[i];
    for (var i = 0; i < M; i++) theta.in[3 + P + i] <== merchants[i];
    theta.in[3 + P + M] <== cap;
    paramsHash === theta.out;

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
