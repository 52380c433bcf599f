pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/trace.circom";
include "../gadgets/grounding.circom";
include "../predicates/aap6_grounding.circom";

// Settles an AAP-6 promise for one (session, promise) pair. The frame every main circuit shares (public
// inputs, context, CommittedTrace, the θ check, outcome) is in circuits/gadgets/trace.circom; the rest is
// AAP-6's own. AAP-6 is the first predicate that reads observations: it takes each record's status,
// observed values and content and recomputes the digest its leaf binds (RecordDigest, leaf.circom), so
// every value the argument reads is one the committed record holds.
// D: capacity 2^D records; K: checkpoints; Q: consequential tools; S: source tools.
template Aap6GroundingMain(D, K, Q, S) {
    var N = 1 << D;
    var SC = slotCount();
    var O = obsSlots();
    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;
    signal input outcome;

    signal input slots[N][SC];
    signal input status[N];
    signal input obs[N][O];
    signal input content[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    signal input consequentialTools[Q];
    signal input sourceTools[S];
    signal input normalise;
    // StrictGrounding's hints (sdk/core/predicates/aap6/grounding.ts), checked there.
    signal input groundingPick[N * O];
    signal input groundingGap[N * O];
    signal input groundingMult[N * O];
    signal input groundingAccInv;

    // The shared frame (circuits/gadgets/trace.circom), then the predicate's own logic.
    // context enters no other constraint; squaring keeps it in the proof.
    signal contextSquared <== context * context;

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

    component trace = CommittedTrace(D, K);
    trace.n <== n;
    trace.finalRoot <== finalRoot;
    trace.checkpointAcc <== checkpointAcc;
    trace.slots <== slots;
    for (var i = 0; i < N; i++) trace.digest[i] <== digest[i].digest;
    trace.cpN <== cpN;
    trace.cpHead <== cpHead;
    trace.cpActive <== cpActive;
    trace.cpHits <== cpHits;

    component theta = Aap6Theta(Q, S);
    theta.paramsHash <== paramsHash;
    theta.consequentialTools <== consequentialTools;
    theta.sourceTools <== sourceTools;
    theta.normalise <== normalise;

    // Rows past n are inactive, so their free status and observations are neither queries nor grounds.
    component roles[N];
    component grounding = StrictGrounding(N, O);
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
    // The final root binds every record's slots and digest, so every value and role the argument reads.
    grounding.seed <== finalRoot;
    grounding.pick <== groundingPick;
    grounding.gap <== groundingGap;
    grounding.mult <== groundingMult;
    grounding.accInv <== groundingAccInv;
    outcome === grounding.violated;
}
