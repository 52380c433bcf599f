pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/segment.circom";
include "../gadgets/segment_grounding.circom";
include "../predicates/aap6_grounding.circom";

// One segment of an AAP-6 claim. The frame every segment circuit shares (the public inputs, SegmentClaim,
// SegmentTrace, SegmentState and the state they carry) is described in circuits/gadgets/segment.circom;
// the rest is AAP-6's own. Like the whole-claim circuit (circuits/main/aap6_grounding.circom) it reads
// observations: each row's digest is recomputed from its status, observed values and content
// (RecordDigest), so every value the argument reads is one the committed record holds.
// The predicate state it carries (HashVector of 10, sdk/core/predicates/aap6/segment-grounding.ts), the
// running values of StrictGroundingFrom (circuits/gadgets/segment_grounding.circom):
//   [b, V, picked, running, acc, querySum, groundSum, packChain, beta, z]
// The first segment starts from [b, V, 0, 1, 0, 0, 0, 0, beta, z] with the prover's b, V, beta and z; the
// last segment closes the argument and pins beta and z. A segment holding the picked (ungrounded) query
// reports a violation to the frame, so the chain's `violated` turns on at the first violating record's
// segment, as sdk/core/segments.ts plans it, and the last segment requires that a pick was made iff b = 1.
// Ds: 2^Ds records per segment; K: entry slots per segment; Q: consequential tools; S: source tools.
template Aap6GroundingSegment(Ds, K, Q, S) {
    var N = 1 << Ds;
    var SL = slotCount();
    var O = obsSlots();
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

    signal input slots[N][SL];
    signal input status[N];
    signal input obs[N][O];
    signal input content[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    signal input inHead;
    signal input inAcc;
    signal input inSum;
    signal input inChain;
    signal input alpha;
    signal input beta;
    signal input inViolated;
    signal input inPending[L][16];
    signal input consequentialTools[Q];
    signal input sourceTools[S];
    signal input normalise;
    // The carried grounding state (see above) and this segment's hints.
    signal input groundingB;
    signal input groundingV;
    signal input groundingPicked;
    signal input groundingRunning;
    signal input groundingAcc;
    signal input groundingQuerySum;
    signal input groundingGroundSum;
    signal input groundingPackChain;
    signal input groundingBeta;
    signal input groundingZ;
    signal input groundingPick[N * O];
    signal input groundingGap[N * O];
    signal input groundingMult[N * O];
    signal input groundingAccInv;

    // The shared frame (circuits/gadgets/segment.circom): the claim, the trace, θ; the state at the end.
    SegmentClaim()(claimDigest, context, finalRoot, n, checkpointAcc, paramsHash);

    // What each row's kind and tool make it, and so which form its digest has.
    component row[N];
    component digest[N];
    for (var i = 0; i < N; i++) {
        row[i] = Aap6RowKind(Q, S);
        row[i].kind <== slots[i][SLOT_KIND()];
        row[i].tool <== slots[i][SLOT_TOOL()];
        row[i].consequentialTools <== consequentialTools;
        row[i].sourceTools <== sourceTools;
        digest[i] = RecordDigest();
        digest[i].observed <== row[i].observed;
        digest[i].status <== status[i];
        digest[i].obs <== obs[i];
        digest[i].content <== content[i];
    }

    component trace = SegmentTrace(Ds, K);
    trace.n <== n;
    trace.finalRoot <== finalRoot;
    trace.checkpointAcc <== checkpointAcc;
    trace.index <== index;
    trace.slots <== slots;
    for (var i = 0; i < N; i++) trace.digest[i] <== digest[i].digest;
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

    component theta = Aap6Theta(Q, S);
    theta.paramsHash <== paramsHash;
    theta.consequentialTools <== consequentialTools;
    theta.sourceTools <== sourceTools;
    theta.normalise <== normalise;

    // The argument over the session: this segment's records are index·N + i. Rows past n are inactive,
    // so their free status and observations are neither queries nor grounds.
    component roles[N];
    component grounding = StrictGroundingFrom(N, O);
    for (var i = 0; i < N; i++) {
        roles[i] = Aap6RecordRoles(O);
        roles[i].active <== trace.active[i];
        roles[i].executed <== row[i].executed;
        roles[i].consequential <== row[i].consequential;
        roles[i].executedSource <== row[i].executedSource;
        roles[i].status <== status[i];
        roles[i].obs <== obs[i];
        for (var k = 0; k < O; k++) {
            grounding.value[i * O + k] <== obs[i][k];
            grounding.query[i * O + k] <== roles[i].query[k];
            grounding.ground[i * O + k] <== roles[i].ground[k];
        }
    }
    grounding.start <== index * N;
    grounding.isLast <== trace.isLast;
    grounding.finalRoot <== finalRoot;
    grounding.pick <== groundingPick;
    grounding.gap <== groundingGap;
    grounding.mult <== groundingMult;
    grounding.accInv <== groundingAccInv;
    grounding.b <== groundingB;
    grounding.V <== groundingV;
    grounding.beta <== groundingBeta;
    grounding.z <== groundingZ;
    grounding.pickedIn <== groundingPicked;
    grounding.runningIn <== groundingRunning;
    grounding.accIn <== groundingAcc;
    grounding.querySumIn <== groundingQuerySum;
    grounding.groundSumIn <== groundingGroundSum;
    grounding.packChainIn <== groundingPackChain;

    signal predicateInit <== HashVector(10)([groundingB, groundingV, 0, 1, 0, 0, 0, 0, groundingBeta, groundingZ]);
    signal predicateIn <== HashVector(10)(
        [
            groundingB,
            groundingV,
            groundingPicked,
            groundingRunning,
            groundingAcc,
            groundingQuerySum,
            groundingGroundSum,
            groundingPackChain,
            groundingBeta,
            groundingZ
        ]
    );
    signal predicateOut <== HashVector(10)(
        [
            groundingB,
            groundingV,
            grounding.pickedOut,
            grounding.runningOut,
            grounding.accOut,
            grounding.querySumOut,
            grounding.groundSumOut,
            grounding.packChainOut,
            groundingBeta,
            groundingZ
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
    state.violatedHere <== grounding.pickedHere;
    state.outPredicate <== predicateOut;
    state.outPending <== trace.pendingOut;
}
