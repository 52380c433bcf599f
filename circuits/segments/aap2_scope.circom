pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/segment.circom";
include "../gadgets/segment_events.circom";
include "../gadgets/active_set.circom";
include "../predicates/aap2_scope.circom";

// One segment of an AAP-2 claim. The frame every segment circuit shares (the public inputs, SegmentClaim,
// SegmentTrace, SegmentState and the state they carry) is described in circuits/gadgets/segment.circom;
// the rest is AAP-2's own.
// The predicate state it carries is the scope event log so far (EventLogFrom, as AAP-4 carries its
// recipients): E slots of (prefix hash, granted) and their count, committed by EventLogState. A session
// holds at most E scope grants and revokes in all (docs/PREDICATES.md, AAP-2).
// Each segment decides its own rows as circuits/main/aap2_scope.circom decides a whole trace, with
// `named` in place of the outcome: named = 0 needs a working cover for every checked call of the segment,
// named = 1 needs the call at violationAt (a row of this segment) to have none (Aap2Uncovered). No segment
// admits both, so `named` is fixed by the segment's rows and the log before it, and the chain's verdict is
// the OR of the segments' (docs/SOUNDNESS.md "Segment chains").
// Ds: S = 2^Ds records per segment; K: entry slots per segment; T: scoped tools; P: allowed prefixes;
// E: event slots for the whole session.
template Aap2ScopeSegment(Ds, K, T, P, E) {
    var S = 1 << Ds;
    var SL = slotCount();
    var W = PREFIX_DEPTH();
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
    signal input eventCount;
    signal input eventValue[E];
    signal input eventGranted[E];
    signal input tools[T];
    signal input prefixes[P];
    signal input pathWitness[S][W];
    signal input cover[S];
    signal input named;
    signal input violationAt;
    signal input violationPath[W];

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

    component theta = Aap2Theta(T, P);
    theta.paramsHash <== paramsHash;
    theta.tools <== tools;
    theta.prefixes <== prefixes;

    // The scope log so far, continued by this segment's grants and revokes.
    component events = SetEvents(S, NAMESPACE_SCOPE());
    for (var i = 0; i < S; i++) {
        events.active[i] <== trace.active[i];
        events.kind[i] <== slots[i][SLOT_KIND()];
        events.tool[i] <== slots[i][SLOT_TOOL()];
        events.value[i] <== slots[i][SLOT_TARGET0()];
    }
    // The first segment starts with no events (EventLogFrom then keeps every slot empty).
    trace.isFirst * eventCount === 0;
    component eventLog = EventLogFrom(S, E);
    eventLog.countIn <== eventCount;
    eventLog.valueIn <== eventValue;
    eventLog.grantedIn <== eventGranted;
    eventLog.change <== events.change;
    eventLog.event <== events.event;
    eventLog.grant <== events.grant;
    // predicateInit below is predicateIn itself, so SegmentState's first-segment check is empty here: the
    // first segment's log is empty by `isFirst * eventCount === 0` and EventLogFrom, which keeps every slot at
    // or past the count empty.
    signal predicateIn <== EventLogState(E)(eventCount, eventValue, eventGranted);
    signal predicateOut <== EventLogState(E)(eventLog.countOut, eventLog.value, eventLog.granted);

    named * (named - 1) === 0;
    component record[S];
    var uncovered = 0;
    for (var i = 0; i < S; i++) {
        record[i] = Aap2RecordCover(T, P, E);
        record[i].active <== trace.active[i];
        record[i].kind <== slots[i][SLOT_KIND()];
        record[i].tool <== slots[i][SLOT_TOOL()];
        record[i].target <== slots[i][SLOT_TARGET0()];
        record[i].path <== pathWitness[i];
        record[i].cover <== cover[i];
        record[i].tools <== tools;
        record[i].prefixes <== prefixes;
        record[i].slot <== eventLog.value;
        record[i].granted <== eventLog.granted;
        record[i].before <== eventLog.before[i];
        // covered <= opened <= scoped, so each term is boolean and the sum cannot wrap.
        uncovered += record[i].scoped - record[i].covered;
    }
    (1 - named) * uncovered === 0;

    // The named violation: row violationAt's values, picked by a one-hot over this segment's rows.
    component at = CountOneHot(S - 1);
    at.value <== violationAt;
    signal pickScoped[S];
    signal pickTarget[S];
    signal pickCount[S];
    var scoped = 0;
    var target = 0;
    var count = 0;
    for (var i = 0; i < S; i++) {
        pickScoped[i] <== at.bit[i] * record[i].scoped;
        pickTarget[i] <== at.bit[i] * slots[i][SLOT_TARGET0()];
        pickCount[i] <== at.bit[i] * eventLog.count[i];
        scoped += pickScoped[i];
        target += pickTarget[i];
        count += pickCount[i];
    }
    component uncoveredAt = Aap2Uncovered(P, E);
    uncoveredAt.scoped <== scoped;
    uncoveredAt.target <== target;
    uncoveredAt.path <== violationPath;
    uncoveredAt.count <== count;
    uncoveredAt.prefixes <== prefixes;
    uncoveredAt.slot <== eventLog.value;
    uncoveredAt.granted <== eventLog.granted;
    named * (1 - uncoveredAt.violated) === 0;

    // The shared frame's state commitments (SegmentState, circuits/gadgets/segment.circom).
    component state = SegmentState(L);
    state.index <== index;
    state.isFirst <== trace.isFirst;
    state.isLast <== trace.isLast;
    state.stateIn <== stateIn;
    state.stateOut <== stateOut;
    state.predicateInit <== predicateIn;
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
    state.violatedHere <== named;
    state.outPredicate <== predicateOut;
    state.outPending <== trace.pendingOut;
}
