pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/trace.circom";
include "../gadgets/active_set.circom";
include "../predicates/aap2_scope.circom";

// Settles an AAP-2 promise for one (session, promise) pair. The frame every main circuit shares (public
// inputs, context, CommittedTrace, the θ check, outcome) is in circuits/gadgets/trace.circom; the rest is
// AAP-2's own, where outcome is shown rather than computed: only the true one has a witness.
// D: capacity 2^D records; K: checkpoints; T: scoped tools; P: allowed prefixes;
// E: scope grant/revoke events the trace may hold (EventLog).
// pathWitness[i]: record i's path ancestors b_1..b_PREFIX_DEPTH (sdk/core/paths.ts pathWitness), checked
// against the record's slot where it matters. cover[i]: the ancestor hash that covers record i;
// violationAt: the record that violates, when outcome = 1, and violationPath its path witness again
// (aap2Scope.recordInputs, sdk/core/predicates/aap2/definition.ts).
template Aap2ScopeMain(D, K, T, P, E) {
    var N = 1 << D;
    var S = slotCount();
    var W = PREFIX_DEPTH();
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
    signal input prefixes[P];
    signal input pathWitness[N][W];
    signal input cover[N];
    signal input violationAt;
    signal input violationPath[W];

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

    component theta = Aap2Theta(T, P);
    theta.paramsHash <== paramsHash;
    theta.tools <== tools;
    theta.prefixes <== prefixes;

    // Scope grants and revokes among the first n records.
    component events = SetEvents(N, NAMESPACE_SCOPE());
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

    // outcome is fixed by the trace, not chosen: for 0 every checked call needs a
    // cover that works, for 1 the call at violationAt must have none (Aap2Uncovered),
    // and no trace admits both (docs/SOUNDNESS.md, "AAP-2").
    outcome * (outcome - 1) === 0;

    component record[N];
    var uncovered = 0;
    for (var i = 0; i < N; i++) {
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
    (1 - outcome) * uncovered === 0;

    // The named violation: record violationAt's values, picked by a one-hot.
    component at = CountOneHot(N - 1);
    at.value <== violationAt;
    signal pickScoped[N];
    signal pickTarget[N];
    signal pickCount[N];
    var scoped = 0;
    var target = 0;
    var count = 0;
    for (var i = 0; i < N; i++) {
        pickScoped[i] <== at.bit[i] * record[i].scoped;
        pickTarget[i] <== at.bit[i] * slots[i][SLOT_TARGET0()];
        pickCount[i] <== at.bit[i] * eventLog.count[i];
        scoped += pickScoped[i];
        target += pickTarget[i];
        count += pickCount[i];
    }
    component named = Aap2Uncovered(P, E);
    named.scoped <== scoped;
    named.target <== target;
    named.path <== violationPath;
    named.count <== count;
    named.prefixes <== prefixes;
    named.slot <== eventLog.value;
    named.granted <== eventLog.granted;
    outcome * (1 - named.violated) === 0;
}
