pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/trace.circom";
include "../gadgets/active_set.circom";
include "../predicates/aap4_recipients.circom";

// Settles an AAP-4 promise for one (session, promise) pair. The frame every main circuit shares (public
// inputs, context, CommittedTrace, the θ check, outcome) is in circuits/gadgets/trace.circom; the rest is
// AAP-4's own.
// D: capacity 2^D records; K: checkpoints; T: outbound tools; A: allowlist size;
// E: recipient grant/revoke events the trace may hold (EventLog).
template Aap4RecipientsMain(D, K, T, A, E) {
    var N = 1 << D;
    var S = slotCount();
    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;
    signal input outcome;

    signal input slots[N][S];
    signal input digest[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    signal input tools[T];
    signal input allow[A];

    // The shared frame (circuits/gadgets/trace.circom), then the predicate's own logic.
    // context enters no other constraint; squaring keeps it in the proof.
    signal contextSquared <== context * context;

    component trace = CommittedTrace(D, K);
    trace.n <== n;
    trace.finalRoot <== finalRoot;
    trace.checkpointAcc <== checkpointAcc;
    trace.slots <== slots;
    trace.digest <== digest;
    trace.cpN <== cpN;
    trace.cpHead <== cpHead;
    trace.cpActive <== cpActive;
    trace.cpHits <== cpHits;

    component theta = Aap4Theta(T, A);
    theta.paramsHash <== paramsHash;
    theta.tools <== tools;
    theta.allow <== allow;

    // Recipient grants and revokes among the first n records.
    component events = SetEvents(N, NAMESPACE_RECIPIENT());
    for (var i = 0; i < N; i++) {
        events.active[i] <== trace.active[i];
        events.kind[i] <== slots[i][SLOT_KIND()];
        events.tool[i] <== slots[i][SLOT_TOOL()];
        events.value[i] <== slots[i][SLOT_TARGET0()];
    }
    component eventLog = EventLog(N, E);
    eventLog.change <== events.change;
    eventLog.event <== events.event;
    eventLog.grant <== events.grant;

    component record[N];
    signal violations[N];
    for (var i = 0; i < N; i++) {
        record[i] = Aap4RecordViolation(T, A, E);
        record[i].active <== trace.active[i];
        record[i].kind <== slots[i][0];
        record[i].tool <== slots[i][1];
        record[i].targets <== [slots[i][5], slots[i][6]];
        record[i].tools <== tools;
        record[i].allow <== allow;
        record[i].slot <== eventLog.value;
        record[i].granted <== eventLog.granted;
        record[i].before <== eventLog.before[i];
        violations[i] <== record[i].violated;
    }
    signal violated <== AnyOf(N)(violations);
    outcome === violated;
}
