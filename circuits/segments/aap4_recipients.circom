pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/segment.circom";
include "../gadgets/segment_events.circom";
include "../gadgets/active_set.circom";
include "../predicates/aap4_recipients.circom";

// One segment of an AAP-4 claim. The frame every segment circuit shares (the public inputs, SegmentClaim,
// SegmentTrace, SegmentState and the state they carry) is described in circuits/gadgets/segment.circom;
// the rest is AAP-4's own.
// The predicate state it carries is the recipient event log so far (EventLogFrom): E slots of
// (value, granted) and their count, committed by EventLogState. A session holds at most E recipient
// grants and revokes in all (docs/PREDICATES.md, AAP-4).
// Ds: S = 2^Ds records per segment; K: entry slots per segment; T: outbound tools; A: allowlist;
// E: event slots for the whole session.
template Aap4RecipientsSegment(Ds, K, T, A, E) {
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
    signal input eventCount;
    signal input eventValue[E];
    signal input eventGranted[E];
    signal input tools[T];
    signal input allow[A];

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

    component theta = Aap4Theta(T, A);
    theta.paramsHash <== paramsHash;
    theta.tools <== tools;
    theta.allow <== allow;

    // The event log so far, continued by this segment's recipient grants and revokes.
    component events = SetEvents(S, NAMESPACE_RECIPIENT());
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
    signal predicateIn <== EventLogState(E)(eventCount, eventValue, eventGranted);
    signal predicateOut <== EventLogState(E)(eventLog.countOut, eventLog.value, eventLog.granted);

    component record[S];
    signal violations[S];
    for (var i = 0; i < S; i++) {
        record[i] = Aap4RecordViolation(T, A, E);
        record[i].active <== trace.active[i];
        record[i].kind <== slots[i][SLOT_KIND()];
        record[i].tool <== slots[i][SLOT_TOOL()];
        record[i].targets <== [slots[i][SLOT_TARGET0()], slots[i][SLOT_TARGET1()]];
        record[i].tools <== tools;
        record[i].allow <== allow;
        record[i].slot <== eventLog.value;
        record[i].granted <== eventLog.granted;
        record[i].before <== eventLog.before[i];
        violations[i] <== record[i].violated;
    }

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
    state.violatedHere <== AnyOf(S)(violations);
    state.outPredicate <== predicateOut;
    state.outPending <== trace.pendingOut;
}
