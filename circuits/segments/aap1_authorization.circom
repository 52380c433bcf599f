pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/segment.circom";
include "../gadgets/segment_argument.circom";
include "../gadgets/segment_authorization.circom";
include "../predicates/aap1_authorization.circom";

// One segment of an AAP-1 claim. The frame every segment circuit shares (the public inputs, SegmentClaim,
// SegmentTrace, SegmentState and the state they carry) is described in circuits/gadgets/segment.circom;
// the rest is AAP-1's own.
// The predicate state it carries (HashVector of 9, predicates/aap1/segment-chains.ts): the running values
// and the challenges of AuthorizationChainFrom (circuits/gadgets/segment_authorization.circom):
//   [packChain, weightChain, states, handOffs, roots, fractions, firsts, beta, zeta]
// The first segment starts from [0, 0, 1, 1, 1, 0, 0, beta, zeta] with the prover's beta and zeta, which
// the last segment pins (SessionArgumentClose). A gated call's verdict reads only its own state in, so
// the OR over the segments of their violations is the whole trace's. There is no bound on action ids,
// members or pending authorizations: only on the session's length (2^24 records, the labels' width).
// Ds: S = 2^Ds records per segment; K: entry slots per segment; T: gated tools.
template Aap1AuthorizationSegment(Ds, K, T) {
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
    signal input gatedTools[T];
    signal input authorities[3];
    // The carried AAP-1 state (see above) and this segment's chain labels and weights.
    signal input packChain;
    signal input weightChain;
    signal input states;
    signal input handOffs;
    signal input roots;
    signal input fractions;
    signal input firsts;
    signal input chainBeta;
    signal input chainZeta;
    signal input chainRank[S];
    signal input chainLast[S];
    signal input chainPred[S];
    signal input chainValidIn[S];
    signal input chainUsedIn[S];
    signal input chainCoversIn[S];
    signal input chainWeight[S];

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

    for (var i = 0; i < 3; i++) authorities[i] * (authorities[i] - 1) === 0;
    component theta = Aap1Theta(T);
    theta.paramsHash <== paramsHash;
    theta.gatedTools <== gatedTools;
    theta.authorities <== authorities;

    component chains = AuthorizationChainFrom(S, T);
    // The session position of row 0; SegmentRows bounds index so that start + S <= 2^24.
    chains.start <== index * S;
    chains.active <== trace.active;
    for (var i = 0; i < S; i++) {
        chains.kind[i] <== slots[i][SLOT_KIND()];
        chains.tool[i] <== slots[i][SLOT_TOOL()];
        chains.args[i] <== slots[i][SLOT_ARGS()];
        chains.action[i] <== slots[i][SLOT_ACTION()];
        chains.aux[i] <== slots[i][SLOT_AUX()];
        chains.ref[i] <== slots[i][SLOT_TARGET0()];
    }
    chains.tools <== gatedTools;
    chains.accepted <== authorities;
    // The final root binds every active record's slots: it seeds the (tool, args) fingerprint.
    chains.seed <== finalRoot;
    chains.rank <== chainRank;
    chains.last <== chainLast;
    chains.pred <== chainPred;
    chains.validIn <== chainValidIn;
    chains.usedIn <== chainUsedIn;
    chains.coversIn <== chainCoversIn;
    chains.weight <== chainWeight;
    chains.beta <== chainBeta;
    chains.zeta <== chainZeta;
    chains.packChainIn <== packChain;
    chains.weightChainIn <== weightChain;
    chains.statesIn <== states;
    chains.handOffsIn <== handOffs;
    chains.rootsIn <== roots;
    chains.fractionsIn <== fractions;
    chains.firstsIn <== firsts;

    component close = SessionArgumentClose();
    close.isLast <== trace.isLast;
    close.finalRoot <== finalRoot;
    close.beta <== chainBeta;
    close.zeta <== chainZeta;
    close.packChain <== chains.packChainOut;
    close.weightChain <== chains.weightChainOut;
    close.left <== chains.statesOut;
    close.right <== chains.handOffsOut;
    close.roots <== chains.rootsOut;
    close.fractions <== chains.fractionsOut;
    close.firsts <== chains.firstsOut;

    // Every term is boolean and there are at most S < r of them.
    signal violated <== AnyOf(S)(chains.violations);

    // The first segment starts from the empty products (1), sums and chains (0); a later one from the
    // carried values, which the links bind.
    signal predicateInit <== HashVector(9)([0, 0, 1, 1, 1, 0, 0, chainBeta, chainZeta]);
    signal predicateIn <== HashVector(9)(
        [packChain, weightChain, states, handOffs, roots, fractions, firsts, chainBeta, chainZeta]
    );
    signal predicateOut <== HashVector(9)(
        [
            chains.packChainOut,
            chains.weightChainOut,
            chains.statesOut,
            chains.handOffsOut,
            chains.rootsOut,
            chains.fractionsOut,
            chains.firstsOut,
            chainBeta,
            chainZeta
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
    state.violatedHere <== violated;
    state.outPredicate <== predicateOut;
    state.outPending <== trace.pendingOut;
}
